import type { KubeObject } from '../../manifest/object.js';

/** What the patch steps need to know about the provider they customise. */
export interface PatchContext {
  /** `Kind/namespace/name` of the provider CR, used in every message. */
  providerRef: string;
}

/** One compiled patch of `spec.patches` or `spec.manifestPatches`. */
export interface PatchStep {
  /** Whether the patch's target selects the object (as it is when this patch runs). */
  selects(object: KubeObject): boolean;
  /** The object patched; throws SpecError `patch` when an operation fails or the identity would change. */
  apply(object: KubeObject): KubeObject;
  /** Throws the "matches no object" error, with hints from the objects as they are at this patch. */
  noMatch(current: readonly KubeObject[]): never;
}
