/**
 * A patch must not change what an object *is*. The id (apiVersion, kind, namespace, name) is how
 * every later step addresses an object — namespace fix-up, image overrides, ordering, output
 * file names, the lock file — and how the cluster tells one object from another, so a patch that
 * renames or re-kinds an object would silently drop the original and create a stranger. The
 * common way to get here by accident is a merge patch carrying `kind:`/`apiVersion:` lines
 * applied without a target: the operator rewrites every object's kind.
 */
import { isJsonObject, nameOf, namespaceOf, type JsonValue, type KubeObject } from '../../manifest/object.js';
import { describeType } from './json-containers.js';
import { patchError, type PatchSite } from './patch-text.js';

/**
 * Returns `after` as a KubeObject when it has the same apiVersion, kind, namespace and name as
 * `before`; otherwise throws SpecError code `patch` naming the field that changed.
 */
export function checkIdentityKept(
  before: KubeObject,
  after: JsonValue,
  site: PatchSite,
  objectRef: string,
): KubeObject {
  if (!isJsonObject(after)) {
    throw patchError(site, `turned ${objectRef} into ${describeType(after)}`, 'a patch must leave an object an object');
  }
  const changes: string[] = [];
  const compare = (field: string, was: unknown, now: unknown): void => {
    if (was !== now) changes.push(`${field} ${JSON.stringify(was) ?? 'unset'} → ${JSON.stringify(now) ?? 'unset'}`);
  };
  compare('apiVersion', before.apiVersion, after.apiVersion);
  compare('kind', before.kind, after.kind);
  compare('metadata.namespace', namespaceOf(before), namespaceOf(after));
  compare('metadata.name', nameOf(before), nameOf(after));
  if (changes.length > 0) {
    throw patchError(
      site,
      `would change the identity of ${objectRef} (${changes.join(', ')}); every later step and the cluster know an object by its apiVersion, kind, namespace and name`,
      'narrow the target so the patch only meets objects whose identity it repeats unchanged, or drop the identity fields from the patch; to add a different object use additionalManifests',
    );
  }
  return after as KubeObject;
}
