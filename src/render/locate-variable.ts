/**
 * Where a variable mapped `{fromEnv}` is written for an environment: the innermost overlay of its
 * chain whose `variables:` names it, else capi-render.yaml.
 */
import { isJsonObject } from '../manifest/object.js';
import { locateOverlaySetting } from './locate-overlay-setting.js';

/** The file and, where it can be found, the line and column of `variables.<name>.fromEnv`. */
export function locateVariable(
  repoRoot: string,
  overlays: readonly string[],
  name: string,
  inOverlay: boolean,
): Promise<{ file: string; line?: number; col?: number }> {
  return locateOverlaySetting(
    repoRoot,
    inOverlay ? overlays : [],
    ['variables', name, 'fromEnv'],
    (overlay) => isJsonObject(overlay.variables) && isJsonObject(overlay.variables[name]),
  );
}
