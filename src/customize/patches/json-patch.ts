/**
 * RFC 6902 JSON Patch with the semantics of evanphx/json-patch v5.9.11 under its default options
 * (what the operator's `spec.patches` uses): `add` needs the parent to exist, `remove` and
 * `replace` need the target to exist, `-` appends, negative array indices count from the end, and
 * `test` treats a missing member and `null` alike. Pure: the document is never mutated; the
 * result shares every subtree the patch did not touch.
 */
import type { JsonValue } from '../../manifest/object.js';
import { isJsonEqual } from './json-equal.js';
import {
  describeType,
  hasMember,
  isContainer,
  withElement,
  withInserted,
  withMember,
  withoutElement,
  withoutMember,
  type JsonContainer,
} from './json-containers.js';
import {
  formatJsonPointer,
  parseJsonPointer,
  PointerError,
  resolveExistingIndex,
  resolveInsertIndex,
} from './json-pointer.js';

/** One operation, already checked for shape (see `readJsonPatchOperations`). */
export type JsonPatchOperation =
  | { op: 'add' | 'replace' | 'test'; path: string; value: JsonValue }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

/** An operation did not apply. `opIndex` is 0-based; `reason` says what was wrong. */
export class JsonPatchError extends Error {
  constructor(
    readonly opIndex: number,
    readonly operation: JsonPatchOperation,
    readonly reason: string,
  ) {
    super(`operation ${opIndex} (${operation.op} ${operation.path}): ${reason}`);
    this.name = 'JsonPatchError';
  }
}

/**
 * Applies the operations in order and returns the new document. Atomic: on the first failing
 * operation it throws a {@link JsonPatchError} and no partial result escapes.
 */
export function applyJsonPatch(document: JsonValue, operations: readonly JsonPatchOperation[]): JsonValue {
  let doc = document;
  operations.forEach((operation, index) => {
    try {
      doc = applyOperation(doc, operation);
    } catch (e) {
      if (e instanceof PointerError) throw new JsonPatchError(index, operation, e.message);
      throw e;
    }
  });
  return doc;
}

function applyOperation(doc: JsonValue, operation: JsonPatchOperation): JsonValue {
  const path = parseJsonPointer(operation.path);
  switch (operation.op) {
    case 'add':
      return add(doc, path, operation.value);
    case 'remove':
      if (path.length === 0) throw new PointerError('cannot remove the whole document');
      return editParent(doc, path, 0, (parent, key) => removeMember(parent, key, path));
    case 'replace':
      if (path.length === 0) {
        // evanphx only lets an object or an array replace the whole document.
        if (!isContainer(operation.value))
          throw new PointerError(`cannot replace the whole document with ${describeType(operation.value)}`);
        return operation.value;
      }
      return editParent(doc, path, 0, (parent, key) => replaceMember(parent, key, operation.value, path));
    case 'move': {
      const from = parseJsonPointer(operation.from);
      if (from.length === 0) throw new PointerError('cannot move the whole document');
      const value = readExisting(doc, from);
      // Remove first, then add into the document without it: moving a value into its own child
      // then fails because the destination's parent is gone, as in evanphx.
      const without = editParent(doc, from, 0, (parent, key) => removeMember(parent, key, from));
      return add(without, path, value);
    }
    case 'copy':
      return add(doc, path, readExisting(doc, parseJsonPointer(operation.from)));
    case 'test':
      testValue(doc, path, operation.value);
      return doc;
  }
}

function add(doc: JsonValue, path: readonly string[], value: JsonValue): JsonValue {
  // An empty path replaces the whole document with the value (RFC 6902, section 4.1).
  if (path.length === 0) return value;
  return editParent(doc, path, 0, (parent, key) => {
    if (Array.isArray(parent)) return withInserted(parent, resolveInsertIndex(key, parent.length), value);
    return withMember(parent, key, value);
  });
}

function removeMember(parent: JsonContainer, key: string, path: readonly string[]): JsonContainer {
  if (Array.isArray(parent)) return withoutElement(parent, resolveExistingIndex(key, parent.length));
  if (!hasMember(parent, key)) throw new PointerError(`${formatJsonPointer(path)} does not exist`);
  return withoutMember(parent, key);
}

function replaceMember(parent: JsonContainer, key: string, value: JsonValue, path: readonly string[]): JsonContainer {
  if (Array.isArray(parent)) return withElement(parent, resolveExistingIndex(key, parent.length), value);
  if (!hasMember(parent, key))
    throw new PointerError(`${formatJsonPointer(path)} does not exist (replace needs an existing value; use add)`);
  return withMember(parent, key, value);
}

/**
 * Walks to the parent of the last token, copies every container on the way, and lets `edit`
 * change the parent. Every intermediate value must exist and be an object or an array.
 */
function editParent(
  node: JsonValue,
  path: readonly string[],
  depth: number,
  edit: (parent: JsonContainer, key: string) => JsonContainer,
): JsonValue {
  if (!isContainer(node)) throw notContainer(path, depth, node);
  const token = path[depth] as string;
  if (depth === path.length - 1) return edit(node, token);
  const child = childOf(node, token, path, depth);
  const next = editParent(child, path, depth + 1, edit);
  if (Array.isArray(node)) return withElement(node, resolveExistingIndex(token, node.length), next);
  return withMember(node, token, next);
}

/** The value at `path`, which must exist (it may be `null`). */
function readExisting(doc: JsonValue, path: readonly string[]): JsonValue {
  let node = doc;
  path.forEach((token, depth) => {
    if (!isContainer(node)) throw notContainer(path, depth, node);
    node = childOf(node, token, path, depth);
  });
  return node;
}

function testValue(doc: JsonValue, path: readonly string[], expected: JsonValue): void {
  let actual: JsonValue | undefined;
  if (path.length === 0) actual = doc;
  else {
    const parent = readExisting(doc, path.slice(0, -1));
    if (!isContainer(parent)) throw notContainer(path, path.length - 1, parent);
    const key = path[path.length - 1] as string;
    if (Array.isArray(parent)) actual = parent[resolveExistingIndex(key, parent.length)];
    else actual = hasMember(parent, key) ? parent[key] : undefined;
  }
  // evanphx: a missing member and a null value both pass a test for null, and only it.
  const actualIsNull = actual === undefined || actual === null;
  if (actualIsNull && expected === null) return;
  if (!actualIsNull && expected !== null && isJsonEqual(actual, expected)) return;
  // The actual value is not quoted: it may be a Secret's data.
  throw new PointerError(
    `test failed: ${formatJsonPointer(path) || 'the document'} (${describeType(actual)}) does not equal the value given`,
  );
}

function childOf(node: JsonContainer, token: string, path: readonly string[], depth: number): JsonValue {
  if (Array.isArray(node)) return node[resolveExistingIndex(token, node.length)] as JsonValue;
  if (!hasMember(node, token)) throw new PointerError(`${formatJsonPointer(path.slice(0, depth + 1))} does not exist`);
  return node[token] as JsonValue;
}

function notContainer(path: readonly string[], depth: number, node: JsonValue): PointerError {
  const where = formatJsonPointer(path.slice(0, depth)) || 'the document';
  return new PointerError(
    `${where} is ${describeType(node)}, so ${formatJsonPointer(path.slice(0, depth + 1))} cannot be reached`,
  );
}
