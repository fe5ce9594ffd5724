/**
 * RFC 7396 JSON Merge Patch as evanphx/json-patch v5 `MergePatch` applies it (the operator's
 * "strategic merge" is this): objects merge key by key, `null` deletes a key, and every other
 * value — arrays included — replaces what was there whole. There are no merge keys, so a patch
 * that lists one container replaces the entire `containers` list.
 */
import type { JsonObject, JsonValue } from '../../manifest/object.js';
import { isJsonEqual } from './json-equal.js';
import { hasMember, objectFromEntries, withMember, withoutMember } from './json-containers.js';

/**
 * Merges `patch` into `target` and returns the result. Pure; untouched subtrees are shared, and
 * when nothing changes the very same `target` object is returned.
 *
 * evanphx detail kept: a value written where there was nothing (or null, or a non-object) has
 * its `null` members removed recursively, including inside objects nested in arrays, whereas an
 * array or scalar that replaces an existing object is written as given.
 */
export function applyMergePatch(target: JsonObject, patch: JsonObject): JsonObject {
  let result = target;
  for (const key of Object.keys(patch)) {
    const value = patch[key] as JsonValue;
    if (value === null) {
      if (hasMember(result, key)) result = withoutMember(result, key);
      continue;
    }
    const current = hasMember(result, key) ? (result[key] as JsonValue) : null;
    const next = mergeValue(current, value);
    if (next === current) continue;
    // A recursive merge already returns `current` itself when nothing changed; a replacement value
    // is compared so that re-stating an existing list or scalar keeps the object's identity.
    const merged = isPlainObject(current) && isPlainObject(value);
    if (!merged && isJsonEqual(next, current)) continue;
    result = withMember(result, key, next);
  }
  return result;
}

function mergeValue(current: JsonValue, patch: JsonValue): JsonValue {
  if (!isPlainObject(current)) return pruneNulls(patch);
  if (!isPlainObject(patch)) return patch;
  return applyMergePatch(current, patch);
}

/** Drops `null` object members at any depth; `null` array elements stay. */
function pruneNulls(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item) => (item === null ? null : pruneNulls(item)));
  if (!isPlainObject(value)) return value;
  const entries: [string, JsonValue][] = [];
  for (const key of Object.keys(value)) {
    const member = value[key] as JsonValue;
    if (member !== null) entries.push([key, pruneNulls(member)]);
  }
  return objectFromEntries(entries);
}

function isPlainObject(value: JsonValue): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
