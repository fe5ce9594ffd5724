/**
 * Secret values in a comparison. Whatever `secrets.mode` put in the output (plaintext keeps the
 * values), a diff, a report or a check never shows them: every value under a Secret's `data` and
 * `stringData` is replaced by its digest, `sha256:` and the first 12 hex digits of the sha256 of the
 * value (for `data`, of the bytes the base64 stands for, so `data` and `stringData` forms of one value
 * agree, as in a live dump). A changed value still shows as changed, an unchanged one as unchanged.
 */
import { createHash } from 'node:crypto';
import { isJsonObject, type JsonObject } from '../manifest/object.js';

/** The fields of a Secret that hold values. */
const VALUE_FIELDS = ['data', 'stringData'] as const;

/** Whether `value` is a Secret object (any apiVersion: a look-alike is masked too). */
export function isSecretObject(value: unknown): value is JsonObject {
  return isJsonObject(value) && value.kind === 'Secret';
}

/** `sha256:` and the first 12 hex digits of the digest of one value. */
export function secretValueDigest(value: unknown, base64: boolean): string {
  const bytes =
    typeof value === 'string'
      ? Buffer.from(value, base64 ? 'base64' : 'utf8')
      : Buffer.from(JSON.stringify(value) ?? '');
  return `sha256:${createHash('sha256').update(bytes).digest('hex').slice(0, 12)}`;
}

/**
 * A copy of `object` whose `data` and `stringData` values are digests (a field that is not a map is
 * digested whole); anything else is returned as it is. Never mutates `object`.
 */
export function maskSecretValues<T>(object: T): T {
  if (!isJsonObject(object)) return object;
  const out: JsonObject = { ...object };
  for (const field of VALUE_FIELDS) {
    const values = object[field];
    if (values === undefined || values === null) continue;
    const base64 = field === 'data';
    out[field] = isJsonObject(values)
      ? Object.fromEntries(Object.entries(values).map(([key, value]) => [key, secretValueDigest(value, base64)]))
      : secretValueDigest(values, base64);
  }
  return out as T;
}
