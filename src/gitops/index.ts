/**
 * The GitOps flavour stage: annotate rendered objects for Argo CD, Flux or plain kustomize and
 * produce the consumer files. Everything else in this folder is internal.
 */
export { applyGitopsFlavour, type GitopsDeps, type GitopsMemo } from './apply-gitops-flavour.js';
export { lastAppliedSize, ANNOTATIONS_SIZE_LIMIT, SSA_SIZE_MARGIN, SSA_SIZE_THRESHOLD } from './last-applied-size.js';
export type {
  GitopsFlavour,
  GitopsOptions,
  GitopsResult,
  ArgocdOptions,
  FluxOptions,
  FluxSourceRef,
} from './options.js';
export { ARGOCD_WAVES } from './argocd.js';
