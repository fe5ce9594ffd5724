#!/usr/bin/env node
// The executable: wires the real process streams and environment into run(). No logic here.
import { run } from './run.js';

const code = await run(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
});
process.exitCode = code;
