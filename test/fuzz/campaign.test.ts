/**
 * The bounded fuzz campaign inside `npm test`: fixed seeds and a fixed number of cases
 * per target, so every run replays the same cases in the same order and passes or fails on them
 * alone — a loaded machine takes longer, never runs fewer. The counts are chosen for about 25 s on
 * a 2-core machine (whole repositories ~15 s, the parsers under 1 s each). A violation fails the test
 * with the shrunk case, also written to fuzz-failures/ as a ready-to-add regression test. `npm run
 * fuzz` is the long campaign, bounded by time instead.
 */
import { describe, expect, it } from 'vitest';
import { runTarget, type FuzzTarget } from './campaign.js';
import { parserTargets } from './parser-targets.js';
import { repositoryTarget } from './repo-target.js';

const FAILURES = 'fuzz-failures';
const SEED = 20_261_203;

/** Cases per target. A parser's count follows its cost per case: ~1 s each on a 2-core machine. */
const CASES: Record<string, number> = {
  repository: 35,
  'yaml-reader': 1_500,
  lock: 1_500,
  overlay: 800,
  'live-dump': 4_000,
  variables: 12_000,
  'label-selector': 20_000,
  'image-reference': 20_000,
  'oci-reference': 20_000,
  'github-url': 20_000,
  'gitlab-url': 20_000,
  'sops-rules': 1_500,
  'sops-document': 600,
  'oci-layout-index': 3_000,
  'oci-archive': 3_000,
  'config-locations': 2_000,
};

// Hang guards only (a command, a test that never ends): far above what any case takes on a loaded machine.
const COMMAND_HANG_MS = 120_000;
const TEST_HANG_MS = 600_000;

async function fixed<T>(target: FuzzTarget<T>): Promise<void> {
  const cases = CASES[target.name];
  expect(cases, `no case count for fuzz target ${target.name}`).toBeDefined();
  const figures = await runTarget(target, { seed: SEED, numRuns: cases!, failuresDir: FAILURES });
  console.info(
    `fuzz ${target.name}: ${figures.cases} cases in ${(figures.ms / 1000).toFixed(1)} s, ${figures.failures} failures`,
  );
  expect(figures.violation ?? '', `shrunk case written to ${figures.file}`).toBe('');
  expect(figures.failures).toBe(0);
  expect(figures.cases).toBe(cases);
}

describe('bounded fuzz campaign', () => {
  it(
    'whole repositories: generated, mutated, built through the CLI, every property holds',
    async () => {
      await fixed(repositoryTarget(2, COMMAND_HANG_MS));
    },
    TEST_HANG_MS,
  );

  it.each(parserTargets().map((t) => [t.name, t] as const))(
    'parser %s: errors are diagnostics, round trips hold',
    async (_name, target) => {
      await fixed(target);
    },
    TEST_HANG_MS,
  );

  it('has a case count for every target, and no other', () => {
    expect(Object.keys(CASES).sort()).toEqual(['repository', ...parserTargets().map((t) => t.name)].sort());
  });
});
