#!/usr/bin/env node
// Runs ESLint from tools/lint, a package of its own: typescript-eslint reads programs through
// TypeScript's JavaScript API, which the native TypeScript 7 compiler the project builds with does
// not ship, so the linter brings TypeScript 6 in a node_modules where nothing else resolves it.
// Installs that package first when its lock changed since the last install (npm ci, from the lock).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const toolDir = path.join(root, 'tools', 'lint');
const stamp = path.join(toolDir, 'node_modules', '.installed-lock-sha256');
const lockDigest = createHash('sha256')
  .update(readFileSync(path.join(toolDir, 'package-lock.json')))
  .digest('hex');

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== lockDigest) {
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], toolDir);
  writeFileSync(stamp, lockDigest);
}
const eslint = path.join(toolDir, 'node_modules', 'eslint', 'bin', 'eslint.js');
run(process.execPath, [eslint, '--max-warnings', '0', ...process.argv.slice(2)], root);
