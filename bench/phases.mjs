#!/usr/bin/env node
/**
 * node bench/phases.mjs [CLI...] — where the time of one environment with an empty cache goes, phase
 * by phase: the bench's one-environment repository (core, kubeadm bootstrap + control plane, CAPD,
 * cert-manager, from test/fixtures/repository) built with `node --cpu-prof`, each sample put in the
 * first phase its stack shows (frames mapped to sources through the bundle's source maps), and
 * `node -e 0` timed alongside for Node's own start. With several CLIs (dist/bin/capi-render.js of
 * other checkouts or copies), they run alternately, round by round, so that a shared machine's load
 * falls on all of them alike. Prints each phase's median over PHASE_RUNS rounds (default 7).
 * Profiling slows a run down (more so on a busy machine): compare the columns, not with unprofiled times.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { plainReleases, writeBenchProviders } from './bench-repo.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.PHASE_RUNS ?? 7);
const clis = process.argv.length > 2 ? process.argv.slice(2) : [path.join(ROOT, 'dist/bin/capi-render.js')];
const work = mkdtempSync(path.join(os.tmpdir(), 'capi-render-phases-'));
/** The releases as published (uncompressed), as the bench reads them. */
const FIXTURES = plainReleases(path.join(ROOT, 'test/fixtures/repository'), path.join(work, 'releases'));

/** The bench's one-environment repository (bench/run.mjs capiRepo). */
function oneEnvironmentRepo(dir) {
  writeBenchProviders(dir, FIXTURES);
  const env = path.join(dir, 'overlays', 'env-0000');
  mkdirSync(env, { recursive: true });
  writeFileSync(
    path.join(env, 'overlay.yaml'),
    `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\npatches:\n  - target: {kind: CoreProvider}\n    patch: |-\n      - {op: add, path: /spec/deployment, value: {replicas: 1}}\nimages:\n  all:\n    repository: registry-0.example.com/capi\n`,
  );
  return dir;
}

/**
 * Phases in the order they are tried: a sample counts in the first whose test some frame of its stack
 * passes. Module loading is looked for only below the innermost frame of a file (a module's own code
 * runs inside Node's loader while its top level is evaluated: that is the code's time, not loading).
 */
const PHASES = [
  ['garbage collection', (f) => f.name === '(garbage collector)'],
  ['waiting (I/O, fsync)', (f) => f.name === '(idle)'],
  ['module load and compile', (f) => f.leaf && /^node:internal\/(modules|bootstrap)/.test(f.source)],
  ['schema compile (ajv)', (f) => /node_modules\/ajv\//.test(f.source) && /compile/i.test(f.name)],
  [
    'YAML parse (artifacts)',
    (f) =>
      /src\/manifest\/fast-load\.ts/.test(f.source) ||
      (/node_modules\/js-yaml\//.test(f.source) && /load/i.test(f.name)),
  ],
  ['YAML parse (yaml, inputs)', (f) => /node_modules\/yaml\//.test(f.source)],
  [
    'serialise',
    (f) =>
      /src\/manifest\/(fast-dump|serialize)\.ts/.test(f.source) ||
      (/node_modules\/js-yaml\//.test(f.source) && /^dump\d*$/.test(f.name)),
  ],
  ['schema validate', (f) => /schema-validator|provider-schema|dist\/validators\//.test(f.source)],
  ['hashing', (f) => /^node:internal\/crypto/.test(f.source)],
  ['cache entries (v8.serialize)', (f) => f.source === 'node:v8'],
  ['file system', (f) => /^node:(internal\/)?fs/.test(f.source)],
];
const OTHER = 'everything else (processing)';

const maps = new Map();
function sourceOf(frame) {
  if (!frame.url.startsWith('file://') || frame.lineNumber < 0) return frame.url;
  let map = maps.get(frame.url);
  if (map === undefined) {
    const file = `${fileURLToPath(frame.url)}.map`;
    map = existsSync(file) ? new SourceMap(JSON.parse(readFileSync(file, 'utf8'))) : null;
    maps.set(frame.url, map);
  }
  return map?.findEntry(frame.lineNumber, frame.columnNumber)?.originalSource ?? frame.url;
}

/** Milliseconds per phase of one profile, and its wall time. */
function phasesOf(profileFile) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  const frames = new Map(
    profile.nodes.map((n) => [
      n.id,
      { name: n.callFrame.functionName, source: sourceOf(n.callFrame), file: n.callFrame.url.startsWith('file://') },
    ]),
  );
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const totals = new Map([...PHASES.map(([name]) => [name, 0]), [OTHER, 0]]);
  profile.samples.forEach((id, i) => {
    const stack = [];
    let leaf = true;
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const frame = frames.get(at);
      if (frame.file) leaf = false;
      stack.push({ ...frame, leaf });
    }
    const phase = PHASES.find(([, test]) => stack.some(test))?.[0] ?? OTHER;
    totals.set(phase, totals.get(phase) + (profile.timeDeltas[i + 1] ?? 0) / 1000);
  });
  return { totals, wall: (profile.endTime - profile.startTime) / 1000 };
}

function run(args, cwd, env = {}) {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} failed in ${cwd}:\n${r.stderr}`);
  return Number(process.hrtime.bigint() - start) / 1e6;
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const repo = oneEnvironmentRepo(path.join(work, 'repo'));
const samples = clis.map(() => []);
const nodeStart = [];
for (let round = 0; round < RUNS; round++) {
  nodeStart.push(run(['-e', '0'], work));
  clis.forEach((cli, i) => {
    for (const p of ['rendered', 'gitops', 'capi-render.lock'])
      rmSync(path.join(repo, p), { recursive: true, force: true });
    const profiles = path.join(work, `profiles-${round}-${i}`);
    const cache = path.join(work, `cache-${round}-${i}`);
    run(['--cpu-prof', `--cpu-prof-dir=${profiles}`, '--cpu-prof-interval=500', cli, 'build'], repo, {
      CAPI_RENDER_CACHE_DIR: cache,
    });
    samples[i].push(phasesOf(path.join(profiles, readdirSync(profiles)[0])));
    rmSync(cache, { recursive: true, force: true });
  });
}
rmSync(work, { recursive: true, force: true });

const names = [...PHASES.map(([name]) => name), OTHER];
const rows = [
  ['node -e 0 (not profiled)', ...clis.map(() => median(nodeStart))],
  ...names.map((name) => [name, ...samples.map((s) => median(s.map((x) => x.totals.get(name))))]),
  ['wall, profiled', ...samples.map((s) => median(s.map((x) => x.wall)))],
];
console.log(`medians of ${RUNS} alternating rounds, ms\n`);
for (const [name, ...values] of rows)
  console.log(`${name.padEnd(34)}${values.map((v) => `${v.toFixed(0)}`.padStart(9)).join('')}`);
clis.forEach((cli, i) => console.log(`column ${i + 1}: ${cli}`));
