/**
 * The bench's table, its targets and its verdict. Each row may carry targets — a stated bound
 * checked against the figures the row prints — and, for a case timed against kustomize, whether the
 * two produced the same objects (./same-objects.mjs). A case whose objects differ prints no ratio
 * and fails the run: its times compare different work. A missed target is listed at the end, and
 * fails the run under `--check`; but first, a row whose timing target missed and that can measure
 * itself again (`remeasure`) takes alternating rounds with its comparison, and its timing targets are
 * judged on the pooled medians instead (./noise-aware.mjs). The table stays the first pass.
 */
import { remeasure } from './noise-aware.mjs';

const HEADER = [
  'case',
  'capi-render',
  'compared with',
  'ratio',
  'target',
  'capi-render peak',
  'kustomize peak',
  'cache after',
];

/** A stated bound: its text for the report and whether the row's figures meet it. */
export const target = (text, ok) => ({ text, ok });

/** `value ≤ bound`; a figure that could not be measured (NaN) misses it, saying so. */
export function atMost(what, value, bound, unit = '') {
  if (!Number.isFinite(value)) return target(`${what} ≤ ${bound}${unit} (not measured here)`, false);
  return target(`${what} ${Number(value.toFixed(3))}${unit} ≤ ${bound}${unit}`, value <= bound);
}

/** Milliseconds as the table prints them. */
export const formatMs = (ms) => (ms >= 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms)} ms`);

/**
 * Timing targets, which a re-measure can judge again: the row's time over its comparison's at most
 * `bound`, and the row's time at most `bound` ms. Their text gives both medians.
 */
export function ratioAtMost(rowMs, comparisonMs, bound) {
  const t = atMost('ratio', rowMs / comparisonMs, bound, '×');
  return { ...t, text: `${t.text} (${formatMs(rowMs)} against ${formatMs(comparisonMs)})`, timing: 'ratio', bound };
}
export function timeAtMost(rowMs, bound) {
  return { ...atMost('time', rowMs, bound, ' ms'), timing: 'time', bound };
}

/** A timing target's text once judged on pooled medians. */
const pooledText = ({ target: { kind, bound }, value }) =>
  kind === 'time' ? atMost('time', value, bound, ' ms').text : atMost('ratio', value, bound, '×').text;

/** Collects rows; `verdict(check)` prints the table and what failed, and resolves to the exit code. */
export function benchTable() {
  const rows = [];
  const different = [];
  return {
    /**
     * Adds a row of the eight HEADER cells. `targets`: bounds the row must meet. `difference`: for a
     * case timed against kustomize, undefined when both produced the same objects, else how they differ
     * (the ratio cell then says so instead of comparing times). `remeasure`: how the row measures
     * itself again under `--check` when a timing target missed — `round()` times the case and then its
     * comparison once and returns `{ row, comparison }` in ms (the same scale as the figures the
     * targets were given); `comparison` names what it is compared with; `maxRounds` (default 5) caps
     * the rounds of a costly row.
     */
    add(cells, { targets = [], difference, compared = false, remeasure: again } = {}) {
      const row = [...cells];
      if (compared && difference !== undefined) {
        row[3] = 'objects differ';
        different.push(`${cells[0]}: ${difference}`);
        rows.push({ cells: row, targets: [] });
      } else rows.push({ cells: row, targets, again });
    },
    /** Prints the table, then the cases whose objects differ and the targets missed; resolves to the exit code. */
    async verdict(check) {
      const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r.cells[i]).length)));
      const line = (r) =>
        r
          .map((c, i) => String(c).padEnd(widths[i]))
          .join('  ')
          .trimEnd();
      console.log(line(HEADER));
      console.log(widths.map((w) => '-'.repeat(w)).join('  '));
      for (const r of rows) console.log(line(r.cells));
      const comparedNote =
        'each case timed against kustomize was checked first: both produced the same objects (parsed, canonical JSON, sorted by apiVersion/kind/namespace/name)';
      if (different.length === 0) console.log(`\n${comparedNote}.`);
      else {
        console.log(
          '\nFAILED — capi-render and kustomize produced different objects, so these times compare different work:',
        );
        for (const d of different) console.log(`  ${d}`);
      }
      const missed = [];
      for (const r of rows) {
        const name = r.cells[0];
        const misses = r.targets.filter((t) => !t.ok);
        const timings = r.targets.filter((t) => t.timing !== undefined);
        if (!check || r.again === undefined || !misses.some((t) => t.timing !== undefined)) {
          for (const t of misses) missed.push(`${name}: ${t.text}`);
          continue;
        }
        for (const t of misses) if (t.timing === undefined) missed.push(`${name}: ${t.text}`);
        const { maxRounds = 5, comparison } = r.again;
        console.log(
          `\nre-measuring "${name}": a timing target missed; up to ${maxRounds} alternating rounds with ${comparison} …`,
        );
        const judged = await remeasure({
          round: r.again.round,
          targets: timings.map((t) => ({ kind: t.timing, bound: t.bound })),
          maxRounds,
        });
        const figures = Number.isFinite(judged.comparisonMedian)
          ? `${formatMs(judged.rowMedian)}, ${comparison} ${formatMs(judged.comparisonMedian)}, ${(judged.rowMedian / judged.comparisonMedian).toFixed(3)}×`
          : formatMs(judged.rowMedian);
        console.log(`  ${judged.rounds} round(s), pooled medians: ${figures} — ${judged.met ? 'met' : 'still missed'}`);
        for (const result of judged.results) {
          const text = pooledText(result);
          console.log(`    ${result.decision === 'met' ? 'met' : 'missed'}: ${text}`);
          if (result.decision !== 'met')
            missed.push(`${name}: ${text} — pooled medians of ${judged.rounds} alternating round(s): ${figures}`);
        }
      }
      if (missed.length === 0) console.log('\nevery target met.');
      else {
        console.log(
          `\n${check ? 'FAILED — ' : ''}targets missed${check ? '' : ' (npm run bench -- --check re-measures the timing ones, then fails on what still misses)'}:`,
        );
        for (const m of missed) console.log(`  ${m}`);
      }
      return different.length > 0 || (check && missed.length > 0) ? 1 : 0;
    },
  };
}
