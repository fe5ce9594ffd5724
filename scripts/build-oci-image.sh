#!/usr/bin/env bash
# The capi-render image: the one recipe the image test builds and runs and the release pushes
# (.github/workflows/release.yaml copies the layout to ghcr.io with `skopeo copy --all`). It writes
# an OCI image layout (what a registry receives: blobs, manifests, an image index over the platforms)
# without a container engine or emulation, from this repository and the pins in deploy/image.json:
#
#   layer 1  Debian: `mmdebstrap --variant=extract` of the listed packages (the C and C++ runtime
#            Node.js links, and coreutils for the `#!/usr/bin/env node` line of the CLI), with their
#            dpkg status entries (for SBOM scanners), the capi-render user (uid/gid 999, the Argo CD
#            sidecar's user), /home/capi-render and the /cache mount point. No shell, no dpkg, no
#            apt. Reproducible; its sha256 must be the pin (a changed suite fails until reviewed).
#   layer 2  Node.js in /usr/local/bin/node from the npm registry's node-linux-<arch> package,
#            integrity-checked against the pin.
#   layer 3  the packed tarball in /usr/local/lib/node_modules/capi-render (never the registry's
#            capi-render) with its dependencies as package-lock.json pins them (`npm ci`, scripts
#            off; pure JavaScript, so one layer serves every platform) and the
#            /usr/local/bin/capi-render link `npm install --global` would make.
#
# Layers 1 and 2 are built once per machine and platform into base layouts outside the clone
# (${XDG_CACHE_HOME:-~/.cache}/capi-render-ci/). Tools: mmdebstrap (and debian-archive-keyring),
# umoci, skopeo, tar, npm, sha256sum; root, or mmdebstrap's unshare mode.
#
# Usage: scripts/build-oci-image.sh --out LAYOUT [--tarball capi-render-X.tgz] [--tag TAG]
#          [--platforms linux/amd64,linux/arm64] [--lock FILE]
#        (no --tarball: `npm pack` of this checkout first; default platform: linux/amd64).
#        Prints LAYOUT:TAG; the tag names the image index.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tarball= out= tag= platforms=linux/amd64 lockfile=$root/package-lock.json
while [ $# -gt 0 ]; do
  case "$1" in
    --tarball) tarball=$(realpath "$2"); shift 2 ;;
    --out) out=$2; shift 2 ;;
    --tag) tag=$2; shift 2 ;;
    --platforms) platforms=$2; shift 2 ;;
    --lock) lockfile=$(realpath "$2"); shift 2 ;;
    *) echo "build-oci-image.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$out" ] || { echo "build-oci-image.sh: --out LAYOUT is required" >&2; exit 2; }
for tool in mmdebstrap umoci skopeo tar npm sha256sum dpkg-deb; do
  command -v "$tool" >/dev/null || { echo "build-oci-image.sh: $tool is missing (apt-get install mmdebstrap umoci skopeo)" >&2; exit 1; }
done
pin() { node -p "require('./deploy/image.json').$1"; }
suite=$(pin debian.suite)
mirror=$(pin debian.mirror)
packages=$(pin "debian.packages.join(',')")
nodever=$(pin node.version)
version=$(node -p "require('./package.json').version")
source_url=$(node -p "require('./package.json').repository.url.replace(/^git\+/, '').replace(/\.git\$/, '')")
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

