/** Layers gitops settings: later values win, nested blocks (protect, argocd, flux) field by field. */
import type { GitopsConfig } from './options.js';
import type { ArgocdOptions, FluxOptions } from './options.js';

export function mergeGitopsConfig(base: GitopsConfig, over: GitopsConfig): GitopsConfig {
  return {
    ...base,
    ...over,
    ...(base.protect || over.protect ? { protect: { ...base.protect, ...over.protect } } : {}),
    ...(base.argocd || over.argocd ? { argocd: mergeArgocd(base.argocd ?? {}, over.argocd ?? {}) } : {}),
    ...(base.flux || over.flux ? { flux: mergeFlux(base.flux ?? {}, over.flux ?? {}) } : {}),
  };
}

function mergeArgocd(base: ArgocdOptions, over: ArgocdOptions): ArgocdOptions {
  // A destination is one cluster: an overlay naming its own replaces the inherited one whole, in
  // either spelling, so `name` never ends up beside an inherited `server`.
  const inherited =
    over.destination !== undefined || over.destinationServer !== undefined
      ? { ...base, destination: undefined, destinationServer: undefined }
      : base;
  const merged: ArgocdOptions = { ...inherited, ...over };
  if (base.plugin || over.plugin) merged.plugin = { ...base.plugin, ...over.plugin };
  if (base.hydrator || over.hydrator) merged.hydrator = { ...base.hydrator, ...over.hydrator };
  // As for Flux: the registry in capi-render.yaml, each environment's pinned digest in its overlay.
  if (base.oci || over.oci) merged.oci = { ...base.oci, ...over.oci };
  return dropUndefined(merged);
}

function mergeFlux(base: FluxOptions, over: FluxOptions): FluxOptions {
  const merged: FluxOptions = { ...base, ...over };
  // Typical split: the registry in capi-render.yaml, each environment's pinned digest in its overlay.
  if (base.oci && over.oci) merged.oci = { ...base.oci, ...over.oci };
  return merged;
}

function dropUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
