/**
 * Decides what kind of patch a `spec.patches[].patch` text is, the way the operator infers it:
 * a YAML sequence of operations is an RFC 6902 JSON Patch, a mapping is an RFC 7396 merge patch.
 * Operation shapes are checked here, before any object is touched, and every malformed
 * operation is reported at once.
 */
import { SpecError, error, type Diagnostic } from '../../errors.js';
import { isJsonObject, type JsonObject, type JsonValue } from '../../manifest/object.js';
import { describeType } from './json-containers.js';
import type { JsonPatchOperation } from './json-patch.js';
import { parseJsonPointer, PointerError } from './json-pointer.js';
import { parsePatchText, patchError, type PatchSite } from './patch-text.js';

/** A parsed `spec.patches[].patch`: an operation list or an object to merge. */
export type PatchDocument =
  { type: 'json6902'; operations: JsonPatchOperation[] } | { type: 'merge'; patch: JsonObject };

const OPS = ['add', 'remove', 'replace', 'move', 'copy', 'test'] as const;

/** Parses and classifies one patch text; throws SpecError code `patch` naming the site. */
export function readPatchDocument(text: string, site: PatchSite): PatchDocument {
  const value = parsePatchText(text, site);
  if (isJsonObject(value)) return { type: 'merge', patch: value };
  if (!Array.isArray(value)) {
    throw patchError(site, `is ${describeType(value)}; a patch is an RFC 6902 operation list or an object to merge`);
  }
  if (value.length === 0) {
    // The operator fails the same way ("rfc6902 patch is nil") once the patch meets an object.
    throw patchError(site, 'is an empty operation list', 'remove the patch or add operations to it');
  }
  return { type: 'json6902', operations: readJsonPatchOperations(value, site) };
}

/**
 * Checks each item of an operation list: a mapping with a known `op`, a string `path`, a string
 * `from` for `move`/`copy`, and a `value` member for `add`/`replace`/`test` (`value: null` is a
 * value). Other members are ignored, as RFC 6902 says.
 */
export function readJsonPatchOperations(items: readonly JsonValue[], site: PatchSite): JsonPatchOperation[] {
  const problems: Diagnostic[] = [];
  const operations: JsonPatchOperation[] = [];
  items.forEach((item, index) => {
    const problem = (message: string, hint?: string): void => {
      problems.push(
        error('patch', `${site.providerRef} ${site.field}: operation ${index} ${message}`, {
          object: site.providerRef,
          field: `${site.field}[${index}]`,
          ...(hint ? { hint } : {}),
        }),
      );
    };
    if (!isJsonObject(item)) return problem(`is ${describeType(item)}, not a mapping with op and path`);
    const { op, path, from } = item;
    if (typeof op !== 'string' || !(OPS as readonly string[]).includes(op)) {
      return problem(op === undefined ? 'has no op' : `has op ${JSON.stringify(op)}`, `op is one of ${OPS.join(', ')}`);
    }
    if (typeof path !== 'string')
      return problem(
        `(${op}) path is ${describeType(path)}, not a string`,
        'path is a JSON Pointer such as /spec/replicas',
      );
    const badPointer = checkPointer(path) ?? (typeof from === 'string' ? checkPointer(from) : undefined);
    if (badPointer)
      return problem(
        `(${op} ${path}) ${badPointer}`,
        'a JSON Pointer starts with / and escapes "~" as ~0 and "/" as ~1',
      );
    switch (op) {
      case 'remove':
        return void operations.push({ op, path });
      case 'move':
      case 'copy':
        if (typeof from !== 'string') return problem(`(${op} ${path}) from is ${describeType(from)}, not a string`);
        return void operations.push({ op, from, path });
      default:
        // The operator would send `value: null` for a missing value; a forgotten value is a mistake.
        if (!Object.hasOwn(item, 'value'))
          return problem(`(${op} ${path}) has no value`, 'write value: null to use null');
        return void operations.push({ op: op as 'add' | 'replace' | 'test', path, value: item.value as JsonValue });
    }
  });
  if (problems.length > 0) throw new SpecError(problems);
  return operations;
}

function checkPointer(pointer: string): string | undefined {
  try {
    parseJsonPointer(pointer);
    return undefined;
  } catch (e) {
    if (e instanceof PointerError) return e.message;
    throw e;
  }
}
