/**
 * The substitution functions and envsubst's name → function table (template.go lookupFunc,
 * funcs.go). Every function takes the variable's value ("" when unset) and the evaluated arguments.
 * Replace patterns are literal strings, not globs; only the `#`/`%` trims use glob matching.
 */
import { lowerRune, lowerString, mapFirstRune, upperRune, upperString } from './case-mapping.js';
import { substring } from './substring.js';
import { trimLongestPrefix, trimLongestSuffix, trimShortestPrefix, trimShortestSuffix } from './trim-pattern.js';

/** A substitution function: value and evaluated arguments in, replacement text out. */
export type SubstituteFunction = (value: string, args: readonly string[]) => string;

/**
 * The function for an operator token. Unknown names, including the plain `${VAR}` (''), `:?`,
 * `:+` and the mixed casings `,^`/`^,`, fall back to the default function, as in envsubst.
 * `#` is the length with no arguments (`${#VAR}`) and the shortest-prefix trim otherwise.
 */
export function selectFunction(name: string, argCount: number): SubstituteFunction {
  switch (name) {
    case ',':
      return (value) => mapFirstRune(value, lowerRune);
    case ',,':
      return (value) => lowerString(value);
    case '^':
      return (value) => mapFirstRune(value, upperRune);
    case '^^':
      return (value) => upperString(value);
    case '#':
      return argCount === 0 ? byteLength : trimShortestPrefix;
    case '##':
      return trimLongestPrefix;
    case '%':
      return trimShortestSuffix;
    case '%%':
      return trimLongestSuffix;
    case ':':
      return substring;
    case '/#':
      return replacePrefix;
    case '/%':
      return replaceSuffix;
    case '/':
      return (value, args) => (args.length === 0 ? value : goReplace(value, args[0]!, args[1] ?? '', 1));
    case '//':
      return (value, args) => (args.length === 0 ? value : goReplace(value, args[0]!, args[1] ?? '', -1));
    default:
      return useDefault;
  }
}

/**
 * Whether the operator `name` yields the variable's value unchanged when the value is not empty:
 * the default function's names (`''`, `=`, `:=`, `-`, `:-` and everything unknown), as opposed to the
 * case, length, trim, substring and replace functions that transform it.
 */
export function preservesValue(name: string): boolean {
  return selectFunction(name, 1) === useDefault && selectFunction(name, 0) === useDefault;
}

/**
 * `=`, `:=`, `:-` (and everything unknown): the value, or the arguments joined when the value is
 * empty. Empty and unset are the same here: envsubst only ever sees the value string.
 */
function useDefault(value: string, args: readonly string[]): string {
  return value.length === 0 && args.length > 0 ? args.join('') : value;
}

/** `${#VAR}`: Go's len, the UTF-8 byte count. */
function byteLength(value: string): string {
  return String(Buffer.byteLength(value, 'utf8'));
}

/** `/#`: needs both a pattern and a replacement; `${V/#p/}` (one argument) changes nothing. */
function replacePrefix(value: string, args: readonly string[]): string {
  if (args.length !== 2) return value;
  const [pattern, replacement] = args as [string, string];
  return value.startsWith(pattern) ? replacement + value.slice(pattern.length) : value;
}

/** `/%`: needs both a pattern and a replacement, like `/#`. */
function replaceSuffix(value: string, args: readonly string[]): string {
  if (args.length !== 2) return value;
  const [pattern, replacement] = args as [string, string];
  return value.endsWith(pattern) ? value.slice(0, value.length - pattern.length) + replacement : value;
}

/**
 * Go's strings.Replace with n = 1 or n = -1 (all). An empty pattern matches at the start and after
 * every character, which matters when the pattern is a nested `${X}` that came out empty.
 */
function goReplace(value: string, pattern: string, replacement: string, limit: 1 | -1): string {
  if (pattern === replacement) return value;
  if (pattern === '') {
    if (limit === 1) return replacement + value;
    let out = replacement;
    for (const ch of value) out += ch + replacement;
    return out;
  }
  if (limit === -1) return value.split(pattern).join(replacement);
  const at = value.indexOf(pattern);
  return at < 0 ? value : value.slice(0, at) + replacement + value.slice(at + pattern.length);
}
