/**
 * Tests run the build `npm test` made before them and never build dist/ themselves: a rebuild
 * empties dist/bin/ under the CLI that other test files are running at the same time.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT } from './fixtures.js';

/** Written last by `npm run build` (the bundler runs after tsc), so its time is the build's. */
const BUILT = path.join(REPO_ROOT, 'dist/bin/main.js');

/** The first file under `dir` changed after `time`, if any. */
function changedAfter(dir: string, time: number): string | undefined {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const found = entry.isDirectory() ? changedAfter(full, time) : statSync(full).mtimeMs > time ? full : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * Fails, in one line saying what to run, unless dist/ is built and newer than every file of src/
 * and package.json: a test of dist/ must not pass or fail on code that is no longer the source.
 */
export function requireCurrentDist(): void {
  const hint = 'run `npm run build` first (npm test does)';
  if (!existsSync(BUILT)) throw new Error(`dist/ is not built (no dist/bin/main.js): ${hint}`);
  const built = statSync(BUILT).mtimeMs;
  const newer =
    changedAfter(path.join(REPO_ROOT, 'src'), built) ??
    (statSync(path.join(REPO_ROOT, 'package.json')).mtimeMs > built ? path.join(REPO_ROOT, 'package.json') : undefined);
  if (newer) throw new Error(`dist/ is older than ${path.relative(REPO_ROOT, newer)}: ${hint}`);
}
