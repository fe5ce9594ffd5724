/**
 * The operator's `--name=value` container-argument editing (`setArgs` and `parseFeatureGates` in
 * cluster-api-operator `internal/controller/component_customizer.go`), over fresh arrays.
 */
import type { JsonValue } from '../manifest/object.js';

/**
 * Returns a copy of `args` where the first element starting with `name=` is replaced by
 * `name=value`, or with `name=value` appended when there is none. A bare `name` (no `=`, e.g. the
 * `--leader-elect` in the CAPI manifests) does not count, exactly as in the operator, so both stay.
 */
export function setArg(args: readonly JsonValue[], name: string, value: string): JsonValue[] {
  const prefix = `${name}=`;
  const index = args.findIndex((arg) => typeof arg === 'string' && arg.startsWith(prefix));
  const copy = [...args];
  if (index < 0) copy.push(`${prefix}${value}`);
  else copy[index] = `${prefix}${value}`;
  return copy;
}

/** True when some element of `args` starts with `name=` (the operator's additionalArgs guard). */
export function hasArg(args: readonly JsonValue[], name: string): boolean {
  return args.some((arg) => typeof arg === 'string' && arg.startsWith(`${name}=`));
}

/**
 * Reads the first `--feature-gates=` argument into a map. Entries without `=` are dropped and any
 * value other than the exact text `true` counts as false, as in the operator.
 */
export function parseFeatureGates(args: readonly JsonValue[]): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  const prefix = '--feature-gates=';
  const arg = args.find((a): a is string => typeof a === 'string' && a.startsWith(prefix));
  if (arg === undefined) return gates;
  for (const entry of arg.slice(prefix.length).split(',')) {
    const eq = entry.indexOf('=');
    if (eq >= 0) gates.set(entry.slice(0, eq), entry.slice(eq + 1) === 'true');
  }
  return gates;
}

/**
 * Formats gates as the operator does: `Name=true|false` entries sorted as whole strings (Go's
 * `sort.Strings`, so `A-b=…` sorts before `A=…`), joined by commas.
 */
export function formatFeatureGates(gates: ReadonlyMap<string, boolean>): string {
  return [...gates]
    .map(([name, on]) => `${name}=${on}`)
    .sort(compareCodeUnits)
    .join(',');
}

/** Byte-order comparison for the ASCII keys the operator sorts (and for Go map keys we sort). */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
