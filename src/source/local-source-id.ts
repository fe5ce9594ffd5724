/**
 * How the lock names a release read from one of capi-render.yaml's `repositories:`: the kind and
 * the provider's label, never the folder's path (`local:cluster-api`). No imports beyond the id
 * format, so the no-op build can read lock entries without loading the source modules.
 */
import { releaseSourceId } from './release-source.js';

/** The lock's id of a provider's releases in a configured local repository: the kind and the label, no path. */
export function configuredLocalSourceId(label: string): string {
  return releaseSourceId('local', label);
}

/** The label of a configured local repository's id (`local:<label>`), undefined for any other id. */
export function configuredLocalLabel(sourceId: string): string | undefined {
  return /^local:([^/]+)$/.exec(sourceId)?.[1];
}
