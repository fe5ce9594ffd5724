/**
 * The order of Cluster API contract names, which are Kubernetes API version names (`v1alpha4`,
 * `v1beta1`, `v1beta2`, `v1`): by major version, then GA after beta after alpha, then the
 * pre-release number — the priority Kubernetes gives versions (custom-resource-definition-versioning
 * "Version priority"). A name of another form sorts before every well-formed one, by text.
 */
const VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STAGE: Readonly<Record<string, number>> = { alpha: 0, beta: 1 };

/** Negative when contract `a` is older than `b`, positive when newer, 0 when the same. */
export function compareContracts(a: string, b: string): number {
  const x = rank(a);
  const y = rank(b);
  if (x === undefined || y === undefined)
    return x !== undefined ? 1 : y !== undefined ? -1 : a < b ? -1 : a > b ? 1 : 0;
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
}

function rank(contract: string): [number, number, number] | undefined {
  const m = VERSION.exec(contract);
  if (m === null) return undefined;
  return [Number(m[1]), m[2] === undefined ? 2 : STAGE[m[2]]!, m[3] === undefined ? 0 : Number(m[3])];
}
