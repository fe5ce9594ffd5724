// `npm run render` from a git checkout: builds dist/ first when it is missing or older than any
// source file (after a pull), so the example renders with the code that is checked out. The package
// itself is built by `prepack`; nothing runs at install time (npm 11 warns about install scripts).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
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

const stale = !existsSync(built) || Math.max(newestUnder(path.join(root, 'src')), statSync(path.join(root, 'package.json')).mtimeMs) > statSync(built).mtimeMs;
if (stale) {
  process.stderr.write('building dist/ (npm run build) …\n');
  execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
}
