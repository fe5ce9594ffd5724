/**
 * Applies an overlay's `patches:` to the environment's input objects, with kustomize's semantics:
 * a mapping is a strategic-merge patch — for these custom resources kustomize has no schema, so it
 * merges maps, replaces lists whole and deletes keys set to null (measured with kustomize 5.5), and a
 * top-level `$patch: delete` removes the object; a sequence is an RFC 6902 operation list. Without a
 * target a strategic-merge patch names its object by apiVersion, kind, name (and namespace). A patch
 * that matches nothing is an error (kustomize would silently do nothing for a target that matches
 * nothing). Patched objects remember which patch wrote which fields, so later errors point at the
 * overlay line that introduced a bad value.
 */
import { SpecError, error } from '../errors.js';
import {
  annotationsOf,
  isJsonObject,
  labelsOf,
  nameOf,
  namespaceOf,
  apiGroup,
  apiVersionOnly,
  type JsonObject,
  type JsonValue,
  type KubeObject,
} from '../manifest/object.js';
import { applyJsonPatch, JsonPatchError } from '../customize/patches/json-patch.js';
import { applyMergePatch } from '../customize/patches/merge-patch.js';
import { parseLabelSelector } from '../customize/patches/label-selector.js';
import { readPatchDocument } from '../customize/patches/patch-document.js';
import type { InputObject } from '../declarations/inputs.js';
import type { OverlayPatchTarget } from './overlay-types.js';

export interface LocatedPatch {
  text: string;
  target?: OverlayPatchTarget;
  /** Where the patch is declared: overlay file and the line of its entry (or the patch file). */
  file: string;
  /** Line and column of the entry; computed on demand (it re-parses the overlay with positions). */
  position(): { line: number; col: number };
  /** `patches[2]` — for messages. */
  field: string;
}

type Path = (string | number)[];

/** Applies one patch; returns the new object list (unmatched objects keep their identity). */
export function applyOverlayPatch(objects: readonly InputObject[], patch: LocatedPatch): InputObject[] {
  const site = { providerRef: patch.file, field: patch.field };
  const doc = readPatchDocument(patch.text, site);
  const fail = (message: string, hint?: string) =>
    new SpecError(
      error('overlay', `${patch.field}: ${message}`, {
        file: patch.file,
        ...patch.position(),
        field: patch.field,
        ...(hint ? { hint } : {}),
      }),
    );

  let matches: (o: InputObject) => boolean;
  if (patch.target) {
    matches = compileOverlayTarget(patch.target, fail);
  } else if (doc.type === 'merge') {
    const meta = isJsonObject(doc.patch.metadata) ? doc.patch.metadata : {};
    if (typeof doc.patch.kind !== 'string' || typeof meta.name !== 'string') {
      throw fail(
        'a strategic-merge patch without target must name its object (apiVersion, kind, metadata.name)',
        'add kind and metadata.name to the patch, or a target:',
      );
    }
    matches = (o) =>
      o.object.kind === doc.patch.kind &&
      nameOf(o.object) === meta.name &&
      (doc.patch.apiVersion === undefined || o.object.apiVersion === doc.patch.apiVersion) &&
      (meta.namespace === undefined || namespaceOf(o.object) === meta.namespace);
  } else {
    throw fail('an RFC 6902 patch needs a target', 'add target: {kind: …, name: …}');
  }

  const matched = objects.filter(matches);
  if (matched.length === 0) {
    const present = objects
      .map((o) => `${o.object.kind}/${namespaceOf(o.object) ? `${namespaceOf(o.object)}/` : ''}${nameOf(o.object)}`)
      .sort();
    throw fail(
      'matches no object of the environment',
      `objects here: ${present.slice(0, 12).join(', ')}${present.length > 12 ? ', …' : ''}`,
    );
  }

  const out: InputObject[] = [];
  for (const input of objects) {
    if (!matched.includes(input)) {
      out.push(input);
      continue;
    }
    let next: JsonValue;
    let touched: Path[];
    if (doc.type === 'merge') {
      const body = patch.target ? withoutIdentity(doc.patch) : doc.patch;
      if (body.$patch === 'delete') continue;
      rejectDirectives(body, [], fail);
      next = applyMergePatch(input.object, body);
      touched = leafPaths(body, []);
    } else {
      try {
        next = applyJsonPatch(input.object, doc.operations);
      } catch (e) {
        if (e instanceof JsonPatchError) throw fail(`cannot be applied to ${describe(input.object)}: ${e.message}`);
        throw e;
      }
      touched = doc.operations.map((op) => pointerSegments(op.path));
    }
    assertSameIdentity(input.object as KubeObject, next as JsonObject, fail);
    out.push(patched(input, next as JsonObject, touched, patch));
  }
  return out;
}

