/**
 * Canonical JSON: object keys sorted by code unit at every level, so values that differ only in key
 * order compare and hash equal (JS keeps insertion order; Go sorts map keys). Used for schema
 * identity and for memo keys.
 */

/** JSON text of `value` with sorted object keys; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.keys(v)
            .sort()
            .map((k) => [k, (v as Record<string, unknown>)[k]]),
        )
      : v,
  );
}
