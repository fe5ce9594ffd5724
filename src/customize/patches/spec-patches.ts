/**
 * The patch step of a provider as the operator runs it (`internal/controller/component_patches.go`):
 * `spec.patches` or `spec.manifestPatches`, never both.
 */
import { canonicalJson } from '../../manifest/canonical-json.js';
import type { KubeObject } from '../../manifest/object.js';
import type { ObjectMemo } from '../../manifest/object-memo.js';
import type { ProviderSpecFields } from '../../declarations/provider-spec.js';
import { applyManifestPatches, compileManifestPatch } from './manifest-patches.js';
import type { PatchContext, PatchStep } from './patch-context.js';
import { patchError } from './patch-text.js';
import { applyProviderPatches, compileProviderPatch } from './provider-patches.js';

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

/**
 * {@link applySpecPatches} with each object's patched form remembered in `memo`: an object every
 * environment shares is patched once. The patches run object by object here (each object through
 * every patch in order, which gives the same objects: a patch selects and changes one object at a
 * time); when anything is wrong — a malformed patch, a failing operation, a patch that matches
 * nothing — the patches run again the plain way, patch by patch, so the error is exactly the one
 * {@link applySpecPatches} reports.
 */
export function applySpecPatchesRemembered(
  objects: readonly KubeObject[],
  spec: Pick<ProviderSpecFields, 'patches' | 'manifestPatches'>,
  ctx: PatchContext,
  memo: ObjectMemo,
): KubeObject[] {
  const list =
    spec.patches != null && spec.manifestPatches != null
      ? undefined
      : spec.patches?.length
        ? spec.patches
        : spec.manifestPatches?.length
          ? spec.manifestPatches
          : undefined;
  if (list === undefined) return applySpecPatches(objects, spec, ctx);
  const key = canonicalJson({
    providerRef: ctx.providerRef,
    patches: spec.patches,
    manifestPatches: spec.manifestPatches,
  });
  try {
    const steps = memo.value(`patch-steps\u0000${key}`, (): PatchStep[] =>
      spec.patches?.length
        ? spec.patches.map((p, i) => compileProviderPatch(p, i, ctx))
        : spec.manifestPatches!.map((p, i) => compileManifestPatch(p, i, ctx)),
    );
    const results = memo.map(objects, `patches\u0000${key}`, (object) => {
      const selected: boolean[] = [];
      let current = object;
      for (const step of steps) {
        const selects = step.selects(current);
        selected.push(selects);
        if (selects) current = step.apply(current);
      }
      return { object: current, selected };
    });
    if (steps.every((_, i) => results.some((r) => r.selected[i]))) return results.map((r) => r.object);
  } catch {
    // Reported below, exactly as the plain way reports it.
  }
  return applySpecPatches(objects, spec, ctx);
}
