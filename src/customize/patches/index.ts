/**
 * The patch step of a provider: `spec.patches` (RFC 6902 operation lists and RFC 7396 merge
 * patches with targets) and the legacy `spec.manifestPatches`, with the operator's semantics and
 * the deviations listed in MANIFEST_PATCH_DEVIATIONS.
 */
export { applyProviderPatches } from './provider-patches.js';
export { applyManifestPatches } from './manifest-patches.js';
export { applySpecPatches } from './spec-patches.js';
export {
  parseLabelSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelectorMatcher,
} from './label-selector.js';
export { MANIFEST_PATCH_DEVIATIONS } from './deviations.js';
export type { PatchContext } from './patch-context.js';
export type { Deviation } from '../deviation.js';
