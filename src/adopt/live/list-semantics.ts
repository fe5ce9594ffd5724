/**
 * How server-side apply merges each list of the kinds capi-render renders (from
 * the `+listType`/`patchMergeKey` markers of the Kubernetes API types): `map` lists are merged
 * element by element, identified by their key fields (a key field left out is keyed by its default,
 * e.g. a port's protocol TCP); `set` lists by value; every other list — and every list of a custom
 * resource, whose schemas here carry no markers — is `atomic`: replaced whole.
 */
import type { JsonValue } from '../../manifest/object.js';

export type ListSemantics =
  | { type: 'map'; keys: readonly string[]; keyDefaults?: Readonly<Record<string, JsonValue>> }
  | { type: 'set' }
  | { type: 'atomic' };

const ATOMIC: ListSemantics = { type: 'atomic' };
const byName: ListSemantics = { type: 'map', keys: ['name'] };
const TCP = { protocol: 'TCP' };

/** Lists inside a PodSpec, by their path below it (field names only). */
const POD_SPEC_LISTS: Record<string, ListSemantics> = {
  containers: byName,
  initContainers: byName,
  ephemeralContainers: byName,
  'containers.ports': { type: 'map', keys: ['containerPort', 'protocol'], keyDefaults: TCP },
  'initContainers.ports': { type: 'map', keys: ['containerPort', 'protocol'], keyDefaults: TCP },
  'containers.env': byName,
  'initContainers.env': byName,
  'containers.volumeMounts': { type: 'map', keys: ['mountPath'] },
  'initContainers.volumeMounts': { type: 'map', keys: ['mountPath'] },
  'containers.volumeDevices': { type: 'map', keys: ['devicePath'] },
  'initContainers.volumeDevices': { type: 'map', keys: ['devicePath'] },
  'containers.resources.claims': byName,
  volumes: byName,
  imagePullSecrets: byName,
  hostAliases: { type: 'map', keys: ['ip'] },
  topologySpreadConstraints: { type: 'map', keys: ['topologyKey', 'whenUnsatisfiable'] },
  schedulingGates: byName,
  resourceClaims: byName,
};

/** Where each workload kind keeps its PodSpec. */
const POD_SPEC_AT: Record<string, string> = {
  'apps/Deployment': 'spec.template.spec',
  'apps/ReplicaSet': 'spec.template.spec',
  'apps/StatefulSet': 'spec.template.spec',
  'apps/DaemonSet': 'spec.template.spec',
  'batch/Job': 'spec.template.spec',
  'batch/CronJob': 'spec.jobTemplate.spec.template.spec',
  '/Pod': 'spec',
  '/PodTemplate': 'template.spec',
};

/** Other map and set lists, by group/kind and path. */
const KIND_LISTS: Record<string, Record<string, ListSemantics>> = {
  '/Service': { 'spec.ports': { type: 'map', keys: ['port', 'protocol'], keyDefaults: TCP } },
  'admissionregistration.k8s.io/MutatingWebhookConfiguration': { webhooks: byName },
  'admissionregistration.k8s.io/ValidatingWebhookConfiguration': { webhooks: byName },
};

const METADATA_LISTS: Record<string, ListSemantics> = {
  'metadata.ownerReferences': { type: 'map', keys: ['uid'] },
  'metadata.finalizers': { type: 'set' },
};

/**
 * The merge semantics of the list at `fieldPath` (field names from the object root, list
 * positions left out, e.g. `spec.template.spec.containers.ports`) of an object of `group`/`kind`.
 */
export function listSemantics(group: string, kind: string, fieldPath: readonly string[]): ListSemantics {
  const dotted = fieldPath.join('.');
  const meta = METADATA_LISTS[dotted];
  if (meta) return meta;
  const gk = `${group}/${kind}`;
  const podSpec = POD_SPEC_AT[gk];
  if (podSpec && dotted.startsWith(`${podSpec}.`)) return POD_SPEC_LISTS[dotted.slice(podSpec.length + 1)] ?? ATOMIC;
  return KIND_LISTS[gk]?.[dotted] ?? ATOMIC;
}
