/**
 * Reads and validates capi-render.yaml. A missing file means the defaults; a present one must be
 * valid in full (every problem reported at once, each with file:line:col).
 */
import { SpecError, error } from '../errors.js';
import { schemaDiagnostics } from '../declarations/schema-diagnostics.js';
import { isJsonObject } from '../manifest/object.js';
import { parseSourceDocuments } from '../declarations/yaml-document.js';
import { CONFIG_SCHEMA } from './config-schema.js';
import { validatorOnce, type ValidatorSpec } from '../schema-validator.js';
import { normalizeInputText } from '../declarations/input-text.js';
import { readInputFile, readInputFileSync } from '../repository-files.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import { NO_VALIDATION_MEMO, type ValidationMemo } from '../declarations/schema/validation-memo.js';
import { CONFIG_FILE, DEFAULT_CONFIG, type RenderConfig } from './config-types.js';

/** Loads `<repoRoot>/capi-render.yaml`, or returns the defaults when it does not exist. */
export async function loadConfig(repoRoot: string, memo: ValidationMemo = NO_VALIDATION_MEMO): Promise<RenderConfig> {
  const read = await readInputFile(repoRoot, CONFIG_FILE);
  return read === undefined
    ? { ...DEFAULT_CONFIG }
    : parseConfig(normalizeInputText(read.bytes.toString('utf8')), CONFIG_FILE, memo);
}

/** The config's validator (precompiled by `npm run build`, src/schema-validator.ts). */
export const CONFIG_VALIDATOR: ValidatorSpec = {
  schema: CONFIG_SCHEMA,
  options: { allErrors: true, strict: true, validateSchema: false, code: { optimize: false } },
};

const validator = validatorOnce(CONFIG_VALIDATOR);

/** Parses config text; `file` is used in diagnostics. */
export function parseConfig(text: string, file: string, memo: ValidationMemo = NO_VALIDATION_MEMO): RenderConfig {
  const docs = parseSourceDocuments(text, file);
  if (docs.length !== 1) {
    throw new SpecError(
      error('config', `${file} must hold exactly one YAML document, found ${docs.length}`, { file, line: 1, col: 1 }),
    );
  }
  const doc = docs[0]!;
  const subject = `config\n${canonicalJson(doc.value)}`;
  if (!memo.passed(subject)) {
    const validate = validator();
    if (!validate(doc.value))
      throw new SpecError(schemaDiagnostics(validate.errors ?? [], doc, 'config', CONFIG_SCHEMA));
    memo.remember(subject);
  }
  const value = doc.value as Record<string, unknown>;
  return {
    ...DEFAULT_CONFIG,
    ...(value as Partial<RenderConfig>),
    repositories: (value.repositories as RenderConfig['repositories']) ?? [],
    variables: isJsonObject(value.variables) ? (value.variables as RenderConfig['variables']) : {},
    images: isJsonObject(value.images) ? (value.images as RenderConfig['images']) : {},
    certManager: isJsonObject(value.certManager) ? value.certManager : {},
    secrets: isJsonObject(value.secrets) ? value.secrets : {},
    gitops: isJsonObject(value.gitops) ? value.gitops : {},
    github: isJsonObject(value.github) ? value.github : {},
    gitlab: isJsonObject(value.gitlab) ? value.gitlab : {},
    providers: (value.providers as RenderConfig['providers']) ?? [],
  };
}

/**
 * Where a setting of capi-render.yaml is written, for errors about its value (the file alone when
 * the setting is not in the file, e.g. a default).
 */
export function locateConfigSetting(
  repoRoot: string,
  field: readonly (string | number)[],
): { file: string; line?: number; col?: number } {
  let text: string;
  try {
    const read = readInputFileSync(repoRoot, CONFIG_FILE);
    if (!read) return { file: CONFIG_FILE };
    text = normalizeInputText(read.bytes.toString('utf8'));
  } catch {
    // Whatever is wrong with the file itself is reported where it is loaded.
    return { file: CONFIG_FILE };
  }
  const doc = parseSourceDocuments(text, CONFIG_FILE)[0];
  let value: unknown = doc?.value;
  for (const key of field)
    value =
      typeof key === 'number'
        ? Array.isArray(value)
          ? value[key]
          : undefined
        : isJsonObject(value)
          ? value[key]
          : undefined;
  if (!doc || value === undefined) return { file: CONFIG_FILE };
  return { file: CONFIG_FILE, ...doc.locate(field) };
}
