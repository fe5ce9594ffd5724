/** Reads and validates one overlay.yaml (every problem at once, with positions). */
import { SpecError, error } from '../errors.js';
import { schemaDiagnostics } from '../declarations/schema-diagnostics.js';
import { parseSourceDocuments, type SourceDocument } from '../declarations/yaml-document.js';
import { OVERLAY_SCHEMA } from './overlay-schema.js';
import { validatorOnce, type ValidatorSpec } from '../schema-validator.js';
import { normalizeInputText } from '../declarations/input-text.js';
import { readInputFile } from '../repository-files.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import { NO_VALIDATION_MEMO, type ValidationMemo } from '../declarations/schema/validation-memo.js';
import type { OverlaySpec } from './overlay-types.js';

export interface LoadedOverlay {
  spec: OverlaySpec;
  /** The file's text, for the environment's inputs hash. */
  text: string;
  /** Repository-relative path of the overlay.yaml. */
  file: string;
  doc: SourceDocument;
}

/** The overlay's validator (precompiled by `npm run build`, src/schema-validator.ts). */
export const OVERLAY_VALIDATOR: ValidatorSpec = {
  schema: OVERLAY_SCHEMA,
  options: { allErrors: true, strict: true, strictRequired: false, validateSchema: false, code: { optimize: false } },
};

const validate = validatorOnce(OVERLAY_VALIDATOR);

/** Loads an overlay file; a build passes a memoised one so each file is read and parsed once. */
export type OverlayLoader = (repoRoot: string, file: string) => Promise<LoadedOverlay>;

/** A loader that reads each file once. */
export function memoizedOverlayLoader(memo: ValidationMemo = NO_VALIDATION_MEMO): OverlayLoader {
  const loaded = new Map<string, Promise<LoadedOverlay>>();
  return (repoRoot, file) => {
    let pending = loaded.get(file);
    if (!pending) {
      pending = loadOverlay(repoRoot, file, memo);
      loaded.set(file, pending);
    }
    return pending;
  };
}

export async function loadOverlay(
  repoRoot: string,
  file: string,
  memo: ValidationMemo = NO_VALIDATION_MEMO,
): Promise<LoadedOverlay> {
  const read = await readInputFile(repoRoot, file);
  if (read === undefined) throw new SpecError(error('input-path', `${file} does not exist`, { file }));
  const text = normalizeInputText(read.bytes.toString('utf8'));
  const docs = parseSourceDocuments(text, file);
  if (docs.length !== 1)
    throw new SpecError(
      error('overlay', `${file} must hold exactly one YAML document, found ${docs.length}`, { file, line: 1, col: 1 }),
    );
  const doc = docs[0]!;
  const subject = `overlay\n${canonicalJson(doc.value)}`;
  if (!memo.passed(subject)) {
    const check = validate();
    if (!check(doc.value)) throw new SpecError(schemaDiagnostics(check.errors ?? [], doc, 'overlay', OVERLAY_SCHEMA));
    memo.remember(subject);
  }
  return { spec: doc.value as unknown as OverlaySpec, text, file, doc };
}
