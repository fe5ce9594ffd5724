/**
 * Copy-on-write edits of JSON objects and arrays for the patch engines. Every function returns a
 * new container and leaves its input untouched, so patched objects share every unchanged subtree
 * with the (immutable, shared) release objects they came from.
 */
import type { JsonObject, JsonValue } from '../../manifest/object.js';

/** A JSON value that has members: an object or an array. */
export type JsonContainer = JsonObject | JsonValue[];

/** Whether `value` is an object or an array (not null, not a scalar, not missing). */
export function isContainer(value: JsonValue | undefined): value is JsonContainer {
  return typeof value === 'object' && value !== null;
}

/** Whether `obj` has `key` as its own member (never an inherited one such as `constructor`). */
export function hasMember(obj: JsonObject, key: string): boolean {
  return Object.hasOwn(obj, key);
}

/** A copy of `obj` with `key` set to `value`. */
export function withMember(obj: JsonObject, key: string, value: JsonValue): JsonObject {
  const copy = { ...obj };
  // defineProperty, not assignment: a patch key "__proto__" must become data, not a prototype.
  Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  return copy;
}

/** A new object with the given members, in order (safe for a `__proto__` key, like {@link withMember}). */
export function objectFromEntries(entries: readonly (readonly [string, JsonValue])[]): JsonObject {
  const obj: JsonObject = {};
  for (const [key, value] of entries) {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return obj;
}

/** A copy of `obj` without `key`. */
export function withoutMember(obj: JsonObject, key: string): JsonObject {
  const copy = { ...obj };
  delete copy[key];
  return copy;
}

/** A copy of `array` with the element at `index` replaced. */
export function withElement(array: readonly JsonValue[], index: number, value: JsonValue): JsonValue[] {
  const copy = [...array];
  copy[index] = value;
  return copy;
}

/** A copy of `array` with `value` inserted before `index` (`index === length` appends). */
export function withInserted(array: readonly JsonValue[], index: number, value: JsonValue): JsonValue[] {
  return [...array.slice(0, index), value, ...array.slice(index)];
}

/** A copy of `array` without the element at `index`. */
export function withoutElement(array: readonly JsonValue[], index: number): JsonValue[] {
  return [...array.slice(0, index), ...array.slice(index + 1)];
}

/** A short description of a value's type for messages ("a string", "null", …). */
export function describeType(value: JsonValue | undefined): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
