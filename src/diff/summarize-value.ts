/**
 * Short forms of values for a diff: a field change must stay readable in a terminal and in a pull
 * request, even when the value is a 1 MB CRD schema or a list of 40 RBAC rules.
 */
import { compareText } from './util-compare.js';

/** Strings longer than this are cut (the CAPI feature-gate argument, ~250 characters, still fits). */
export const MAX_STRING = 300;
/** Lists with more items than this are shown as `[N items]`. */
export const MAX_ITEMS = 10;
/** Maps whose JSON (after summarising their values) is longer than this are shown as `{N keys}`. */
export const MAX_JSON = 300;

/**
 * A summary of `value` that is safe to print: long strings end in `… (N chars)`, lists of more
 * than {@link MAX_ITEMS} items become `"[N items]"`, big maps `"{N keys}"`; smaller containers
 * are kept (map keys sorted, so the result does not depend on the key order of the input).
 * Never mutates `value`.
 */
export function summarizeValue(value: unknown): unknown {
  if (typeof value === 'string')
    return value.length > MAX_STRING ? `${value.slice(0, MAX_STRING)}… (${value.length} chars)` : value;
  if (Array.isArray(value)) {
    // A short list stays a list (each item summarised), so container args are always shown whole.
    return value.length > MAX_ITEMS ? countItems(value.length) : value.map(summarizeValue);
  }
  if (typeof value === 'object' && value !== null) {
    const keys = Object.keys(value).sort(compareText);
    const entries: Record<string, unknown> = {};
    let size = 2;
    for (const key of keys) {
      const child = summarizeValue((value as Record<string, unknown>)[key]);
      // Give up as soon as the map is too big to show, instead of summarising a whole CRD version first.
      size += JSON.stringify(key).length + JSON.stringify(child).length + 2;
      if (size > MAX_JSON) return `{${keys.length} ${keys.length === 1 ? 'key' : 'keys'}}`;
      entries[key] = child;
    }
    return entries;
  }
  return value;
}

/** `[N items]`, the summary of a list too big to show. */
export function countItems(count: number): string {
  return `[${count} ${count === 1 ? 'item' : 'items'}]`;
}
