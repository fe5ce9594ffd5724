/**
 * The long campaign, run by `npm run fuzz` (scripts/fuzz.mjs) through test/fuzz/vitest.fuzz.config.ts,
 * never by `npm test`. Runs the targets named in FUZZ_TARGETS (default all) in rounds of fresh seeds
 * until FUZZ_MINUTES have passed; every failure is shrunk and written to FUZZ_FAILURES as a
 * regression test, and the figures (cases per target, minutes, failures, the longest run of cases
 * in a row without a violation) go to FUZZ_STATS as JSON.
 */
import { writeFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { runTarget, type FuzzTarget, type TargetFigures } from './campaign.js';
import { parserTargets } from './parser-targets.js';
import { repositoryTarget } from './repo-target.js';

const minutes = Number(process.env.FUZZ_MINUTES ?? '1');
const names = (process.env.FUZZ_TARGETS ?? '').split(',').filter(Boolean);
const failuresDir = process.env.FUZZ_FAILURES ?? 'fuzz-failures';
const statsFile = process.env.FUZZ_STATS;
const firstSeed = Number(process.env.FUZZ_SEED ?? Date.now() % 2_147_483_647);

interface Totals {
  target: string;
  level: string;
  cases: number;
  failures: number;
  /** Cases since the last failure (the campaign's "in a row"). */
  streak: number;
  ms: number;
  found: { seed: number; violation: string; file?: string | undefined }[];
}

it(`fuzz campaign (${minutes} min)`, async () => {
  const all: FuzzTarget<unknown>[] = [
    repositoryTarget(1) as FuzzTarget<unknown>,
    ...(parserTargets() as FuzzTarget<unknown>[]),
  ];
  const targets = names.length > 0 ? all.filter((t) => names.includes(t.name)) : all;
  expect(targets.length, `FUZZ_TARGETS ${names.join(',')} names no target`).toBeGreaterThan(0);
  const deadline = Date.now() + minutes * 60_000;
  const totals = new Map<string, Totals>(
    targets.map((t) => [
      t.name,
      { target: t.name, level: t.level, cases: 0, failures: 0, streak: 0, ms: 0, found: [] },
    ]),
  );
  const save = () =>
    statsFile &&
    writeFileSync(statsFile, `${JSON.stringify({ minutes, firstSeed, targets: [...totals.values()] }, null, 2)}\n`);
  // Round-robin in slices: parsers get short, many-case slices; the repository target longer ones.
  for (let round = 0; Date.now() < deadline; round++) {
    for (const t of targets) {
      const left = deadline - Date.now();
      if (left <= 0) break;
      const slice = Math.min(left, t.level === 'repository' ? 120_000 : 20_000);
      const figures: TargetFigures = await runTarget(t, {
        seed: (firstSeed + round * 7919 + t.name.length) % 2_147_483_647,
        numRuns: 10_000_000,
        timeMs: slice,
        failuresDir,
      });
      const sum = totals.get(t.name)!;
      sum.cases += figures.cases;
      sum.ms += figures.ms;
      sum.streak = figures.failures > 0 ? 0 : sum.streak + figures.cases;
      if (figures.failures > 0) {
        sum.failures += figures.failures;
        sum.found.push({ seed: figures.seed, violation: (figures.violation ?? '').slice(0, 2000), file: figures.file });
      }
      save();
    }
  }
  save();
});
