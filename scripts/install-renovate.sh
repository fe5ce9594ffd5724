#!/usr/bin/env bash
# Installs the real Renovate (and the Node it needs: Renovate 44 wants Node >= 24.11, from the npm
# registry's `node` package) for test/integration/renovate.test.ts, into a folder outside the
# repository that later runs on the same machine reuse: the install takes about a minute and a half
# and half a gigabyte, too much for every `npm ci`. Versions: test/renovate-tools.json.
# Usage: scripts/install-renovate.sh [--print-dir]  → prints the folder (also the default the test
# looks in); with --print-dir it only prints it. The folder appears complete or not at all (the
# install goes to <folder>.partial, then is renamed), so a test can wait for it.
set -euo pipefail
cd "$(dirname "$0")/.."
renovate=$(node -p "require('./test/renovate-tools.json').renovate")
nodever=$(node -p "require('./test/renovate-tools.json').node")
dir="${CAPI_RENDER_RENOVATE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/capi-render-ci/renovate-$renovate-node-$nodever}"
if [ "${1:-}" = "--print-dir" ]; then
  echo "$dir"
  exit 0
fi
if [ ! -x "$dir/node_modules/.bin/renovate" ] || [ ! -x "$dir/node_modules/.bin/node" ]; then
  rm -rf "$dir.partial"
  mkdir -p "$dir.partial"
  echo '{"name":"capi-render-renovate-test-tools","private":true}' > "$dir.partial/package.json"
  # Renovate's own install scripts are not needed (its optional native re2 falls back to RegExp);
  # the node package's are (they unpack the Node binary).
  (cd "$dir.partial" && npm install --no-audit --no-fund --loglevel=error --omit=optional --ignore-scripts "renovate@$renovate" >&2 \
    && npm install --no-audit --no-fund --loglevel=error "node@$nodever" >&2)
  rm -rf "$dir"
  mv "$dir.partial" "$dir"
fi
echo "$dir"
