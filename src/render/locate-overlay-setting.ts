/**
 * Where a setting is written for an environment: the innermost overlay of its chain that sets it,
 * else capi-render.yaml. Read only when a setting is reported, so finding the line costs nothing
 * otherwise.
 */
import { readInputFile } from '../repository-files.js';
import { CONFIG_FILE } from '../config/config-types.js';
import { locateConfigSetting } from '../config/load-config.js';
import { normalizeInputText } from '../declarations/input-text.js';
import { parseSourceDocuments } from '../declarations/yaml-document.js';
import { isJsonObject, type JsonObject } from '../manifest/object.js';

/**
 * The file and, where it can be found, the line and column of `field`: the first overlay from the
 * innermost out whose document `setsIt`, else capi-render.yaml.
 */
export async function locateOverlaySetting(
  repoRoot: string,
  overlays: readonly string[],
  field: readonly (string | number)[],
  setsIt: (overlay: JsonObject) => boolean,
): Promise<{ file: string; line?: number; col?: number }> {
  for (const file of [...overlays].reverse()) {
    let text: string;
    try {
      const read = await readInputFile(repoRoot, file);
      if (!read) continue;
      text = normalizeInputText(read.bytes.toString('utf8'));
    } catch {
      continue;
    }
    const doc = parseSourceDocuments(text, file)[0];
    if (!doc || !isJsonObject(doc.value) || !setsIt(doc.value)) continue;
    return { file, ...doc.locate(field) };
  }
  const at = locateConfigSetting(repoRoot, field);
  return at.file === CONFIG_FILE ? at : { file: CONFIG_FILE };
}
