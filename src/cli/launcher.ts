#!/usr/bin/env node
// The installed `capi-render` executable. Node ≥ 22.1 can keep V8's compiled code between runs
// (module.enableCompileCache; default folder under the OS temp dir, NODE_DISABLE_COMPILE_CACHE=1
// turns it off): compiling the CLI's code is most of a short run. It must be enabled before the
// CLI's own module loads, hence this separate file. On Node 20 it does not exist and nothing changes.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
// A no-op rebuild is answered by a small bundle of its own, before the whole CLI is compiled.
const { tryNoopBuild } = await import('./no-op-build.js');
const code = await tryNoopBuild(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
if (code === undefined) await import('./main.js');
else process.exitCode = code;