function compileOverlayTarget(
  target: OverlayPatchTarget,
  fail: (m: string, h?: string) => SpecError,
): (o: InputObject) => boolean {
  const regex = (text: string | undefined, field: string) => {
    if (!text) return undefined;
    try {
      return new RegExp(`^(?:${text})$`);
    } catch {
      throw fail(`target.${field} "${text}" is not a valid regular expression`);
    }
  };
  const kind = regex(target.kind, 'kind');
  const name = regex(target.name, 'name');
  const namespace = regex(target.namespace, 'namespace');
  const labels = target.labelSelector ? parseLabelSelector(target.labelSelector) : undefined;
  const annotations = target.annotationSelector ? parseLabelSelector(target.annotationSelector) : undefined;
  return (input) => {
    const object = input.object as KubeObject;
    return (
      (!target.group || apiGroup(object.apiVersion) === target.group) &&
      (!target.version || apiVersionOnly(object.apiVersion) === target.version) &&
      (!kind || kind.test(object.kind)) &&
      (!name || name.test(nameOf(object))) &&
      (!namespace || namespace.test(namespaceOf(object))) &&
      (!labels || labels.matches(labelsOf(object))) &&
      (!annotations || annotations.matches(annotationsOf(object)))
    );
  };
}

/** With a target, the patch's own identity fields only name it; they are not applied. */
function withoutIdentity(patch: JsonObject): JsonObject {
  const { apiVersion: _a, kind: _k, ...rest } = patch;
  if (!isJsonObject(rest.metadata)) return rest;
  const { name: _n, namespace: _ns, ...meta } = rest.metadata;
  return Object.keys(meta).length > 0
    ? { ...rest, metadata: meta }
    : Object.fromEntries(Object.entries(rest).filter(([k]) => k !== 'metadata'));
}

function rejectDirectives(value: JsonValue, path: Path, fail: (m: string, h?: string) => SpecError): void {
  if (Array.isArray(value)) value.forEach((v, i) => rejectDirectives(v, [...path, i], fail));
  else if (isJsonObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k.startsWith('$')) {
        throw fail(
          `"${[...path, k].join('.')}": strategic-merge directives other than a top-level $patch: delete are not supported here`,
          'kustomize replaces lists of these custom resources whole; write the complete list, or use an RFC 6902 patch',
        );
      }
      rejectDirectives(v, [...path, k], fail);
    }
  }
}

function leafPaths(value: JsonValue, path: Path): Path[] {
  if (!isJsonObject(value) || Object.keys(value).length === 0) return [path];
  return Object.entries(value).flatMap(([k, v]) => leafPaths(v, [...path, k]));
}

function pointerSegments(pointer: string): Path {
  return pointer
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((s) => (/^\d+$/.test(s) ? Number(s) : s));
}

function assertSameIdentity(before: KubeObject, after: JsonObject, fail: (m: string, h?: string) => SpecError): void {
  const same =
    after.apiVersion === before.apiVersion &&
    after.kind === before.kind &&
    nameOf(after) === nameOf(before) &&
    namespaceOf(after) === namespaceOf(before);
  if (!same)
    throw fail(
      `would change the apiVersion, kind, name or namespace of ${describe(before)}`,
      'patches may change fields, not which object it is; add a new object to a base instead',
    );
}

function describe(o: JsonObject): string {
  return `${String(o.kind)}/${namespaceOf(o) ? `${namespaceOf(o)}/` : ''}${nameOf(o)}`;
}

function patched(input: InputObject, object: JsonObject, touched: Path[], patch: LocatedPatch): InputObject {
  const base = input.locate;
  return {
    object,
    file: input.file,
    locate(path, target) {
      const hit = touched.some((t) => startsWith(path, t) || startsWith(t, path));
      return hit && path.length > 0 ? { file: patch.file, ...patch.position() } : base(path, target);
    },
  };
}

function startsWith(path: readonly (string | number)[], prefix: readonly (string | number)[]): boolean {
  return prefix.length <= path.length && prefix.every((p, i) => String(p) === String(path[i]));
}
