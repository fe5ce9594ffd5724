/**
 * Which input to change so a rendered field keeps its live value: the provider CR field that decides
 * it (as cluster-api-operator customises a provider's Deployments: `spec.deployment.*`,
 * `spec.manager`, `spec.additionalDeployments.<name>.*`), located in the file that sets it now — the
 * CR's own file, or the overlay patch that last wrote the field (the composition's locators) — and,
 * for a field no CR setting decides, the CR's `manifestPatches`; clusterctl's inventory `version`
 * is the CR's `spec.version`. cert-manager's objects are its
 * release's: the setting is `certManager`.
 */
import { isJsonObject, type JsonObject, type JsonValue, type KubeObject } from '../../manifest/object.js';
import { isManagerDeploymentName } from '../../customize/customize-deployments.js';
import type { FieldDifference } from './compare-object.js';

/** A provider CR of the environment as composed, with where each of its fields is written. */
export interface ProviderInput {
  /** e.g. `CoreProvider capi-system/cluster-api`. */
  ref: string;
  /** The CR's composed spec (for the index of a named container). */
  spec: JsonObject;
  /** The file and line that set `path` (or, when nothing sets it, the nearest ancestor that exists). */
  locate(path: readonly (string | number)[]): { file: string; line: number };
}

/** Where the hint points besides the CR: the environment's own overlay and the file holding certManager. */
export interface HintFiles {
  /** overlays/<env>/overlay.yaml when the environment has one. */
  overlay?: string;
  /** Where certManager is set for the environment (its overlay, or capi-render.yaml). */
  settings: string;
}

/** Pod and Deployment fields a provider CR's `deployment` block sets, by their Deployment path. */
const POD_FIELDS: readonly [RegExp, (m: RegExpExecArray) => (string | number)[]][] = [
  [/^spec\.replicas$/, () => ['replicas']],
  [/^spec\.template\.spec\.(nodeSelector|tolerations|affinity|serviceAccountName|imagePullSecrets)\b/, (m) => [m[1]!]],
  [/^spec\.template\.spec\.containers\[name=([^\]]+)\]\.image$/, (m) => ['containers', `name=${m[1]}`, 'imageUrl']],
  [
    /^spec\.template\.spec\.containers\[name=([^\]]+)\]\.(resources|env|command)\b/,
    (m) => ['containers', `name=${m[1]}`, m[2]!],
  ],
];

/**
 * The input that decides `d` of `object`, one line; undefined for an object of no provider and not
 * cert-manager's. `deployments` are the names of the component's Deployments.
 */
export function inputHint(
  object: KubeObject,
  d: FieldDifference,
  input: ProviderInput | undefined,
  deployments: readonly string[],
  files: HintFiles,
  certManager: boolean,
): string | undefined {
  if (certManager)
    return `input: certManager in ${files.settings}; cert-manager's objects are its release's (its version decides them, or install: false leaves cert-manager to another installer)`;
  if (!input) return undefined;
  const name = isJsonObject(object.metadata) ? String(object.metadata.name) : '';
  // clusterctl's inventory records the provider's version, which is the CR's.
  if (object.kind === 'Provider' && d.path === 'version') return where(input, ['spec', 'version'], files, keepValue(d));
  const main = deployments.length <= 1 || isManagerDeploymentName(name);
  const base: (string | number)[] = main ? ['spec'] : ['spec', 'additionalDeployments', name];
  if (object.kind === 'Deployment') {
    for (const [pattern, field] of POD_FIELDS) {
      const m = pattern.exec(d.path);
      if (m) return where(input, [...base, 'deployment', ...field(m)], files, m[0] === d.path ? keepValue(d) : []);
    }
    if (/^spec\.template\.spec\.containers\[name=[^\]]+\]\.args$/.test(d.path)) {
      return where(input, [...base, 'manager'], files, [
        `its featureGates, verbosity, additionalArgs …, or ${dotted([...base, 'deployment', 'containers'])}[].args`,
      ]);
    }
  }
  return where(input, ['spec', 'manifestPatches'], files, [
    `no provider setting decides ${d.path} of ${object.kind} ${name}; a patch does`,
  ]);
}

/** `input: <path> of <CR>, at <file:line>; …` — the file that sets the field now, or the CR's own when nothing does. */
function where(
  input: ProviderInput,
  path: readonly (string | number)[],
  files: HintFiles,
  more: readonly string[],
): string {
  const located = input.locate(indexed(input.spec, path));
  const own =
    files.overlay !== undefined && located.file !== files.overlay
      ? [`or a patch in ${files.overlay}, for this environment only`]
      : [];
  return [`input: ${dotted(path)} of ${input.ref}, at ${located.file}:${located.line}`, ...own, ...more].join('; ');
}

/** `<live value> keeps the live value`, for a field the setting takes as it is, when it is short. */
function keepValue(d: FieldDifference): string[] {
  if (d.change !== 'changed' || d.live === undefined) return [];
  const text = JSON.stringify(d.live);
  return text.length <= 60 ? [`${text} keeps the live value`] : [];
}

/** The path with `name=<n>` list selectors turned into the index of that item in the CR, when it has one. */
function indexed(spec: JsonObject, path: readonly (string | number)[]): (string | number)[] {
  const out: (string | number)[] = [];
  let node: JsonValue | undefined = { spec };
  for (const segment of path) {
    const m = typeof segment === 'string' ? /^name=(.*)$/.exec(segment) : null;
    if (m) {
      const index: number = Array.isArray(node)
        ? node.findIndex((item) => isJsonObject(item) && item.name === m[1])
        : -1;
      // An item the CR does not list: point at the list (the nearest place to add it).
      if (index < 0) return out;
      out.push(index);
      node = (node as JsonValue[])[index];
    } else {
      out.push(segment);
      node = isJsonObject(node) ? node[String(segment)] : undefined;
    }
  }
  return out;
}

function dotted(path: readonly (string | number)[]): string {
  return path
    .map((p) => (typeof p === 'string' && p.startsWith('name=') ? `[${p}]` : `.${String(p)}`))
    .join('')
    .replace(/^\./, '');
}
