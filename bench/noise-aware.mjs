/**
 * How `npm run bench -- --check` tells a burst of load from a regression. On a shared machine one
 * busy second can push a median past its bound; a regression pushes it past in every round. So a
 * row whose timing target missed is measured again side by side with its comparison — the two
 * alternate, round after round, so the load of any moment slows both — and its target is judged on
 * the medians of the pooled rounds. This module is the rule alone: no builds, no clock.
 */

/** The median of `values` (the upper one of the middle two for an even count). */
export function median(values) {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * The figure a timing target bounds: `ratio`, the row's median over its comparison's; `time`, the
 * row's median itself (ms).
 */
export function timingValue(kind, rowMedian, comparisonMedian) {
  if (kind === 'time') return rowMedian;
  if (kind === 'ratio') return rowMedian / comparisonMedian;
  throw new Error(`unknown timing kind ${kind}: use 'ratio' or 'time'`);
}

/**
 * `value ≤ bound`, decided with a margin: 'met' when the value is below the bound by more than
 * `margin` (a fraction of the bound), 'missed' when above it by more, 'undecided' within the band,
 * where one more round could tip it either way. `final`: no more rounds will come, so the band goes
 * to the plain comparison.
 */
export function decide(value, bound, { margin = 0.1, final = false } = {}) {
  if (!Number.isFinite(value)) return 'missed';
  if (final) return value <= bound ? 'met' : 'missed';
  if (value <= bound * (1 - margin)) return 'met';
  if (value > bound * (1 + margin)) return 'missed';
  return 'undecided';
}

/**
 * Judges timing targets (`{ kind, bound }`) on pooled samples: `{ row, comparison }`, each a list of
 * ms (`comparison` may be empty when every target is a `time`). Returns the medians and, per target,
 * its value and decision.
 */
export function judge(samples, targets, { margin = 0.1, final = false } = {}) {
  const rowMedian = median(samples.row);
  const comparisonMedian = samples.comparison.length > 0 ? median(samples.comparison) : NaN;
  return {
    rowMedian,
    comparisonMedian,
    results: targets.map((t) => {
      const value = timingValue(t.kind, rowMedian, comparisonMedian);
      return { target: t, value, decision: decide(value, t.bound, { margin, final }) };
    }),
  };
}

/**
 * Measures a row again: `round()` times the row's case and then its comparison once (returns
 * `{ row, comparison }` in ms; `comparison` left out when nothing is compared), and is called until
 * every target is decided on the pooled samples — from `minRounds` on — or `maxRounds` were taken;
 * after the last round each target is judged plainly (value ≤ bound). Returns the rounds taken, the
 * pooled samples and the final judgement (`met`: every target met).
 */
export async function remeasure({ round, targets, maxRounds = 5, minRounds = 3, margin = 0.1 }) {
  if (maxRounds < 1) throw new Error(`maxRounds ${maxRounds}: at least one round is needed`);
  const least = Math.min(minRounds, maxRounds);
  const samples = { row: [], comparison: [] };
  for (let rounds = 1; ; rounds++) {
    const sample = await round();
    samples.row.push(sample.row);
    if (sample.comparison !== undefined) samples.comparison.push(sample.comparison);
    const final = rounds >= maxRounds;
    if (rounds < least && !final) continue;
    const judged = judge(samples, targets, { margin, final });
    if (final || judged.results.every((r) => r.decision !== 'undecided'))
      return { rounds, samples, ...judged, met: judged.results.every((r) => r.decision === 'met') };
  }
}
