/**
 * Kubernetes resource quantities (`500m`, `1Gi`, `0.5`, `1e3`) compared by value: the API server
 * stores them in canonical form (`0.5` → `500m`, `1024Mi` → `1Gi`), so a
 * rendered `1024Mi` and a live `1Gi` are the same request.
 */

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** The value of a quantity, or undefined when the text is not one. */
export function quantityValue(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const m = QUANTITY.exec(value.trim());
  if (!m) return undefined;
  const base = Number(m[1]);
  if (m[2]) return base * 10 ** Number(m[2].slice(1));
  return base * SUFFIX[m[3] ?? '']!;
}

/** Whether two quantities are equal (to the milli precision the server keeps). */
export function sameQuantity(a: unknown, b: unknown): boolean {
  const x = quantityValue(a);
  const y = quantityValue(b);
  if (x === undefined || y === undefined) return false;
  return (
    Math.abs(x - y) <= Math.max(Math.abs(x), Math.abs(y)) * 1e-12 ||
    Math.ceil(x * 1000 - 1e-9) === Math.ceil(y * 1000 - 1e-9)
  );
}