# --- base layout (layers 1 and 2) of one architecture, cached by what it is built from ----------
build_base() { # arch, layout
  local arch=$1 base=$2 b="$2.partial/build" narch
  case "$arch" in amd64) narch=x64 ;; arm64) narch=arm64 ;; *) echo "build-oci-image.sh: unsupported architecture $arch (amd64, arm64)" >&2; exit 2 ;; esac
  rm -rf "$base.partial"
  mkdir -p "$b"
  # extract: the packages' files only (no maintainer scripts, so no emulation for a foreign
  # architecture; customize hooks do not run for it, extract hooks do). The hooks add what installing
  # would: dpkg's status entries, the two users, the mount points. apt's and dpkg's working folders
  # are then deleted from the tarball (the image has neither tool; mmdebstrap needs them until done).
  SOURCE_DATE_EPOCH=$base_epoch mmdebstrap --variant=extract --architectures="$arch" --include="$packages" --quiet \
    --extract-hook='for deb in "$1"/var/cache/apt/archives/*.deb; do dpkg-deb -f "$deb"; echo "Status: install ok installed"; echo; done > "$1/var/lib/dpkg/status"' \
    --extract-hook='printf "%s\n" "root:x:0:0:root:/root:/usr/sbin/nologin" "capi-render:x:999:999:capi-render:/home/capi-render:/usr/sbin/nologin" > "$1/etc/passwd"' \
    --extract-hook='printf "%s\n" "root:x:0:" "capi-render:x:999:" > "$1/etc/group"' \
    --extract-hook='mkdir -p "$1/proc" "$1/sys" "$1/root" "$1/home/capi-render" "$1/cache" && chmod 1777 "$1/tmp" && chown 999:999 "$1/home/capi-render" "$1/cache"' \
    "$suite" "$b/debian.tar" "$mirror"
  # And the build machine's /etc/hostname and /etc/resolv.conf (the runtime provides both).
  tar --delete -f "$b/debian.tar" ./etc/hostname ./etc/resolv.conf ./etc/fstab ./etc/apt ./etc/dpkg ./var/cache/apt ./var/lib/apt ./var/lib/dpkg/arch ./var/lib/dpkg/alternatives ./var/lib/dpkg/info
  local want got
  want=$(pin "debian.layer.$arch")
  got="sha256:$(sha256sum "$b/debian.tar" | cut -d' ' -f1)"
  if [ "$got" != "$want" ]; then
    echo "build-oci-image.sh: the Debian $suite $arch layer is $got, deploy/image.json pins $want: the suite's packages changed; review them (tar -tvf), then update debian.layer.$arch" >&2
    exit 1
  fi
  (cd "$b" && npm pack --silent --json "node-linux-$narch@$nodever" > pack.json)
  want=$(pin "node.integrity.$arch")
  got=$(node -p "require('$b/pack.json')[0].integrity")
  if [ "$got" != "$want" ]; then
    echo "build-oci-image.sh: node-linux-$narch@$nodever has integrity $got, deploy/image.json pins $want" >&2
    exit 1
  fi
  mkdir -p "$b/node/usr/local/bin" "$b/node-pkg"
  tar -xzf "$b"/node-linux-"$narch"-*.tgz -C "$b/node-pkg"
  install -m 0755 "$b/node-pkg/package/bin/node" "$b/node/usr/local/bin/node"
  cp "$b/node-pkg/package/LICENSE" "$b/node/usr/local/bin/node.LICENSE" 2>/dev/null || true
  tar -C "$b/node" "${tarflags[@]}" --mtime="@$base_epoch" -cf "$b/node.tar" usr
  local created
  created=$(date -u -d "@$base_epoch" +%FT%TZ)
  umoci init --layout "$base.partial/layout"
  umoci new --image "$base.partial/layout:base"
  umoci raw add-layer --image "$base.partial/layout:base" --history.created_by "mmdebstrap --variant=extract $suite ($packages)" --history.created "$created" "$b/debian.tar"
  umoci raw add-layer --image "$base.partial/layout:base" --history.created_by "node-linux-$narch@$nodever → /usr/local/bin/node" --history.created "$created" "$b/node.tar"
  mv "$base.partial/layout" "$base.partial.layout" && rm -rf "$base.partial" && mv "$base.partial.layout" "$base"
}
recipe=$(printf '%s\n' "$(cat deploy/image.json)" "$(sed -n '/^# --- base layout/,/^# --- end base/p' "$0")" | sha256sum | cut -c1-16)
cache="${CAPI_RENDER_IMAGE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-render-ci}"
mkdir -p "$cache"
# --- end base -------------------------------------------------------------------------------------

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

rm -rf "$out"
umoci init --layout "$out"
arches=()
for platform in ${platforms//,/ }; do
  [ "${platform%%/*}" = linux ] || { echo "build-oci-image.sh: unsupported platform $platform (linux/amd64, linux/arm64)" >&2; exit 2; }
  arch=${platform#linux/}
  base="$cache/image-base-$suite-node-$nodever-$arch-$recipe"
  [ -f "$base/index.json" ] || build_base "$arch" "$base"
  skopeo copy --quiet "oci:$base:base" "oci:$out:base-$arch"
  umoci raw add-layer --image "$out:base-$arch" --tag "$tag-$arch" --history.created "$created" --history.created_by "$(basename "$tarball") + npm ci --omit=dev" "$work/app.tar"
  umoci config --image "$out:$tag-$arch" --created "$created" --history.created "$created" --history.created_by "capi-render image config" \
    --os linux --architecture "$arch" \
    --config.user 999:999 \
    --config.env PATH=/usr/local/bin:/usr/bin:/bin \
    --config.env HOME=/home/capi-render \
    --config.env CAPI_RENDER_CACHE_DIR=/cache \
    --config.workingdir /home/capi-render \
    --config.entrypoint capi-render \
    --config.label org.opencontainers.image.title=capi-render \
    --config.label "org.opencontainers.image.version=$version" \
    --config.label "org.opencontainers.image.source=$source_url" \
    --config.label "org.opencontainers.image.revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)"
  umoci rm --image "$out:base-$arch"
  arches+=("$arch")
done
umoci gc --layout "$out"
# The tag names an image index over the platforms' manifests (what `skopeo copy --all` pushes).
node scripts/oci-image-index.mjs "$out" "$tag" "${arches[@]}"
echo "$out:$tag"
