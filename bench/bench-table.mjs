/**
 * The bench's table, its targets and its verdict. Each row may carry targets — a stated bound
 * checked against the figures the row prints — and, for a case timed against kustomize, whether the
 * two produced the same objects (./same-objects.mjs). A case whose objects differ prints no ratio
 * and fails the run: its times compare different work. A missed target is listed at the end, and
 * fails the run under `--check`.
 */

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

/** Collects rows; `verdict(check)` prints the table and what failed, and returns the exit code. */
export function benchTable() {
  const rows = [];
  const missed = [];
  const different = [];
  return {
    /**
     * Adds a row of the eight HEADER cells. `targets`: bounds the row must meet. `difference`: for a
     * case timed against kustomize, undefined when both produced the same objects, else how they differ
     * (the ratio cell then says so instead of comparing times).
     */
    add(cells, { targets = [], difference, compared = false } = {}) {
      const row = [...cells];
      if (compared && difference !== undefined) {
        row[3] = 'objects differ';
        different.push(`${cells[0]}: ${difference}`);
      } else {
        for (const t of targets) if (!t.ok) missed.push(`${cells[0]}: ${t.text}`);
      }
      rows.push(row);
    },
    /** Prints the table, then the cases whose objects differ and the targets missed; returns the exit code. */
    verdict(check) {
      const widths = HEADER.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
      const line = (r) =>
        r
          .map((c, i) => String(c).padEnd(widths[i]))
          .join('  ')
          .trimEnd();
      console.log(line(HEADER));
      console.log(widths.map((w) => '-'.repeat(w)).join('  '));
      for (const r of rows) console.log(line(r));
      const comparedNote =
        'each case timed against kustomize was checked first: both produced the same objects (parsed, canonical JSON, sorted by apiVersion/kind/namespace/name)';
      if (different.length === 0) console.log(`\n${comparedNote}.`);
      else {
        console.log(
          '\nFAILED — capi-render and kustomize produced different objects, so these times compare different work:',
        );
        for (const d of different) console.log(`  ${d}`);
      }
      if (missed.length === 0) console.log('every target met.');
      else {
        console.log(
          `${check ? 'FAILED — ' : ''}targets missed${check ? '' : ' (npm run bench -- --check fails on these)'}:`,
        );
        for (const m of missed) console.log(`  ${m}`);
      }
      return different.length > 0 || (check && missed.length > 0) ? 1 : 0;
    },
  };
}
