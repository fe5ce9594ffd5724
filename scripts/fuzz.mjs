#!/usr/bin/env node
// The long fuzz campaign: `npm run fuzz -- --minutes N [--jobs J] [--targets a,b] [--seed S]`.
// Runs J vitest processes of test/fuzz/long-run.fuzz.ts at nice 10 (job k gets its own seeds; with
// two or more jobs the first runs the parsers and the others the whole-repository target, unless
// --targets says otherwise), writes every failing case, shrunk, to fuzz-failures/ as a regression
// test, and prints the figures: cases per target, minutes, failures, cases in a row without one.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    jobs: { type: 'string', default: '1' },
    targets: { type: 'string' },
    seed: { type: 'string' },
    failures: { type: 'string', default: 'fuzz-failures' },
  },
});
const minutes = Number(values.minutes);
const jobs = Math.max(1, Number(values.jobs));
if (!(minutes > 0)) {
  console.error('fuzz: --minutes must be a positive number');
  process.exit(2);
}
const failures = path.resolve(root, values.failures);
mkdirSync(failures, { recursive: true });
const seed = Number(values.seed ?? Date.now() % 1_000_000_000);
const PARSERS =
  'lock,overlay,live-dump,variables,label-selector,image-reference,oci-reference,github-url,gitlab-url,oci-layout-index,oci-archive,config-locations';
const started = Date.now();

function job(k) {
  const targets = values.targets ?? (jobs === 1 ? '' : k === 0 ? PARSERS : 'repository');
  const stats = path.join(failures, `stats-${k}.json`);
  const env = {
    ...process.env,
    FUZZ_MINUTES: String(minutes),
    FUZZ_TARGETS: targets,
    FUZZ_SEED: String(seed + k * 1_000_003),
    FUZZ_FAILURES: failures,
    FUZZ_STATS: stats,
  };
  const vitest = path.join(root, 'node_modules', 'vitest', 'vitest.mjs');
  const child = spawn(
    'nice',
    ['-n', '10', process.execPath, vitest, 'run', '--config', 'test/fuzz/vitest.fuzz.config.ts'],
    { cwd: root, env, stdio: ['ignore', 'inherit', 'inherit'] },
  );
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stats })));
}

const results = await Promise.all(Array.from({ length: jobs }, (_, k) => job(k)));
const rows = new Map();
for (const { stats } of results) {
  if (!existsSync(stats)) continue;
  for (const t of JSON.parse(readFileSync(stats, 'utf8')).targets) {
    const row = rows.get(t.target) ?? { target: t.target, level: t.level, cases: 0, failures: 0, streak: 0, found: [] };
    row.cases += t.cases;
    row.failures += t.failures;
    row.streak += t.streak;
    row.found.push(...t.found);
    rows.set(t.target, row);
  }
}
const all = [...rows.values()];
const width = Math.max(...all.map((r) => r.target.length), 6);
console.log(`\nfuzz campaign: ${((Date.now() - started) / 60_000).toFixed(1)} minutes, ${jobs} job(s), seed ${seed}`);
console.log(
  `${'target'.padEnd(width)}  ${'level'.padEnd(10)}  ${'cases'.padStart(10)}  ${'in a row'.padStart(10)}  failures`,
);
for (const r of all)
  console.log(
    `${r.target.padEnd(width)}  ${r.level.padEnd(10)}  ${String(r.cases).padStart(10)}  ${String(r.streak).padStart(10)}  ${r.failures}`,
  );
const sum = (level, key) => all.filter((r) => r.level === level).reduce((n, r) => n + r[key], 0);
console.log(
  `whole-repository cases: ${sum('repository', 'cases')} (${sum('repository', 'streak')} in a row); parser-level cases: ${sum('parser', 'cases')} (${sum('parser', 'streak')} in a row); failures: ${sum('repository', 'failures') + sum('parser', 'failures')}`,
);
for (const r of all)
  for (const f of r.found)
    console.log(
      `\nFAILURE ${r.target} seed ${f.seed}${f.file ? ` -> ${path.relative(root, f.file)}` : ''}\n  ${f.violation.split('\n').slice(0, 8).join('\n  ')}`,
    );
const failed = all.some((r) => r.failures > 0) || results.some((r) => r.code !== 0);
process.exit(failed ? 1 : 0);
