/**
 * Canonical JSON for comparing schemas: object keys sorted by code unit at every level, so two
 * schemas that differ only in key order (YAML files written by different generators) are equal.
 */

/** JSON text of `value` with sorted object keys; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  );
}
