/**
 * Runs fuzz targets with fast-check, shrinks the first failure of each target, and writes it as a
 * ready-to-add regression test. Shared by the bounded campaign inside `npm test` (fixed seeds and a
 * fixed number of cases: what it runs, and so whether it passes, never depends on the machine's
 * speed) and `npm run fuzz` (random seeds, a time budget of minutes).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';

/** One fuzz target: an arbitrary of cases and a property that throws on a violation. */
export interface FuzzTarget<T> {
  name: string;
  /** whole-repository or parser-level: the campaign's two counts. */
  level: 'repository' | 'parser';
  arbitrary: fc.Arbitrary<T>;
  property: (value: T) => void | Promise<void>;
  /** The body of a regression test for a shrunk failing value (TypeScript statements). */
  regression: (value: T) => string;
  /** With it, the value is also written as `<target>-<seed>.json` ({ found, case }) for test/fuzz/regressions/. */
  data?: (value: T) => unknown;
}

export interface TargetFigures {
  target: string;
  level: FuzzTarget<unknown>['level'];
  cases: number;
  failures: number;
  ms: number;
  seed: number;
  /** The shrunk counterexample's violation, if any. */
  violation?: string;
  /** Where its regression test was written. */
  file?: string;
}

export interface BudgetOptions {
  seed: number;
  /** How many cases: exactly these when there is no `timeMs`. */
  numRuns: number;
  /**
   * The long campaign's budget: stop generating new cases after this long (fewer cases on a slower
   * machine). Without it, every one of `numRuns` cases runs, however long they take.
   */
  timeMs?: number;
  /** How long shrinking a failure may take (default 60 s): a longer one reports a larger case, never another verdict. */
  shrinkMs?: number;
  /** Folder for failing cases as regression test files; none = do not write. */
  failuresDir?: string;
}

/**
 * Runs one target; returns its figures (failures 0 or 1: fast-check stops at the first). Two
 * phases, so that the verdict never depends on time: the cases run to the first failure without
 * shrinking, then that failure alone is replayed (by its seed and path) and shrunk under
 * `shrinkMs`, which can only leave the reported case larger.
 */
export async function runTarget<T>(target: FuzzTarget<T>, options: BudgetOptions): Promise<TargetFigures> {
  const started = Date.now();
  const property = fc.asyncProperty(target.arbitrary, async (value) => {
    await target.property(value);
  });
  const budget =
    options.timeMs === undefined ? {} : { interruptAfterTimeLimit: options.timeMs, markInterruptAsFailure: false };
  const found = await fc.check(property, {
    seed: options.seed,
    numRuns: options.numRuns,
    endOnFailure: true,
    ...budget,
  });
  let details = found;
  if (found.failed && found.counterexamplePath) {
    const shrunk = await fc.check(property, {
      seed: options.seed,
      path: found.counterexamplePath,
      interruptAfterTimeLimit: options.shrinkMs ?? 60_000,
      markInterruptAsFailure: false,
    });
    // Replayed, the case fails again (fast-check keeps the smallest failing value it reached).
    if (shrunk.failed && shrunk.counterexample) details = shrunk;
  }
  // numRuns of the first phase: the distinct generated cases (shrinking runs are not counted).
  const figures: TargetFigures = {
    target: target.name,
    level: target.level,
    cases: found.numRuns,
    failures: found.failed ? 1 : 0,
    ms: Date.now() - started,
    seed: options.seed,
  };
  if (details.failed && details.counterexample) {
    const value = details.counterexample[0];
    const error = details.errorInstance as Error | undefined;
    figures.violation = error?.message ?? String(details.errorInstance);
    if (options.failuresDir)
      figures.file = writeRegression(options.failuresDir, target, value, figures, details.counterexamplePath ?? '');
  }
  return figures;
}

/** Writes `<dir>/<target>-<seed>.test.ts`: the shrunk case as a test that passes once the bug is fixed. */
function writeRegression<T>(
  dir: string,
  target: FuzzTarget<T>,
  value: T,
  figures: TargetFigures,
  replayPath: string,
): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${target.name}-${figures.seed}.test.ts`);
  const title = (figures.violation ?? '').split('\n')[0]!.replace(/'/g, "\\'").slice(0, 160);
  const text = [
    `// Found by npm run fuzz: target ${target.name}, seed ${figures.seed}, path ${replayPath}.`,
    `// Violation: ${(figures.violation ?? '').split('\n').slice(0, 6).join('\n//   ')}`,
    '// Move next to test/fuzz/regressions.test.ts (imports are relative to test/fuzz/) once the bug is fixed.',
    "import { it } from 'vitest';",
    ...target
      .regression(value)
      .split('\n')
      .filter((l) => l.startsWith('import ')),
    '',
    `it('${target.name}: ${title}', async () => {`,
    ...target
      .regression(value)
      .split('\n')
      .filter((l) => !l.startsWith('import '))
      .map((l) => `  ${l}`),
    '});',
    '',
  ].join('\n');
  writeFileSync(file, text);
  if (target.data)
    writeFileSync(
      file.replace(/\.test\.ts$/, '.json'),
      `${JSON.stringify({ found: `npm run fuzz, seed ${figures.seed}: ${title}`, case: target.data(value) }, null, 1)}\n`,
    );
  return file;
}
