/**
 * `${VAR#pat}`, `${VAR##pat}`, `${VAR%pat}`, `${VAR%%pat}`: remove the shortest/longest prefix or
 * suffix matching a glob, as envsubst's funcs.go does it. Prefixes are tried on byte boundaries from
 * the longest down to one byte (the empty prefix never counts); a malformed pattern met on the way
 * leaves the value unchanged. Suffix forms reverse the value and the pattern rune by rune, trim a
 * prefix, and reverse back, so a pattern like `\*` reads as `*\` there — envsubst's behaviour.
 */
import { matchGlob } from './glob-match.js';
import { fromBytes, reverseRunes, toBytes } from './go-utf8.js';

/** `#`: shortest matching prefix removed. */
export function trimShortestPrefix(value: string, args: readonly string[]): string {
  if (args.length === 0) return value;
  return fromBytes(trimShortest(toBytes(value), toBytes(args[0]!)));
}

/** `##`: longest matching prefix removed. */
export function trimLongestPrefix(value: string, args: readonly string[]): string {
  if (args.length === 0) return value;
  return fromBytes(trimLongest(toBytes(value), toBytes(args[0]!)));
}

/** `%`: shortest matching suffix removed. */
export function trimShortestSuffix(value: string, args: readonly string[]): string {
  if (args.length === 0) return value;
  const reversed = trimShortest(reverseRunes(toBytes(value)), reverseRunes(toBytes(args[0]!)));
  return fromBytes(reverseRunes(reversed));
}

/** `%%`: longest matching suffix removed. */
export function trimLongestSuffix(value: string, args: readonly string[]): string {
  if (args.length === 0) return value;
  const reversed = trimLongest(reverseRunes(toBytes(value)), reverseRunes(toBytes(args[0]!)));
  return fromBytes(reverseRunes(reversed));
}

function trimShortest(value: Uint8Array, pattern: Uint8Array): Uint8Array {
  // envsubst walks every prefix, longest first, and keeps the last (shortest) that matched.
  let shortest = 0;
  for (let size = value.length; size > 0; size--) {
    const result = matchGlob(pattern, value.subarray(0, size));
    if (result === 'bad-pattern') return value;
    if (result) shortest = size;
  }
  return shortest > 0 ? value.subarray(shortest) : value;
}

function trimLongest(value: Uint8Array, pattern: Uint8Array): Uint8Array {
  for (let size = value.length; size > 0; size--) {
    const result = matchGlob(pattern, value.subarray(0, size));
    if (result === 'bad-pattern') return value;
    if (result) return value.subarray(size);
  }
  return value;
}
