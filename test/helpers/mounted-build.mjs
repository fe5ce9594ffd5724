// Runs inside a private mount namespace (see write-failures.test.ts): puts a file system of the
// test's choice under <repo>/rendered — a small tmpfs (a full disk), a read-only bind mount, or a
// roomy tmpfs (a folder on its own file system) — then builds, looks at what the build left, makes
// room / makes it writable, and builds and checks again. Prints one JSON object. The mounts vanish
// with the namespace, so nothing is left behind on the machine.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

const [repo, kind, cli, ...buildArgs] = process.argv.slice(2);
const rendered = path.join(repo, 'rendered');
const saved = path.join(repo, 'rendered.saved');
const sh = (cmd, ...args) => execFileSync(cmd, args, { stdio: 'pipe' });

function snapshot(dir, skip) {
  const out = {};
  const walk = (rel) => {
    for (const name of readdirSync(path.join(dir, rel)).sort()) {
      const child = rel ? `${rel}/${name}` : name;
      if (skip.includes(child)) continue;
      if (statSync(path.join(dir, child)).isDirectory()) walk(child);
      else
        out[child] = createHash('sha256')
          .update(readFileSync(path.join(dir, child)))
          .digest('hex');
    }
  };
  walk('');
  return out;
}

const run = (...args) => {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: repo,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, CAPI_RENDER_CACHE_DIR: process.env.CAPI_RENDER_CACHE_DIR },
  });
  return { code: r.status, stderr: r.stderr };
};

if (kind === 'full') sh('mount', '-t', 'tmpfs', '-o', `size=${process.env.TMPFS_SIZE}`, 'tmpfs', rendered);
if (kind === 'own-fs') sh('mount', '-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', rendered);
if (kind !== 'read-only') sh('cp', '-a', `${saved}/.`, `${rendered}/`);
// One environment's folder on another file system than the rest of the output: renames into it cross devices.
if (kind === 'nested-fs') {
  sh('mount', '-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', path.join(rendered, 'prod'));
  sh('cp', '-a', `${saved}/prod/.`, `${rendered}/prod/`);
}
if (kind === 'read-only') {
  sh('mount', '--bind', rendered, rendered);
  sh('mount', '-o', 'remount,bind,ro', rendered);
}
const skip = ['rendered.saved', '.git'];
const before = snapshot(repo, skip);
const first = run('build', ...buildArgs);
const after = snapshot(repo, skip);
const leftovers = ['.capi-render-write', 'rendered/.capi-render-write'].filter((p) => existsSync(path.join(repo, p)));
if (kind === 'full') sh('mount', '-o', 'remount,size=64m', rendered);
if (kind === 'read-only') sh('mount', '-o', 'remount,bind,rw', rendered);
const second = run('build', ...buildArgs);
const check = run('check');
process.stdout.write(
  JSON.stringify({ first, unchanged: JSON.stringify(before) === JSON.stringify(after), leftovers, second, check }),
);
