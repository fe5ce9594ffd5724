/**
 * "Did you mean" for unknown fields, options, commands and names: the declared one closest to a
 * misspelt one by edit distance, else the one it abbreviates or expands.
 */

/** What may follow a known word for the typed one to be that word, expanded (`env` + `ironment`). */
const WORD_TAIL = /^[A-Za-z0-9_.-]+$/;

/**
 * Returns the candidate closest to `name` (case-insensitive), if it is a plausible slip:
 * 1. by edit distance (a neighbour swap is one edit): at most a third of the name's length, and at
 *    least 1 edit allowed for short names; ties go to the candidate that sorts first;
 * 2. else by prefix: the one candidate that starts with a `name` of 3 or more letters (`--dry` →
 *    `dry-run`; nothing when several do), or else a candidate of 3 or more letters that `name`
 *    starts with, followed by more of a word (`--environment`, `--enviroment` → `env`;
 *    `--repository` → `repo`; the longest wins).
 * Anything else — a word sharing a letter or two, a name followed by punctuation or spaces — gets no
 * suggestion. The result is stable.
 */
export function suggestField(name: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  const lower = name.toLowerCase();
  const sorted = [...candidates].sort();
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of sorted) {
    const distance = editDistance(lower, candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  if (best) return best.candidate;
  // A start of longer candidates: the one it completes; when several, the user was typing one of
  // them, not a shorter word it happens to start with.
  const completions = lower.length >= 3 ? sorted.filter((c) => c.toLowerCase().startsWith(lower)) : [];
  if (completions.length > 0) return completions.length === 1 ? completions[0] : undefined;
  let stem: string | undefined;
  for (const candidate of sorted) {
    const c = candidate.toLowerCase();
    if (
      c.length >= 3 &&
      lower.startsWith(c) &&
      WORD_TAIL.test(lower.slice(c.length)) &&
      (stem === undefined || c.length > stem.length)
    )
      stem = candidate;
  }
  return stem;
}

/** Edit distance counting a swap of two neighbouring letters as one edit (`buidl` → `build`), the commonest typo. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** ` did you mean "x"?` or nothing: the closest candidate by edit distance, else by prefix (see suggestField). */
export function didYouMean(
  word: string,
  candidates: readonly string[],
  format: (candidate: string) => string = (c) => `"${c}"`,
): string {
  const best = suggestField(word, candidates);
  return best === undefined ? '' : `; did you mean ${format(best)}?`;
}
