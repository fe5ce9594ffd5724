/**
 * Reads a rendered output tree (`<env>/<component>/<kind>-<name>.yaml`) back into objects for the
 * object-level diff. kustomization.yaml files and anything not at component depth (GitOps wrappers)
 * are not provider objects and are skipped. Both sides of a diff go through this one reader, so a
 * difference is always a difference of the files.
 */
import jsYaml from 'js-yaml';
import type { RenderedSide } from '../diff/types.js';
import { SpecError, error } from '../errors.js';
import { isJsonObject, type KubeObject } from '../manifest/object.js';

/** The objects of a file tree; `environments` limits it (default: every environment folder). */
export function renderedSide(
  files: ReadonlyMap<string, string>,
  where: string,
  environments?: readonly string[],
): RenderedSide {
  const out: RenderedSide = { environments: {} };
  for (const [rel, text] of files) {
    const parts = rel.split('/');
    if (parts.length !== 3 || !/\.ya?ml$/.test(parts[2]!) || parts[2] === 'kustomization.yaml') continue;
    const [env, component] = parts as [string, string, string];
    if (environments && environments.length > 0 && !environments.includes(env)) continue;
    let docs: unknown[];
    try {
      docs = jsYaml.loadAll(text);
    } catch (e) {
      throw new SpecError(
        error(
          'output',
          `${where}/${rel} is not valid YAML: ${(e as { reason?: string }).reason ?? (e as Error).message}`,
          { file: `${where}/${rel}` },
        ),
      );
    }
    const objects = docs.filter((d): d is KubeObject => isJsonObject(d) && typeof d.kind === 'string');
    const components = (out.environments[env] ??= {});
    components[component] = [...(components[component] ?? []), ...objects];
  }
  return out;
}
