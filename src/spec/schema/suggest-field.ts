/**
 * "Did you mean" for unknown fields: the declared field closest to a misspelt one by edit distance.
 */

/**
 * Returns the candidate closest to `name` by edit distance (a neighbour swap is one edit) (case-insensitive), if it is
 * close enough to be a plausible typo: at most a third of the name's length, and at least 1 edit
 * allowed for short names. Ties go to the candidate that sorts first, so the result is stable.
 */
export function suggestField(name: string, candidates: readonly string[]): string | undefined {
  const limit = Math.max(1, Math.floor(name.length / 3));
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of [...candidates].sort()) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { candidate, distance };
  }
  return best?.candidate;
}

/** Edit distance counting a swap of two neighbouring letters as one edit (`buidl` → `build`), the commonest typo. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
