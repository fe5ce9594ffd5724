/**
 * The patch step of a provider as the operator runs it (`internal/controller/component_patches.go`):
 * `spec.patches` or `spec.manifestPatches`, never both.
 */
import type { KubeObject } from '../../manifest/object.js';
import type { ProviderSpecFields } from '../../declarations/provider-spec.js';
import { applyManifestPatches } from './manifest-patches.js';
import type { PatchContext } from './patch-context.js';
import { patchError } from './patch-text.js';
import { applyProviderPatches } from './provider-patches.js';

/**
 * Applies whichever of `spec.patches` / `spec.manifestPatches` the spec sets; with neither it
 * returns `objects` unchanged (a copy of the array). Both present is a SpecError code `patch`
 * with the operator's wording — even when one is an empty list, because the CRD's CEL rule
 * (`!(has(self.manifestPatches) && has(self.patches))`) already rejects such a CR. `null` counts
 * as absent (the API server drops null fields).
 */
export function applySpecPatches(
  objects: readonly KubeObject[],
  spec: Pick<ProviderSpecFields, 'patches' | 'manifestPatches'>,
  ctx: PatchContext,
): KubeObject[] {
  if (spec.patches != null && spec.manifestPatches != null) {
    throw patchError(
      { providerRef: ctx.providerRef, field: 'spec.patches' },
      "cannot use both 'patches' and 'manifestPatches'; please choose one",
      'move the manifestPatches into spec.patches (each as patch: with a target), since manifestPatches is the legacy form',
    );
  }
  if (spec.patches && spec.patches.length > 0) return applyProviderPatches(objects, spec.patches, ctx);
  if (spec.manifestPatches && spec.manifestPatches.length > 0)
    return applyManifestPatches(objects, spec.manifestPatches, ctx);
  return [...objects];
}
