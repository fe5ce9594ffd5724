/** Layers gitops settings: later values win, nested blocks (protect, argocd, flux) field by field. */
import type { GitopsConfig } from '../config/config-types.js';

export function mergeGitopsConfig(base: GitopsConfig, over: GitopsConfig): GitopsConfig {
  return {
    ...base,
    ...over,
    ...(base.protect || over.protect ? { protect: { ...base.protect, ...over.protect } } : {}),
    ...(base.argocd || over.argocd ? { argocd: { ...base.argocd, ...over.argocd } } : {}),
    ...(base.flux || over.flux ? { flux: { ...base.flux, ...over.flux } } : {}),
  };
}
