/**
 * What the API server and cluster-api-operator's webhooks add to a provider CR that its author did not
 * write, so `import` can leave it out of the declarations it writes (cluster-api-operator v0.28).
 *
 * Design notes: docs/internals.md "adopt/import/operator-defaults.ts".
 */
import { apiVersionOnly, isJsonObject, type JsonObject, type JsonValue } from '../../manifest/object.js';
import { isDeepEqual } from '../../diff/util-compare.js';
import { kindInfo, OPERATOR_API_VERSION, type ProviderKind } from '../../declarations/provider-kinds.js';
import { loadCrdSchema } from '../../declarations/schema/load-crd-schema.js';
import { packagePath } from '../../package-files.js';

/**
 * A field path inside `spec`: `*` matches every value of a map (additionalDeployments' names), `[]`
 * every item of a list. `value` is the default; `ownNamespace` means the CR's own namespace instead.
 */
export interface OperatorDefault {
  path: readonly string[];
  value: JsonValue;
  ownNamespace?: true;
  /** Who sets it, for the declaration's comment. */
  by: 'webhook' | 'crd';
}

/** The part of a provider spec the webhook's Go round trip fills with empty structs. */
const MANAGER_STRUCTS = ['metrics', 'health', 'webhook'] as const;
/** Where a ManagerSpec and a DeploymentSpec sit in a provider spec. */
const MANAGERS: readonly string[][] = [['manager'], ['additionalDeployments', '*', 'manager']];
const DEPLOYMENTS: readonly string[][] = [['deployment'], ['additionalDeployments', '*', 'deployment']];

/** The webhook's own defaults (setDefaultProviderSpec and the Go round trip), the same for every kind. */
export const WEBHOOK_DEFAULTS: readonly OperatorDefault[] = [
  { path: ['configSecret', 'namespace'], value: '', ownNamespace: true, by: 'webhook' },
  { path: ['additionalManifests', 'namespace'], value: '', ownNamespace: true, by: 'webhook' },
  ...MANAGERS.flatMap((m) =>
    MANAGER_STRUCTS.map((s): OperatorDefault => ({ path: [...m, s], value: {}, by: 'webhook' })),
  ),
  ...DEPLOYMENTS.map((d): OperatorDefault => ({
    path: [...d, 'containers', '[]', 'env', '[]', 'valueFrom', 'resourceFieldRef', 'divisor'],
    value: '0',
    by: 'webhook',
  })),
];

/**
 * Every `default:` inside `spec` of the kind's v1alpha2 schema, in schema order. Read on each call
 * (the shipped JSON schema, a few milliseconds; import asks once per provider), never cached in the module.
 */
export function crdDefaults(kind: ProviderKind, schemaDir = packagePath('schemas')): OperatorDefault[] {
  const schema = loadCrdSchema(schemaDir, kindInfo(kind).schemaFile, apiVersionOnly(OPERATOR_API_VERSION));
  const out: OperatorDefault[] = [];
  collectDefaults(isJsonObject(schema.properties) ? schema.properties.spec : undefined, [], out);
  return out;
}

function collectDefaults(node: JsonValue | undefined, path: string[], out: OperatorDefault[]): void {
  if (!isJsonObject(node)) return;
  if (path.length > 0 && node.default !== undefined) out.push({ path, value: node.default, by: 'crd' });
  if (isJsonObject(node.properties))
    for (const [key, child] of Object.entries(node.properties)) collectDefaults(child, [...path, key], out);
  if (isJsonObject(node.items)) collectDefaults(node.items, [...path, '[]'], out);
  if (isJsonObject(node.additionalProperties)) collectDefaults(node.additionalProperties, [...path, '*'], out);
}

/** A field left out, as a dotted path with its value, for the declaration's comment. */
export interface DroppedDefault {
  path: string;
  value: JsonValue;
  by: OperatorDefault['by'];
}

/**
 * `spec` without the values that equal the operator's and the API server's defaults; maps emptied by
 * that are left out too (a `manager` that held only defaults renders as none). Never mutates `spec`.
 */
export function withoutOperatorDefaults(
  kind: ProviderKind,
  namespace: string,
  spec: JsonObject,
): { spec: JsonObject; dropped: DroppedDefault[] } {
  const dropped: DroppedDefault[] = [];
  let out: JsonObject = spec;
  for (const d of [...WEBHOOK_DEFAULTS, ...crdDefaults(kind)]) {
    const expected = d.ownNamespace ? namespace : d.value;
    const next = dropAt(out, d.path, [], (value, at) => {
      if (!isDeepEqual(value, expected)) return false;
      dropped.push({ path: ['spec', ...at].join('.'), value, by: d.by });
      return true;
    });
    out = isJsonObject(next) ? next : {};
  }
  return { spec: out, dropped };
}

/** `value` with the leaves at `path` removed where `drop` says so; maps emptied by a removal are removed too. */
function dropAt(
  value: JsonValue,
  path: readonly string[],
  at: string[],
  drop: (leaf: JsonValue, at: string[]) => boolean,
): JsonValue | undefined {
  const [head, ...rest] = path;
  if (head === undefined) return drop(value, at) ? undefined : value;
  if (head === '[]') {
    if (!Array.isArray(value)) return value;
    return value.map((item, i) => dropAt(item, rest, [...at, String(i)], drop) ?? {});
  }
  if (!isJsonObject(value)) return value;
  const keys = head === '*' ? Object.keys(value) : [head];
  let changed = false;
  const copy: JsonObject = { ...value };
  for (const key of keys) {
    if (copy[key] === undefined) continue;
    const next = dropAt(copy[key], rest, [...at, key], drop);
    if (next === copy[key]) continue;
    changed = true;
    if (next === undefined || (isJsonObject(next) && Object.keys(next).length === 0 && rest.length > 0))
      delete copy[key];
    else copy[key] = next;
  }
  if (!changed) return value;
  return Object.keys(copy).length === 0 ? undefined : copy;
}
