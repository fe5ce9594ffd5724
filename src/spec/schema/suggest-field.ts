/**
 * "Did you mean" for unknown fields: the declared field closest to a misspelt one by edit distance.
 */

/**
 * Returns the candidate closest to `name` by Levenshtein distance (case-insensitive), if it is
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

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}
