/**
 * Timing for tests that run on a shared, loaded machine (the suite runs three workers on two cores,
 * next to other jobs). One wall-clock sample there measures the scheduler as much as the code, so
 * a timing assertion compares medians of samples taken side by side — the cases alternate, round
 * after round, so a busy second slows each of them alike — and states its bound as a ratio.
 */
import { performance } from 'node:perf_hooks';

/** The median of `values` (the upper one of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** The samples (ms) and their median, per case. */
export interface Timed {
  samples: number[];
  median: number;
}

/**
 * Runs every case of `cases` once per round, in order, for `rounds` rounds (default 5), and returns
 * each case's samples in ms with their median. Alternating the cases, rather than running each one
 * `rounds` times in a row, is what makes their ratio fair on a machine whose load changes.
 */
export async function timeSideBySide<K extends string>(
  cases: Record<K, () => unknown>,
  rounds = 5,
): Promise<Record<K, Timed>> {
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < rounds; round++) {
    for (const key of Object.keys(cases) as K[]) {
      const start = performance.now();
      await cases[key]();
      samples[key].push(performance.now() - start);
    }
  }
  return Object.fromEntries(
    Object.entries<number[]>(samples).map(([k, s]) => [k, { samples: s, median: median(s) }]),
  ) as Record<K, Timed>;
}

/**
 * Like `timeSideBySide`, but noise-aware: when `holds` rejects the medians, it takes another batch
 * of alternating rounds and judges the pooled samples, up to `batches` batches. A regression misses
 * in every batch; a burst of load on a shared runner (one GC pause, another worker's spike) is
 * outvoted. The caller asserts on what this returns, so a miss still fails with every sample shown.
 */
export async function timeSideBySideUntil<K extends string>(
  cases: Record<K, () => unknown>,
  holds: (times: Record<K, Timed>) => boolean,
  rounds = 5,
  batches = 3,
): Promise<Record<K, Timed>> {
  let pooled = await timeSideBySide(cases, rounds);
  for (let batch = 1; batch < batches && !holds(pooled); batch++) {
    const more = await timeSideBySide(cases, rounds);
    pooled = Object.fromEntries(
      Object.entries<Timed>(pooled).map(([k, t]) => {
        const samples = [...t.samples, ...more[k as K].samples];
        return [k, { samples, median: median(samples) }];
      }),
    ) as Record<K, Timed>;
  }
  return pooled;
}

/** A one-line account of timed cases for an assertion's message: `name median (samples) ms`. */
export function describeTimes(times: Record<string, Timed>): string {
  return Object.entries(times)
    .map(([k, t]) => `${k} ${t.median.toFixed(1)} ms (${t.samples.map((s) => s.toFixed(0)).join(', ')})`)
    .join('; ');
}
