#!/usr/bin/env node
// The executable: wires the real process streams and environment into run(). No logic here.
import { run } from './run.js';

const argv = process.argv.slice(2);
// `capi-render build --stdout | head`: the reader has what it wanted; stop quietly, as Unix tools do
// (writes are atomic, so stopping mid-run leaves nothing half-written).
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code !== 'EPIPE') throw e;
    process.exit(0);
  });
}
// The shipped CLI is a bundle; --debug stack traces should name the source files, not the bundle.
if (argv.includes('--debug')) process.setSourceMapsEnabled(true);
const code = await run(argv, {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
