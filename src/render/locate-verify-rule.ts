/**
 * Where `imagePolicy.verify[index]` is written for an environment: the innermost overlay of its
 * chain that sets `imagePolicy.verify` (overlays override capi-render.yaml field by field), else
 * capi-render.yaml. Read only when a rule is reported, so finding the line costs nothing otherwise.
 */
import { readInputFile } from '../repository-files.js';
import { CONFIG_FILE } from '../config/config-types.js';
import { locateConfigSetting } from '../config/load-config.js';
import { normalizeInputText } from '../declarations/input-text.js';
import { parseSourceDocuments } from '../declarations/yaml-document.js';
import { isJsonObject } from '../manifest/object.js';

/** The file and, where it can be found, the line and column of the rule's `images`. */
export async function locateVerifyRule(repoRoot: string, overlays: readonly string[], index: number): Promise<{ file: string; line?: number; col?: number }> {
  const field = ['imagePolicy', 'verify', index, 'images'] as const;
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
    const policy = isJsonObject(doc?.value) ? doc.value.imagePolicy : undefined;
    if (!isJsonObject(policy) || policy.verify === undefined) continue;
    return { file, ...doc!.locate(field) };
  }
  const at = locateConfigSetting(repoRoot, field);
  return at.file === CONFIG_FILE ? at : { file: CONFIG_FILE };
}
