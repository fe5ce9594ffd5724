/**
 * The identity an object keeps across versions of a rendered tree: kind, API group, namespace and
 * name, without the API version (a webhook configuration moving from v1beta1 to v1 is the same
 * object to the cluster, and Argo CD / Flux track it as such).
 */
import { SpecError } from '../errors.js';
import { apiGroup, describeObject, nameOf, namespaceOf, type KubeObject } from '../manifest/object.js';

/** `Kind[.group]/[namespace/]name`, e.g. `CustomResourceDefinition.apiextensions.k8s.io/clusters.cluster.x-k8s.io`. */
export function formatObjectKey(object: KubeObject): string {
  const group = apiGroup(object.apiVersion);
  const kind = group ? `${object.kind}.${group}` : object.kind;
  const namespace = namespaceOf(object);
  return namespace ? `${kind}/${namespace}/${nameOf(object)}` : `${kind}/${nameOf(object)}`;
}

/**
 * Indexes the objects of one component by key. Two objects with the same key cannot both be
 * applied (the second overwrites the first), so that is an input error, reported with the env and
 * component it was found in.
 */
export function indexObjects(
  objects: readonly KubeObject[],
  where: { env: string; component: string },
): Map<string, KubeObject> {
  const index = new Map<string, KubeObject>();
  for (const object of objects) {
    const key = formatObjectKey(object);
    if (index.has(key)) {
      throw new SpecError({
        severity: 'error',
        code: 'diff-duplicate-object',
        message: `${where.env}/${where.component} contains ${describeObject(object)} twice`,
        object: describeObject(object),
        hint: 'each rendered component must hold an object once; re-render the tree',
      });
    }
    index.set(key, object);
  }
  return index;
}
