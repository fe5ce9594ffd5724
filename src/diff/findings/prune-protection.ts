/**
 * What an applier really does with an object that leaves the rendered output, read from the
 * annotations the object was last applied with (the live object carries them, and Argo CD and Flux
 * read the live object when they decide to prune): Argo CD skips pruning on `Prune=false` and keeps
 * the object when the Application is deleted on `Delete=false` (argocd docs, sync-options.md);
 * Flux's kustomize-controller skips garbage collection on `kustomize.toolkit.fluxcd.io/prune:
 * disabled`. capi-render's GitOps stage puts these on CRDs and Namespaces by default.
 */
import { annotationsOf, type KubeObject } from '../../manifest/object.js';
import { ARGOCD_SYNC_OPTIONS, DISABLED, FLUX_PRUNE } from '../../gitops/annotations.js';

/** How an object that is no longer rendered is treated; `undefined` fields: that applier prunes it. */
export interface PruneProtection {
  /** `kept`: Prune=false and Delete=false; `kept-until-app-deleted`: Prune=false only. */
  argocd?: 'kept' | 'kept-until-app-deleted';
  /** Flux leaves it in the cluster. */
  flux?: 'kept';
}

/** The protection the object's own annotations give it; an empty object when every applier prunes it. */
export function pruneProtection(object: KubeObject): PruneProtection {
  const annotations = annotationsOf(object);
  const options = (annotations[ARGOCD_SYNC_OPTIONS] ?? '').split(',').map((o) => o.trim());
  const out: PruneProtection = {};
  if (options.includes('Prune=false'))
    out.argocd = options.includes('Delete=false') ? 'kept' : 'kept-until-app-deleted';
  if (annotations[FLUX_PRUNE] === DISABLED) out.flux = 'kept';
  return out;
}

/** Whether any applier leaves the object in the cluster when it leaves git. */
export function isLeftBehind(protection: PruneProtection): boolean {
  return protection.argocd !== undefined || protection.flux !== undefined;
}

/**
 * One sentence naming the annotations that keep the object, e.g.
 * "Argo CD (`Prune=false,Delete=false`) and Flux (`prune: disabled`) leave it in the cluster".
 */
export function describeProtection(protection: PruneProtection): string {
  const parts: string[] = [];
  if (protection.argocd === 'kept') parts.push('Argo CD (`Prune=false`, `Delete=false`)');
  if (protection.argocd === 'kept-until-app-deleted') parts.push('Argo CD (`Prune=false`)');
  if (protection.flux) parts.push('Flux (`kustomize.toolkit.fluxcd.io/prune: disabled`)');
  return `${parts.join(' and ')} ${parts.length === 1 ? 'leaves' : 'leave'} it in the cluster`;
}
