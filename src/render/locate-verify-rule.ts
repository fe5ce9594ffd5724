/**
 * Where `imagePolicy.verify[index]` is written for an environment: the innermost overlay of its
 * chain that sets `imagePolicy.verify` (overlays override capi-render.yaml field by field), else
 * capi-render.yaml.
 */
import { isJsonObject } from '../manifest/object.js';
import { locateOverlaySetting } from './locate-overlay-setting.js';

/** The file and, where it can be found, the line and column of the rule's `images`. */
export function locateVerifyRule(
  repoRoot: string,
  overlays: readonly string[],
  index: number,
): Promise<{ file: string; line?: number; col?: number }> {
  return locateOverlaySetting(
    repoRoot,
    overlays,
    ['imagePolicy', 'verify', index, 'images'],
    (overlay) => isJsonObject(overlay.imagePolicy) && overlay.imagePolicy.verify !== undefined,
  );
}
