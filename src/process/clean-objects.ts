/**
 * Removes what must never be committed: `status` (runtime state; CRDs in release artifacts carry an
 * empty one), `metadata.creationTimestamp: null` (an artefact of typed round-trips in the tools
 * that built the artifact) and empty `rules` of aggregated ClusterRoles. Each would show as
 * permanent drift in Argo CD and Flux.
 */
import { getIn, setIn } from '../manifest/object.js';
import { withObject, type Resource } from '../manifest/resource.js';

export function cleanObjects(resources: readonly Resource[]): Resource[] {
  return resources.map((r) => {
    let obj = r.object;
    if ('status' in obj) obj = setIn(obj, ['status'], undefined);
    if (getIn(obj, ['metadata', 'creationTimestamp']) === null)
      obj = setIn(obj, ['metadata', 'creationTimestamp'], undefined);
    // An aggregated ClusterRole's rules are filled in by the controller manager; shipping `rules: []`
    // makes every GitOps sync wipe them and the aggregator put them back (endless drift).
    if (
      obj.kind === 'ClusterRole' &&
      obj.aggregationRule !== undefined &&
      Array.isArray(obj.rules) &&
      obj.rules.length === 0
    )
      obj = setIn(obj, ['rules'], undefined);
    return withObject(r, obj);
  });
}
