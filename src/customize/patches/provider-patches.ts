/**
 * `spec.patches`: the operator's generic patches (`internal/patch/patch.go`
 * `ApplyGenericPatches`). Each patch has a YAML text — an RFC 6902 operation list or an object
 * applied as an RFC 7396 merge patch — and an optional target.
 */
import { describeObject, type KubeObject } from '../../manifest/object.js';
import type { Patch } from '../../declarations/provider-spec.js';
import { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from './json-patch.js';
import { applyMergePatch } from './merge-patch.js';
import { describeAvailableObjects, versionHint } from './no-match-hint.js';
import { checkIdentityKept } from './object-identity.js';
import type { PatchContext, PatchStep } from './patch-context.js';
import { readPatchDocument, type PatchDocument } from './patch-document.js';
import { patchError, type PatchSite } from './patch-text.js';
import { compileTarget, describeTarget } from './target.js';

/**
 * Applies `spec.patches` in order, each to every object its target selects (no target: every
 * object), each seeing the result of the ones before. Returns a new array in the same order;
 * objects a patch does not change keep their identity, and inputs are never mutated.
 *
 * Throws SpecError code `patch`, naming `spec.patches[i]` and its target, when: the patch text is
 * not YAML, empty, or neither an operation list nor an object; an operation is malformed or fails
 * (with the operation's index and path); the label selector is invalid; the target matches no
 * object (the operator silently does nothing; the hint lists the kinds and names that exist);
 * or a patch would change an object's apiVersion, kind, namespace or name.
 */
export function applyProviderPatches(
  objects: readonly KubeObject[],
  patches: readonly Patch[],
  ctx: PatchContext,
): KubeObject[] {
  let current: KubeObject[] = [...objects];
  patches.forEach((patch, index) => {
    const step = compileProviderPatch(patch, index, ctx);
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

/** One patch, ready to apply to one object at a time; throws for a malformed patch or target. */
export function compileProviderPatch(patch: Patch, index: number, ctx: PatchContext): PatchStep {
  const site: PatchSite = { providerRef: ctx.providerRef, field: `spec.patches[${index}]` };
  const textSite: PatchSite = { ...site, field: `${site.field}.patch` };
  if (typeof patch.patch !== 'string')
    throw patchError(
      textSite,
      'is missing or not a string',
      'patch holds the patch as YAML text (a block scalar: patch: |)',
    );
  const document = readPatchDocument(patch.patch, textSite);
  const selects = compileTarget(patch.target, site);
  const target = describeTarget(patch.target);
  return {
    selects,
    apply: (object) => applyDocument(object, document, textSite, target),
    noMatch(current) {
      const hints = [
        versionHint(patch.target?.version, current),
        describeAvailableObjects(current, patch.target?.kind),
      ];
      throw patchError(site, `target ${target} matches no object`, hints.filter(Boolean).join('; '));
    },
  };
}

function applyDocument(object: KubeObject, document: PatchDocument, site: PatchSite, target: string): KubeObject {
  const ref = describeObject(object);
  const refAndTarget = `${ref} (target ${target})`;
  if (document.type === 'merge')
    return checkIdentityKept(object, applyMergePatch(object, document.patch), site, refAndTarget);
  try {
    return checkIdentityKept(object, applyJsonPatch(object, document.operations), site, refAndTarget);
  } catch (e) {
    if (!(e instanceof JsonPatchError)) throw e;
    // The field names the operation: spec.patches[i].patch[j] is operation j of patch i.
    const { op, path } = e.operation;
    throw patchError(
      { ...site, field: `${site.field}[${e.opIndex}]` },
      `operation ${e.opIndex} (${op} ${path === '' ? '""' : path}) failed on ${refAndTarget}: ${e.reason}`,
      OPERATION_HINTS[op],
    );
  }
}

const OPERATION_HINTS: Record<JsonPatchOperation['op'], string> = {
  add: 'add creates only the last path segment: add missing parents first (e.g. add /metadata/annotations with value {}); /- appends to a list',
  remove: 'remove needs an existing value; -1 is the last list element',
  replace: 'replace needs an existing value; use add to create one',
  move: 'move needs an existing from, and the destination parent must exist once from is removed',
  copy: 'copy needs an existing from and an existing destination parent',
  test: 'test compares with the value as it is at that point of the patch; null matches a missing member',
};
