/**
 * Reads the YAML text of one patch (a `spec.patches[].patch` or a `spec.manifestPatches[]`
 * string) into a JSON value. The text is something a person wrote inside a provider CR, so it is
 * read with the `yaml` package (YAML 1.2 core schema: `on`/`yes` stay strings, duplicate keys are
 * errors) and problems point at a line and column of the patch text itself.
 */
import { SpecError, error } from '../../errors.js';
import type { JsonValue } from '../../manifest/object.js';
import { readYamlFast } from '../../declarations/yaml-document.js';
import { yamlLibrary } from '../../yaml-library.js';

/** Where a patch is declared, for messages: the provider CR and the field (`spec.patches[2].patch`). */
export interface PatchSite {
  providerRef: string;
  field: string;
}

/** Builds the SpecError (code `patch`) every patch problem is reported with. */
export function patchError(site: PatchSite, message: string, hint?: string): SpecError {
  return new SpecError(
    error('patch', `${site.providerRef} ${site.field}: ${message}`, {
      object: site.providerRef,
      field: site.field,
      ...(hint ? { hint } : {}),
    }),
  );
}

/**
 * Parses the patch text into a JSON value. An empty patch, more than one YAML document (the
 * operator silently reads only the first), YAML errors, and numbers JSON cannot carry (`.inf`,
 * `.nan`) are SpecErrors (code `patch`) naming the site.
 */
export function parsePatchText(text: string, site: PatchSite): JsonValue {
  // The fast path: well-formed, alias-free text read by js-yaml; problems go the positioned way.
  const fast = readYamlFast(text)?.filter((v) => v !== null && v !== undefined);
  if (fast && fast.length === 1) {
    assertJson(fast[0], site, '');
    return fast[0];
  }
  const { LineCounter, parseAllDocuments } = yamlLibrary();
  const lineCounter = new LineCounter();
  const parsed = parseAllDocuments(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  const documents = Array.isArray(parsed) ? parsed : [];
  for (const doc of documents) {
    const first = doc.errors[0];
    if (first) {
      const { line, col } = lineCounter.linePos(first.pos[0]);
      throw patchError(site, `is not valid YAML (line ${line}, column ${col} of the patch): ${first.message}`);
    }
  }
  // Documents that hold nothing (a trailing `---`, only comments) are dropped, as YAML readers do.
  const values = documents.map((doc) => toJs(doc, site)).filter((v) => v !== null && v !== undefined);
  if (values.length === 0) {
    throw patchError(site, 'is empty', 'write an RFC 6902 operation list (a YAML sequence) or an object to merge');
  }
  if (values.length > 1) {
    throw patchError(
      site,
      `holds ${values.length} YAML documents; a patch is one document`,
      'split it into one patch per document',
    );
  }
  const value = values[0];
  assertJson(value, site, '');
  return value;
}

function toJs(doc: { toJS(options: { maxAliasCount: number }): unknown }, site: PatchSite): unknown {
  try {
    return doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    // yaml throws here for alias bombs (too many alias expansions).
    throw patchError(site, `cannot be read: ${(e as Error).message}`);
  }
}

function assertJson(value: unknown, site: PatchSite, at: string): asserts value is JsonValue {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw patchError(site, `value at ${at || '/'} is ${value}, which JSON cannot represent`);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => assertJson(item, site, `${at}/${i}`));
    return;
  }
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const key of Object.keys(value)) assertJson((value as Record<string, unknown>)[key], site, `${at}/${key}`);
    return;
  }
  throw patchError(site, `value at ${at || '/'} is not plain JSON data`);
}
