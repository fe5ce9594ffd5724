/**
 * Runs fuzz targets with fast-check under a budget (cases and wall time), shrinks the first
 * failure of each target, and writes it as a ready-to-add regression test. Shared by the bounded
 * campaign inside `npm test` (fixed seeds, small budget) and `npm run fuzz` (random seeds, minutes).
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
  /** Upper bound of cases. */
  numRuns: number;
  /** Stop generating new cases after this long (shrinking gets its own limit). */
  timeMs: number;
  /** Folder for failing cases as regression test files; none = do not write. */
  failuresDir?: string;
}

/** Runs one target; returns its figures (failures 0 or 1: fast-check stops at the first and shrinks it). */
export async function runTarget<T>(target: FuzzTarget<T>, options: BudgetOptions): Promise<TargetFigures> {
  const started = Date.now();
  let cases = 0;
  const property = fc.asyncProperty(target.arbitrary, async (value) => {
    cases++;
    await target.property(value);
  });
  const details = await fc.check(property, {
    seed: options.seed,
    numRuns: options.numRuns,
    interruptAfterTimeLimit: options.timeMs,
    markInterruptAsFailure: false,
    // Shrinking a whole-repository case runs many builds: bounded so a run ends near its budget.
    skipAllAfterTimeLimit: Math.max(options.timeMs, 60_000),
  });
  const figures: TargetFigures = { target: target.name, level: target.level, cases: details.numRuns, failures: details.failed ? 1 : 0, ms: Date.now() - started, seed: options.seed };
  // fast-check counts the shrinking runs in `cases`; numRuns is the count of distinct generated cases.
  void cases;
  if (details.failed && details.counterexample) {
    const value = details.counterexample[0] as T;
    const error = details.errorInstance as Error | undefined;
    figures.violation = error?.message ?? String(details.errorInstance);
    if (options.failuresDir) figures.file = writeRegression(options.failuresDir, target, value, figures, details.counterexamplePath ?? '');
  }
  return figures;
}

/** Writes `<dir>/<target>-<seed>.test.ts`: the shrunk case as a test that passes once the bug is fixed. */
function writeRegression<T>(dir: string, target: FuzzTarget<T>, value: T, figures: TargetFigures, replayPath: string): string {
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${target.name}-${figures.seed}.test.ts`);
  const title = (figures.violation ?? '').split('\n')[0]!.replace(/'/g, "\\'").slice(0, 160);
  const text = [
    `// Found by npm run fuzz: target ${target.name}, seed ${figures.seed}, path ${replayPath}.`,
    `// Violation: ${(figures.violation ?? '').split('\n').slice(0, 6).join('\n//   ')}`,
    '// Move next to test/fuzz/regressions.test.ts (imports are relative to test/fuzz/) once the bug is fixed.',
    "import { it } from 'vitest';",
    ...target.regression(value).split('\n').filter((l) => l.startsWith('import ')),
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
  if (target.data) writeFileSync(file.replace(/\.test\.ts$/, '.json'), `${JSON.stringify({ found: `npm run fuzz, seed ${figures.seed}: ${title}`, case: target.data(value) }, null, 1)}\n`);
  return file;
}
