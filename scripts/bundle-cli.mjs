// Bundles the CLI (tsc's dist/cli/main.js and everything it imports, dependencies included) into
// dist/bin/, started by dist/bin/capi-render.js. Node then reads and resolves a few files instead of
// ~300, which took about a quarter of a second of every run. The commands, and the Sigstore
// libraries only signature checks and signing need, are split into chunks loaded on first use
// (they import on demand, src/cli/run.ts): with the Sigstore libraries in one file, every command
// spent ~40 ms more pre-parsing 1.8 MB it never ran. The library entry (dist/index.js) stays tsc's
// unbundled output.
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));
const outdir = path.join(root, 'dist/bin');
rmSync(outdir, { recursive: true, force: true });
const common = {
  external: ['./main.js', './no-op-build.js', 'handlebars', 'undici'],
  outdir,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // handlebars and undici (external above) are loaded on first use, from node_modules (see
  // src/handlebars-instance.ts; undici only when a proxy variable is set, src/source/http/network-fetch.ts);
  // CommonJS dependencies inside the bundle need a require of their own.
  banner: {
    js: "import { createRequire as __capiRenderCreateRequire } from 'node:module';\nconst require = __capiRenderCreateRequire(import.meta.url);",
  },
  sourcemap: 'linked',
  legalComments: 'eof',
  logLevel: 'warning',
};
// main.js is the CLI with everything it imports; capi-render.js only turns on Node's compile
// cache (src/cli/launcher.ts) and then imports main.js, which must stay a separate file for that.
await build({
  ...common,
  entryPoints: { 'capi-render': path.join(root, 'dist/cli/launcher.js'), main: path.join(root, 'dist/cli/main.js') },
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});
// no-op-build.js answers a no-op rebuild (a matching build stamp) without loading main.js at all
// (src/cli/no-op-build.ts): one file of its own, sharing no chunk with the CLI.
// The YAML library is needed there only for a capi-render.yaml whose repositories are not written in
// block form (src/config/location-free-config.ts): loaded from node_modules then, never bundled in.
await build({
  ...common,
  external: [...common.external, 'yaml'],
  entryPoints: { 'no-op-build': path.join(root, 'dist/cli/no-op-build.js') },
});
