/**
 * The bounded fuzz campaign inside `npm test` (issue 28): fixed seeds, so a run replays the same
 * cases in the same order, and a time budget per target (20 s for whole repositories, 1.5 s per parser), so the whole file adds at most about 45 s
 * to the suite on a 2-core machine. A violation fails the test with the shrunk case, also written
 * to fuzz-failures/ as a ready-to-add regression test. `npm run fuzz` is the long campaign.
 */
import { describe, expect, it } from 'vitest';
import { runTarget, type FuzzTarget } from './campaign.js';
import { parserTargets } from './parser-targets.js';
import { repositoryTarget } from './repo-target.js';

const FAILURES = 'fuzz-failures';
const SEED = 20_261_203;

async function bounded<T>(target: FuzzTarget<T>, numRuns: number, timeMs: number, minCases: number): Promise<void> {
  const figures = await runTarget(target, { seed: SEED, numRuns, timeMs, failuresDir: FAILURES });
  console.info(`fuzz ${target.name}: ${figures.cases} cases in ${(figures.ms / 1000).toFixed(1)} s, ${figures.failures} failures`);
  expect(figures.violation ?? '', `shrunk case written to ${figures.file}`).toBe('');
  expect(figures.failures).toBe(0);
  // A budget that runs (almost) nothing proves nothing: the harness itself must stay fast.
  expect(figures.cases).toBeGreaterThanOrEqual(minCases);
}

describe('bounded fuzz campaign', () => {
  it('whole repositories: generated, mutated, built through the CLI, every property holds', async () => {
    await bounded(repositoryTarget(2, 30_000), 400, 20_000, 10);
  }, 120_000);

  it.each(parserTargets().map((t) => [t.name, t] as const))('parser %s: errors are diagnostics, round trips hold', async (_name, target) => {
    await bounded(target, 20_000, 1_500, 200);
  }, 60_000);
});
