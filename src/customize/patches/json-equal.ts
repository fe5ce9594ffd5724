import type { JsonValue } from '../../manifest/object.js';

/**
 * Structural equality of two JSON values: same type, same array elements in order, same object
 * keys (in any order) with equal values. Numbers compare by value (`1` equals `1.0`).
 */
export function isJsonEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => isJsonEqual(item, b[i]));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && isJsonEqual(a[key], b[key]));
}
