#!/usr/bin/env node
/**
 * node bench/fsync-strategies.mjs [rounds] — what making a staged 100-environment tree durable costs,
 * strategy by strategy, side by side in one run (alternating, a fresh staging folder each time): no
 * sync, fsync per file and folder one at a time, 32 in flight (libuv's pool), files and folders in one
 * batch, and one syncfs (`sync -f DIR`, Linux). The tree is what `capi-render build` writes for the
 * bench's 100-environment fleet (run `npm run build` first); files of one content are hard-linked as
 * the build stages them. DISTINCT=1 makes every file distinct (the worst case: one inode per file).
 * src/output/durable-fs.ts quotes the figures and says why per-file fsync was chosen.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { promises as fs, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeBenchProviders } from './bench-repo.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ROUNDS = Number(process.argv[2] ?? 5);
const work = mkdtempSync(path.join(os.tmpdir(), 'capi-render-fsync-'));

// The bench's 100-environment fleet (bench/run.mjs capiRepo), built once.
const repo = path.join(work, 'repo');
writeBenchProviders(repo, path.join(ROOT, 'test/fixtures/repository'));
for (let i = 0; i < 100; i++) {
  const env = path.join(repo, 'overlays', `env-${String(i).padStart(4, '0')}`);
  mkdirSync(env, { recursive: true });
  writeFileSync(
    path.join(env, 'overlay.yaml'),
    `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\npatches:\n  - target: {kind: CoreProvider}\n    patch: |-\n      - {op: add, path: /spec/deployment, value: {replicas: ${(i % 3) + 1}}}\nimages:\n  all:\n    repository: registry-${i % 4}.example.com/capi\n`,
  );
}
execFileSync(process.execPath, [path.join(ROOT, 'dist/bin/capi-render.js'), 'build'], {
  cwd: repo,
  env: { ...process.env, CAPI_RENDER_CACHE_DIR: path.join(work, 'cache') },
  stdio: 'ignore',
});

const files = [];
(function walk(d, rel) {
  for (const e of readdirSync(d, { withFileTypes: true })) {
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) walk(path.join(d, e.name), r);
    else files.push([r, readFileSync(path.join(d, e.name), 'utf8') + (process.env.DISTINCT ? `# ${r}\n` : '')]);
  }
})(path.join(repo, 'rendered'), '');

const limited = async (items, fn, limit = 32) => {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
};
/** Writes the tree as the build stages it; returns the distinct inodes' paths and every folder. */
async function stage(dir) {
  const first = new Map();
  const dirs = new Map();
  const distinct = [];
  await fs.mkdir(dir, { recursive: true });
  await limited(files, async ([rel, text]) => {
    const staged = path.join(dir, rel);
    const d = path.dirname(staged);
    let made = dirs.get(d);
    if (!made) dirs.set(d, (made = fs.mkdir(d, { recursive: true })));
    await made;
    const earlier = first.get(text);
    if (earlier) await fs.link(await earlier, staged);
    else {
      const written = fs.writeFile(staged, text).then(() => staged);
      first.set(text, written);
      distinct.push(await written);
    }
  });
  const all = new Set([dir]);
  for (const d of dirs.keys()) for (let x = d; x.startsWith(dir); x = path.dirname(x)) all.add(x);
  return { distinct, dirs: [...all] };
}
const fsync = async (p) => {
  const h = await fs.open(p, 'r');
  try {
    await h.sync();
  } finally {
    await h.close();
  }
};
const strategies = {
  'no sync': async () => {},
  'fsync each file and folder, one at a time': async ({ distinct, dirs }) => {
    for (const p of [...distinct, ...dirs]) await fsync(p);
  },
  'fsync each, 32 in flight (files, then folders)': async ({ distinct, dirs }) => {
    await limited(distinct, fsync);
    await limited(dirs, fsync);
  },
  'fsync each, 32 in flight (one batch)': async ({ distinct, dirs }) => {
    await limited([...distinct, ...dirs], fsync);
  },
  'one syncfs (sync -f)': async ({ dirs }) => {
    execFileSync('sync', ['-f', dirs[0]]);
  },
};
const results = Object.fromEntries(Object.keys(strategies).map((k) => [k, []]));
let shape;
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, sync] of Object.entries(strategies)) {
    const dir = path.join(work, `stage-${r}-${name.replace(/\W+/g, '-')}`);
    spawnSync('sync'); // each starts with nothing of the others left to write back
    const t0 = process.hrtime.bigint();
    const staged = await stage(dir);
    const t1 = process.hrtime.bigint();
    await sync(staged);
    const t2 = process.hrtime.bigint();
    shape = { files: files.length, inodes: staged.distinct.length, folders: staged.dirs.length };
    results[name].push({ sync: Number(t2 - t1) / 1e6, total: Number(t2 - t0) / 1e6 });
    await fs.rm(dir, { recursive: true, force: true });
  }
}
const median = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
console.log(`${shape.files} files, ${shape.inodes} distinct inodes, ${shape.folders} folders; medians of ${ROUNDS}`);
const base = median(results['no sync'].map((x) => x.total));
for (const [name, v] of Object.entries(results)) {
  const total = median(v.map((x) => x.total));
  console.log(
    `${name.padEnd(48)} stage+sync ${total.toFixed(0).padStart(6)} ms   sync ${median(v.map((x) => x.sync))
      .toFixed(0)
      .padStart(5)} ms   ${(total / base).toFixed(2)}x of no sync`,
  );
}
rmSync(work, { recursive: true, force: true });
