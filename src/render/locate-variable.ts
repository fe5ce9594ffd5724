/**
 * Where a variable mapped `{fromEnv}` is written for an environment: the innermost overlay of its
 * chain whose `variables:` names it, else capi-render.yaml. Read only when such a variable is
 * reported (a value needed but unset), so finding the line costs nothing otherwise.
 */
import { readInputFile } from '../repository-files.js';
import { CONFIG_FILE } from '../config/config-types.js';
import { locateConfigSetting } from '../config/load-config.js';
import { normalizeInputText } from '../declarations/input-text.js';
import { parseSourceDocuments } from '../declarations/yaml-document.js';
import { isJsonObject } from '../manifest/object.js';

/** The file and, where it can be found, the line and column of `variables.<name>.fromEnv`. */
export async function locateVariable(repoRoot: string, overlays: readonly string[], name: string, inOverlay: boolean): Promise<{ file: string; line?: number; col?: number }> {
  const field = ['variables', name, 'fromEnv'] as const;
  if (inOverlay) {
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
      const variables = isJsonObject(doc?.value) ? doc.value.variables : undefined;
      if (!isJsonObject(variables) || !isJsonObject(variables[name])) continue;
      return { file, ...doc!.locate(field) };
    }
  }
  const at = locateConfigSetting(repoRoot, field);
  return at.file === CONFIG_FILE ? at : { file: CONFIG_FILE };
}
