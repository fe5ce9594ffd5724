/**
 * Field ownership from `metadata.managedFields`: each entry's
 * `fieldsV1` is a tree of `f:<field>`, `k:<key fields as JSON>` (map-list elements), `v:<value>`
 * (set elements) and `i:<index>` segments; `.` marks ownership of an element itself. Status
 * subresource entries are left out: apply to the main resource never touches them.
 */
import { canonicalJson } from '../../manifest/canonical-json.js';
import { isJsonObject, type JsonObject, type JsonValue, type KubeObject } from '../../manifest/object.js';

export type FieldTree = Map<string, FieldTree>;

export interface FieldOwner {
  manager: string;
  operation: string;
  tree: FieldTree;
}

/** The owners recorded on `obj`, or undefined when the dump hid managedFields. */
export function readFieldOwners(obj: KubeObject): FieldOwner[] | undefined {
  const entries = isJsonObject(obj.metadata) ? obj.metadata.managedFields : undefined;
  if (!Array.isArray(entries)) return undefined;
  const out: FieldOwner[] = [];
  for (const e of entries) {
    if (
      !isJsonObject(e) ||
      typeof e.manager !== 'string' ||
      (typeof e.subresource === 'string' && e.subresource !== '')
    )
      continue;
    out.push({
      manager: e.manager,
      operation: String(e.operation ?? ''),
      tree: isJsonObject(e.fieldsV1) ? toTree(e.fieldsV1) : new Map(),
    });
  }
  return out;
}

function toTree(fields: JsonObject): FieldTree {
  const tree: FieldTree = new Map();
  for (const [segment, child] of Object.entries(fields))
    tree.set(canonicalSegment(segment), isJsonObject(child) ? toTree(child) : new Map());
  return tree;
}

/** `k:` and `v:` segments with their JSON re-serialised canonically, so two writers' forms compare equal. */
export function canonicalSegment(segment: string): string {
  if (!segment.startsWith('k:') && !segment.startsWith('v:')) return segment;
  try {
    return `${segment.slice(0, 2)}${canonicalJson(JSON.parse(segment.slice(2)))}`;
  } catch {
    return segment;
  }
}

/** The segment of a field. */
export const fieldSegment = (name: string): string => `f:${name}`;
/** The segment of a map-list element, by its key fields. */
export const keySegment = (key: Readonly<Record<string, JsonValue>>): string => `k:${canonicalJson(key)}`;
/** The segment of a set element. */
export const valueSegment = (value: JsonValue): string => `v:${canonicalJson(value)}`;

/** Managers whose field set holds `path` exactly, sorted. */
export function ownersOf(owners: readonly FieldOwner[], path: readonly string[]): string[] {
  return [...new Set(owners.filter((o) => hasPath(o.tree, path)).map((o) => `${o.manager} (${o.operation})`))].sort();
}

/** Whether the tree holds `path` (every segment, in order). */
export function hasPath(tree: FieldTree, path: readonly string[]): boolean {
  let node: FieldTree | undefined = tree;
  for (const segment of path) {
    node = node.get(segment);
    if (!node) return false;
  }
  return true;
}
