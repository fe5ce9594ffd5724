// Types of ./noise-aware.mjs, for the unit test that imports it (test/unit/bench-noise.test.ts).

export type Decision = 'met' | 'missed' | 'undecided';
export type TimingKind = 'ratio' | 'time';

export interface TimingTarget {
  kind: TimingKind;
  bound: number;
}

export interface Samples {
  row: number[];
  comparison: number[];
}

export interface Judged<T extends TimingTarget> {
  rowMedian: number;
  comparisonMedian: number;
  results: { target: T; value: number; decision: Decision }[];
}

export interface Remeasured<T extends TimingTarget> extends Judged<T> {
  rounds: number;
  samples: Samples;
  met: boolean;
}

export function median(values: readonly number[]): number;
export function timingValue(kind: TimingKind, rowMedian: number, comparisonMedian: number): number;
export function decide(value: number, bound: number, options?: { margin?: number; final?: boolean }): Decision;
export function judge<T extends TimingTarget>(
  samples: Samples,
  targets: readonly T[],
  options?: { margin?: number; final?: boolean },
): Judged<T>;
export function remeasure<T extends TimingTarget>(options: {
  round: () => { row: number; comparison?: number } | Promise<{ row: number; comparison?: number }>;
  targets: readonly T[];
  maxRounds?: number;
  minRounds?: number;
  margin?: number;
}): Promise<Remeasured<T>>;
