/**
 * `spec.manifestPatches`: the operator's legacy patches (`internal/patch/patch.go`
 * `ApplyPatches`). Each string is a YAML object applied as an RFC 7396 merge patch to the
 * objects it names with its own `kind`, `apiVersion` and `metadata.name`/`namespace`.
 *
 * Matching follows the operator's documentation, not its `resource.matches` (which never
 * matches a patch without apiVersion, never compares apiVersion, and ignores the namespace):
 * see MANIFEST_PATCH_DEVIATIONS.
 */
import {
  describeObject,
  isJsonObject,
  nameOf,
  namespaceOf,
  type JsonObject,
  type JsonValue,
  type KubeObject,
} from '../../manifest/object.js';
import { describeType } from './json-containers.js';
import { applyMergePatch } from './merge-patch.js';
import { describeAvailableObjects } from './no-match-hint.js';
import { checkIdentityKept } from './object-identity.js';
import type { PatchContext, PatchStep } from './patch-context.js';
import { parsePatchText, patchError, type PatchSite } from './patch-text.js';

/** What a manifest patch selects: `kind` always; the others only when the patch sets them. */
interface ManifestPatchSelector {
  kind: string;
  apiVersion?: string;
  name?: string;
  namespace?: string;
}

/**
 * Applies `spec.manifestPatches` in order. A patch applies to every object whose kind equals the
 * patch's `kind` and, for each of `apiVersion`, `metadata.name`, `metadata.namespace` the patch
 * sets, whose value equals it too. Returns a new array in the same order; objects a patch does
 * not change keep their identity, and inputs are never mutated.
 *
 * Throws SpecError code `patch`, naming `spec.manifestPatches[i]`, when a patch is not YAML, not
 * one object, has no string `kind` or a non-string selector field, matches no object (the hint
 * lists what exists), or would change an object's identity.
 */
export function applyManifestPatches(
  objects: readonly KubeObject[],
  manifestPatches: readonly string[],
  ctx: PatchContext,
): KubeObject[] {
  let current: KubeObject[] = [...objects];
  manifestPatches.forEach((text, index) => {
    const step = compileManifestPatch(text, index, ctx);
    let matched = 0;
    current = current.map((object) => {
      if (!step.selects(object)) return object;
      matched++;
      return step.apply(object);
    });
    if (matched === 0) step.noMatch(current);
  });
  return current;
}

/** One manifest patch, ready to apply to one object at a time; throws for a malformed patch. */
export function compileManifestPatch(text: string, index: number, ctx: PatchContext): PatchStep {
  const site: PatchSite = { providerRef: ctx.providerRef, field: `spec.manifestPatches[${index}]` };
  if (typeof text !== 'string')
    throw patchError(site, 'is not a string', 'each manifest patch is YAML text (a block scalar: - |)');
  const patch = parsePatchText(text, site);
  if (!isJsonObject(patch)) {
    throw patchError(
      site,
      `is ${describeType(patch)}; a manifest patch is one object merged as RFC 7396`,
      'RFC 6902 operation lists go in spec.patches',
    );
  }
  const selector = readSelector(patch, site);
  return {
    selects: (object) => selects(selector, object),
    apply: (object) => checkIdentityKept(object, applyMergePatch(object, patch), site, describeObject(object)),
    noMatch(current) {
      throw patchError(
        site,
        `matches no object (${describeSelector(selector)})`,
        describeAvailableObjects(current, selector.kind),
      );
    },
  };
}

function readSelector(patch: JsonObject, site: PatchSite): ManifestPatchSelector {
  const { kind, apiVersion } = patch;
  if (typeof kind !== 'string' || kind === '') {
    throw patchError(
      site,
      `kind is ${describeType(kind)}; a manifest patch selects objects by its own kind`,
      'add kind (and apiVersion, metadata.name, metadata.namespace to narrow it)',
    );
  }
  const selector: ManifestPatchSelector = { kind };
  if (apiVersion !== undefined) selector.apiVersion = stringField(apiVersion, 'apiVersion', site);
  const metadata = patch.metadata;
  if (isJsonObject(metadata)) {
    if (metadata.name !== undefined) selector.name = stringField(metadata.name, 'metadata.name', site);
    if (metadata.namespace !== undefined)
      selector.namespace = stringField(metadata.namespace, 'metadata.namespace', site);
  }
  return selector;
}

function stringField(value: JsonValue, field: string, site: PatchSite): string {
  if (typeof value === 'string') return value;
  throw patchError(site, `${field} is ${describeType(value)}, not a string`, `remove ${field} or give it as a string`);
}

function selects(selector: ManifestPatchSelector, object: KubeObject): boolean {
  return (
    object.kind === selector.kind &&
    (selector.apiVersion === undefined || object.apiVersion === selector.apiVersion) &&
    (selector.name === undefined || nameOf(object) === selector.name) &&
    (selector.namespace === undefined || namespaceOf(object) === selector.namespace)
  );
}

function describeSelector(selector: ManifestPatchSelector): string {
  return Object.entries(selector)
    .map(([key, value]) => `${key}: ${value as string}`)
    .join(', ');
}
