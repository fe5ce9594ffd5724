/**
 * Removes what must never be committed: `status` (runtime state; CRDs in release artifacts carry an
 * empty one) and `metadata.creationTimestamp: null` (an artefact of typed round-trips in the tools
 * that built the artifact). Both would show as permanent drift in Argo CD and Flux.
 */
import { getIn, setIn, type KubeObject } from '../manifest/object.js';
import { withObject, type Resource } from '../manifest/resource.js';

export function cleanObjects(resources: readonly Resource[]): Resource[] {
  return resources.map((r) => {
    let obj = r.object;
    if ('status' in obj) obj = setIn(obj, ['status'], undefined);
    if (getIn(obj, ['metadata', 'creationTimestamp']) === null) obj = setIn(obj, ['metadata', 'creationTimestamp'], undefined);
    return withObject(r, obj as KubeObject);
  });
}
