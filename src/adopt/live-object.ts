/**
 * What a live object carries that no manifest sets:
 * server metadata, controller annotations, the operator's finalizer and owner references. Both
 * `import` (which must not copy them into declarations) and `check --live` (which must not call
 * them differences) use this one list.
 */
import { apiGroup, isJsonObject, type JsonObject, type KubeObject } from '../manifest/object.js';
import { OPERATOR_GROUP } from '../declarations/provider-kinds.js';

/** kubectl's client-side apply record; a copy of what was last applied, not state. */
export const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** Metadata fields the API server sets on every write. */
export const SERVER_METADATA = [
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'selfLink',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
] as const;

/** Annotations written by controllers or clients, never by a manifest. */
export const SERVER_ANNOTATIONS = [
  LAST_APPLIED,
  // The Deployment controller's revision counter.
  'deployment.kubernetes.io/revision',
  // The operator's hash of spec, config secret and cache (on its CRs and cache Secret).
  'operator.cluster.x-k8s.io/applied-spec-hash',
] as const;

/** The operator's finalizer on its provider CRs. */
export const OPERATOR_FINALIZER = 'provider.cluster.x-k8s.io';

/**
 * The identity of an object as the API server sees it: group, kind, namespace, name. The version is
 * not part of it (one object is served in every version of its group).
 */
export function liveKey(obj: KubeObject): string {
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const ns = typeof meta.namespace === 'string' ? meta.namespace : '';
  return `${obj.kind}.${apiGroup(obj.apiVersion)}/${ns}/${String(meta.name ?? '')}`;
}

/** `Kind/namespace/name` with the group when it is not the core group, for reports. */
export function describeLive(obj: KubeObject): string {
  const meta = isJsonObject(obj.metadata) ? obj.metadata : {};
  const group = apiGroup(obj.apiVersion);
  const kind = group ? `${obj.kind}.${group}` : obj.kind;
  return [
    kind,
    typeof meta.namespace === 'string' && meta.namespace ? meta.namespace : undefined,
    String(meta.name ?? ''),
  ]
    .filter((p) => p !== undefined)
    .join('/');
}

/**
 * Whether a controller made `obj` from another object (ReplicaSets, Pods, EndpointSlices,
 * CertificateRequests carry an owner reference). The operator's owner references to its provider
 * CRs do not count: the objects it applies are components, not generated.
 */
export function isGenerated(obj: KubeObject): boolean {
  const refs = isJsonObject(obj.metadata) ? obj.metadata.ownerReferences : undefined;
  if (!Array.isArray(refs)) return false;
  return refs.some(
    (r) => isJsonObject(r) && typeof r.apiVersion === 'string' && apiGroup(r.apiVersion) !== OPERATOR_GROUP,
  );
}

/** Metadata without what the server and controllers add; labels and annotations kept. */
export function declaredMetadata(meta: JsonObject): JsonObject {
  const out: JsonObject = { ...meta };
  for (const key of SERVER_METADATA) delete out[key];
  delete out.ownerReferences;
  if (isJsonObject(meta.annotations)) {
    const annotations = { ...meta.annotations };
    for (const key of SERVER_ANNOTATIONS) delete annotations[key];
    if (Object.keys(annotations).length > 0) out.annotations = annotations;
    else delete out.annotations;
  }
  if (Array.isArray(meta.finalizers)) {
    const finalizers = meta.finalizers.filter((f) => f !== OPERATOR_FINALIZER);
    if (finalizers.length > 0) out.finalizers = finalizers;
    else delete out.finalizers;
  }
  return out;
}
