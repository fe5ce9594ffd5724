/**
 * Every annotation and label key capi-render writes on a rendered object, by whose it is, so
 * `check --live` can tell a real change from capi-render's own bookkeeping.
 *
 * Design notes: docs/internals.md "adopt/live/own-metadata.ts".
 */
import {
  ARGOCD_SYNC_OPTIONS,
  ARGOCD_SYNC_WAVE,
  CA_INJECTION_ANNOTATIONS,
  FLUX_PRUNE,
  FLUX_SUBSTITUTE,
} from '../../gitops/annotations.js';
import { CLUSTERCTL_CORE_LABEL, CLUSTERCTL_LABEL, PROVIDER_LABEL } from '../../process/common-labels.js';
import { CERT_MANAGER_VERSION_ANNOTATION } from '../../render/cert-manager.js';
import { LAST_APPLIED } from '../live-object.js';

export type MetadataOwner = 'own' | 'clusterctl' | 'server';

/** Key → whose it is, for every annotation and label key capi-render writes. */
export const WRITTEN_METADATA: ReadonlyMap<string, MetadataOwner> = new Map<string, MetadataOwner>([
  [ARGOCD_SYNC_WAVE, 'own'],
  [ARGOCD_SYNC_OPTIONS, 'own'],
  [FLUX_PRUNE, 'own'],
  [FLUX_SUBSTITUTE, 'own'],
  [CLUSTERCTL_LABEL, 'clusterctl'],
  [PROVIDER_LABEL, 'clusterctl'],
  [CLUSTERCTL_CORE_LABEL, 'clusterctl'],
  [CERT_MANAGER_VERSION_ANNOTATION, 'clusterctl'],
  [CA_INJECTION_ANNOTATIONS[0], 'clusterctl'],
  // The inventory CRD's generator version, as clusterctl's embedded CRD carries it.
  ['controller-gen.kubebuilder.io/version', 'clusterctl'],
  [LAST_APPLIED, 'server'],
]);

const FIELD = /^metadata\.(annotations|labels)\[("(?:[^"\\]|\\.)*")\]$/;

/** Whether a reported field path (`metadata.annotations["key"]`, `metadata.labels["key"]`) is one of capi-render's own keys. */
export function isOwnMetadataPath(path: string): boolean {
  const m = FIELD.exec(path);
  return m !== null && WRITTEN_METADATA.get(JSON.parse(m[2]!) as string) === 'own';
}
