/**
 * CRD schemas summarised per version. A CAPI upgrade changes thousands of schema lines (mostly
 * descriptions); a reviewer needs to know which properties appeared or disappeared, not every
 * changed description, so each version's `schema` becomes one field change with counts and the
 * (capped) list of added and removed property paths.
 */
import { isJsonObject } from '../manifest/object.js';
import type { FieldDiffOverride } from './diff-fields.js';
import { SCHEMA_PATH_CAP, type FieldChange, type SchemaPropertyChanges } from './types.js';
import { compareText, isDeepEqual } from './util-compare.js';

const VERSION_SCHEMA = /^spec\.versions\[name=[^\]]+\]\.schema$/;

/** Child keys that hold sub-schemas; everything else on a node is the node's own definition. */
const NESTED = new Set(['properties', 'items', 'additionalProperties']);

/** A {@link FieldDiffOverride} for CustomResourceDefinitions: summarises `spec.versions[name=v].schema`. */
export const crdSchemaOverride: FieldDiffOverride = (path, before, after) => {
  if (!VERSION_SCHEMA.test(path) || !isJsonObject(before) || !isJsonObject(after)) return undefined;
  return [summarizeSchemaChange(path, before.openAPIV3Schema, after.openAPIV3Schema)];
};

/**
 * One `changed` field change for a version schema: counts of added, removed and changed
 * properties (changed = type, format, enum, validation rules… differ; descriptions are ignored)
 * and the sorted added/removed property paths, capped at {@link SCHEMA_PATH_CAP} each.
 */
export function summarizeSchemaChange(path: string, before: unknown, after: unknown): FieldChange {
  const tally: Tally = { added: [], removed: [], changed: 0 };
  compareNodes(before, after, '', tally);
  const added = tally.added.sort(compareText);
  const removed = tally.removed.sort(compareText);
  const parts = [
    `${added.length} ${added.length === 1 ? 'field' : 'fields'} added`,
    `${removed.length} removed`,
    `${tally.changed} changed`,
  ];
  const onlyText = added.length === 0 && removed.length === 0 && tally.changed === 0;
  const properties: SchemaPropertyChanges = {
    added: added.slice(0, SCHEMA_PATH_CAP),
    removed: removed.slice(0, SCHEMA_PATH_CAP),
    moreAdded: Math.max(0, added.length - SCHEMA_PATH_CAP),
    moreRemoved: Math.max(0, removed.length - SCHEMA_PATH_CAP),
  };
  return {
    path,
    kind: 'changed',
    summary: onlyText ? 'schema changed (descriptions only)' : `schema changed (${parts.join(', ')})`,
    properties,
  };
}

interface Tally {
  added: string[];
  removed: string[];
  changed: number;
}

/**
 * Walks two schema nodes side by side. Equal subtrees are skipped whole (most of a CAPI CRD is
 * unchanged between releases), so only the differing parts are visited. Paths: `spec.replicas`,
 * `[]` for list items, `*` for map values; the root is `.`.
 */
function compareNodes(before: unknown, after: unknown, path: string, tally: Tally): void {
  if (isDeepEqual(before, after)) return;
  if (!isJsonObject(before) || !isJsonObject(after)) {
    if (isJsonObject(before)) collectPaths(before, path, tally.removed);
    if (isJsonObject(after)) collectPaths(after, path, tally.added);
    return;
  }
  if (!sameDefinition(before, after)) tally.changed++;
  for (const [key, child] of children(before, after)) compareNodes(child[0], child[1], join(path, key), tally);
}

/** Sub-schemas of both nodes by path segment: property names, `[]` for items, `*` for additionalProperties. */
function children(before: Record<string, unknown>, after: Record<string, unknown>): [string, [unknown, unknown]][] {
  const out = new Map<string, [unknown, unknown]>();
  for (const [side, node] of [
    [0, before],
    [1, after],
  ] as const) {
    for (const [key, child] of subSchemas(node)) {
      const pair = out.get(key) ?? [undefined, undefined];
      pair[side] = child;
      out.set(key, pair);
    }
  }
  return [...out];
}

function subSchemas(node: Record<string, unknown>): [string, unknown][] {
  const out: [string, unknown][] = isJsonObject(node.properties) ? Object.entries(node.properties) : [];
  if (isJsonObject(node.items)) out.push(['[]', node.items]);
  if (isJsonObject(node.additionalProperties)) out.push(['*', node.additionalProperties]);
  return out;
}

/** Every property path at and below `node`. */
function collectPaths(node: Record<string, unknown>, path: string, out: string[]): void {
  out.push(path === '' ? '.' : path);
  for (const [key, child] of subSchemas(node)) if (isJsonObject(child)) collectPaths(child, join(path, key), out);
}

/** The node's own definition (everything but sub-schemas and the description) is the same. */
function sameDefinition(before: Record<string, unknown>, after: Record<string, unknown>): boolean {
  // `additionalProperties: false` is a rule of the node itself; only a schema there is a sub-schema.
  const own = (node: Record<string, unknown>): string[] =>
    Object.keys(node).filter(
      (k) => k !== 'description' && !(NESTED.has(k) && (k !== 'additionalProperties' || isJsonObject(node[k]))),
    );
  const keys = new Set([...own(before), ...own(after)]);
  for (const key of keys) if (!isDeepEqual(before[key], after[key])) return false;
  return true;
}

function join(path: string, key: string): string {
  if (key === '[]') return `${path}[]`;
  return path === '' ? key : `${path}.${key}`;
}
