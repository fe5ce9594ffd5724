/**
 * Count phrases that agree with their number, for every summary and tally capi-render words:
 * `1 environment`, `2 environments`, `0 warnings`. English takes the singular for exactly one and
 * the plural for every other count, zero included. Pure.
 */

/** `one` when `n` is 1, else `many`: the word that agrees with a count (`its`/`their`, `is`/`are`). */
export function chooseByCount(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}

/**
 * `n` and its noun in the number that agrees: `formatCount(1, 'rule')` is `1 rule`,
 * `formatCount(0, 'rule')` is `0 rules`. Default plural: the noun with `s` (give `plural` for any
 * other, e.g. `formatCount(2, 'object change is', 'object changes are')`).
 */
export function formatCount(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${chooseByCount(n, noun, plural)}`;
}
