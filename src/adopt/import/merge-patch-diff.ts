/**
 * The JSON merge patch (RFC 7386) that turns `from` into `to`: maps are compared key by key, lists
 * and scalars are replaced whole, a key only `from` has becomes `null` (delete). It is also what an
 * overlay's strategic-merge patch means for provider CRs (maps merged, lists replaced, null deletes).
 */
import { isJsonObject, type JsonObject, type JsonValue } from '../../manifest/object.js';
import { isDeepEqual } from '../../diff/util-compare.js';

export function createMergePatch(from: JsonObject, to: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) {
    if (!(key in to)) patch[key] = null;
  }
  for (const [key, value] of Object.entries(to)) {
    const before: JsonValue | undefined = from[key];
    if (isDeepEqual(before, value)) continue;
    if (isJsonObject(before) && isJsonObject(value)) {
      const inner = createMergePatch(before, value);
      if (Object.keys(inner).length > 0) patch[key] = inner;
    } else patch[key] = value;
  }
  return patch;
}
