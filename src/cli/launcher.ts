#!/usr/bin/env node
// The installed `capi-render` executable. Node ≥ 22.1 can keep V8's compiled code between runs
// (module.enableCompileCache; default folder under the OS temp dir, NODE_DISABLE_COMPILE_CACHE=1
// turns it off): compiling the CLI's code is most of a short run. It must be enabled before the
// CLI's own module loads, hence this separate file. On Node 20 it does not exist and nothing changes.
import module from 'node:module';

(module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
await import('./main.js');
