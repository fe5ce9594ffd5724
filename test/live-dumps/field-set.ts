/**
 * The `fieldsV1` set of a manager that wrote a whole object (structured-merge-diff's
 * serialisation): `f:<field>` for fields, `k:<key JSON, sorted field names>` for map-list
 * elements, `v:<value>` for set elements, `.` for an element or map itself; atomic lists are one leaf.
 * List kinds come from the API types' markers (capi-render's list table, which is a transcription of them).
 */
import { listSemantics } from '../../src/adopt/live/list-semantics.js';

type Obj = Record<string, any>;

const SERVER_METADATA = new Set([
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'managedFields',
  'name',
  'namespace',
  'selfLink',
]);

/** The field set of `obj` (status and server metadata excluded). */
export function fieldSetOf(obj: Obj, group: string): Obj {
  const out: Obj = {};
  for (const key of Object.keys(obj).sort()) {
    if (key === 'apiVersion' || key === 'kind' || key === 'status') continue;
    if (key === 'metadata') {
      const meta: Obj = {};
      for (const m of Object.keys(obj.metadata).sort()) {
        if (SERVER_METADATA.has(m)) continue;
        meta[`f:${m}`] = walk(obj.metadata[m], group, obj.kind, ['metadata', m], true);
      }
      if (Object.keys(meta).length > 0) out['f:metadata'] = meta;
      continue;
    }
    out[`f:${key}`] = walk(obj[key], group, obj.kind, [key], false);
  }
  return out;
}

/** The set of a sub-tree at `names`; `isMap` marks a Go map (labels, annotations), which records `.`. */
export function subtreeSet(value: unknown, group: string, kind: string, names: string[]): Obj {
  return walk(value, group, kind, names, false);
}

function walk(value: unknown, group: string, kind: string, names: string[], isMap: boolean): Obj {
  if (Array.isArray(value)) {
    const semantics = listSemantics(group, kind, names);
    if (semantics.type === 'atomic') return {};
    const out: Obj = { '.': {} };
    for (const element of value) {
      if (semantics.type === 'set') out[`v:${JSON.stringify(element)}`] = {};
      else {
        const key: Obj = {};
        for (const k of [...semantics.keys].sort()) key[k] = element[k] ?? semantics.keyDefaults?.[k];
        out[`k:${JSON.stringify(key)}`] = { '.': {}, ...walk(element, group, kind, names, false) };
      }
    }
    return out;
  }
  if (value === null || typeof value !== 'object') return {};
  const out: Obj = isMap ? { '.': {} } : {};
  for (const k of Object.keys(value).sort()) out[`f:${k}`] = walk((value as Obj)[k], group, kind, [...names, k], false);
  return out;
}
