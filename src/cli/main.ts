#!/usr/bin/env node
// The executable: wires the real process streams and environment into run(). No logic here.
import { run } from './run.js';

const argv = process.argv.slice(2);
// The shipped CLI is a bundle; --debug stack traces should name the source files, not the bundle.
if (argv.includes('--debug')) process.setSourceMapsEnabled(true);
const code = await run(argv, {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
