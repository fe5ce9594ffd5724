// `npm run render` from a git checkout: builds dist/ first when it is missing or older than any
// source file (after a pull), so the example renders with the code that is checked out. The package
// itself is built by `prepack`; nothing runs at install time (npm 11 warns about install scripts).
// Two callers at the same time never build over each other: one build runs at a time (a lock
// folder), and a caller that waited checks again (the bundler empties dist/bin/ first, under a CLI
// the other may be running). Tests never call it: they run the dist/ npm test built before them.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const built = path.join(root, 'dist/bin/main.js');

function newestUnder(dir) {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestUnder(full) : statSync(full).mtimeMs);
  }
  return newest;
}

const stale = () =>
  !existsSync(built) ||
  Math.max(newestUnder(path.join(root, 'src')), statSync(path.join(root, 'package.json')).mtimeMs) >
    statSync(built).mtimeMs;

const lock = path.join(root, 'node_modules', '.capi-render-build.lock');
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
function withBuildLock(fn) {
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
      // A build takes ~20 s; a lock older than five minutes was left by a killed one.
      if (Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > 300_000)
        rmSync(lock, { recursive: true, force: true });
      else pause(250);
    }
  }
  try {
    fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

if (stale()) {
  withBuildLock(() => {
    if (!stale()) return;
    process.stderr.write('building dist/ (npm run build) …\n');
    execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], {
      cwd: root,
      stdio: 'inherit',
      shell: process.platform === 'win32',
    });
  });
}
