/**
 * One rendered object against its live copy, as a server-side apply of the rendered object would see
 * it. Only the fields the rendered object sets are walked, so server
 * defaults, controller-written fields and other managers' additions are never differences; maps and
 * `map` lists are compared entry by entry, `atomic` lists whole (after the server's defaults for
 * their elements); `null` and empty values the server drops equal absent ones; quantities compare by
 * value. Secret values are compared by digest and never reported.
 */
import { createHash } from 'node:crypto';
import { apiGroup, isJsonObject, type JsonObject, type JsonValue, type KubeObject } from '../../manifest/object.js';
import { diffFields } from '../../diff/diff-fields.js';
import { keyPath } from '../../diff/field-path.js';
import { isDeepEqual } from '../../diff/util-compare.js';
import { SECRET_DIGEST_PREFIX } from '../live-dump.js';
import { SERVER_ANNOTATIONS, SERVER_METADATA } from '../live-object.js';
import { listSemantics } from './list-semantics.js';
import { fieldSegment, keySegment, valueSegment } from './managed-fields.js';
import { sameQuantity } from './quantity.js';
import { withAtomicDefaults } from './server-defaults.js';

export interface FieldDifference {
  /** Display path, e.g. `spec.template.spec.containers[name=manager].args`. */
  path: string;
  /** `changed`: both hold different values; `added`: the apply sets a field the live object lacks; `removed`: the apply removes it. */
  change: 'changed' | 'added' | 'removed';
  live?: JsonValue;
  rendered?: JsonValue;
  /** The path as `fieldsV1` segments, to look ownership up in managedFields. */
  fields: string[];
  /** A Secret value: never shown. */
  secret?: boolean;
  /** For an atomic list of objects: where inside it the lists differ (a few lines). */
  details?: string[];
}

interface Walk {
  group: string;
  kind: string;
  out: FieldDifference[];
}

interface At {
  path: string;
  names: string[];
  fields: string[];
}

/** The differences a server-side apply of `rendered` onto `live` would make, in path order. */
export function compareWithLive(rendered: KubeObject, live: KubeObject): FieldDifference[] {
  const w: Walk = { group: apiGroup(rendered.apiVersion), kind: rendered.kind, out: [] };
  for (const key of sortedKeys(rendered)) {
    if (key === 'apiVersion' || key === 'kind' || key === 'status') continue;
    const at = child({ path: '', names: [], fields: [] }, key);
    if (key === 'metadata') compareMetadata(w, rendered.metadata, live.metadata, at);
    else if (w.group === '' && w.kind === 'Secret' && (key === 'data' || key === 'stringData'))
      compareSecretValues(w, rendered[key], live.data, key === 'data');
    else walk(w, rendered[key], live[key], at);
  }
  return w.out;
}

function compareMetadata(w: Walk, rendered: JsonValue | undefined, live: JsonValue | undefined, at: At): void {
  if (!isJsonObject(rendered)) return;
  const l = isJsonObject(live) ? live : {};
  for (const key of sortedKeys(rendered)) {
    if ((SERVER_METADATA as readonly string[]).includes(key) || key === 'name' || key === 'namespace') continue;
    if (key === 'annotations' && isJsonObject(rendered.annotations)) {
      const own = Object.fromEntries(
        Object.entries(rendered.annotations).filter(([k]) => !(SERVER_ANNOTATIONS as readonly string[]).includes(k)),
      );
      walk(w, own, l.annotations, child(at, key));
    } else walk(w, rendered[key], l[key], child(at, key));
  }
}

function walk(w: Walk, r: JsonValue | undefined, l: JsonValue | undefined, at: At): void {
  if (r === null || r === undefined) return;
  if (l === undefined || l === null) {
    // The server drops empty values (omitempty) and a v1 CRD's preserveUnknownFields: false;
    // in a string map (labels, data, …) an empty value is a value.
    if (
      (isEmpty(r) && !(r === '' && STRING_MAPS.has(at.names[at.names.length - 2] ?? ''))) ||
      (w.kind === 'CustomResourceDefinition' && at.path === 'spec.preserveUnknownFields' && r === false)
    )
      return;
    // Labels and annotations are reported key by key, so capi-render's own can be told apart.
    if (isJsonObject(r) && (at.path === 'metadata.labels' || at.path === 'metadata.annotations')) {
      for (const key of sortedKeys(r)) walk(w, r[key], undefined, child(at, key));
      return;
    }
    w.out.push({ path: at.path, change: 'added', rendered: r, fields: at.fields });
    return;
  }
  if (isJsonObject(r)) {
    if (!isJsonObject(l)) w.out.push({ path: at.path, change: 'changed', live: l, rendered: r, fields: at.fields });
    else for (const key of sortedKeys(r)) walk(w, r[key], l[key], child(at, key));
    return;
  }
  if (Array.isArray(r)) {
    if (!Array.isArray(l)) w.out.push({ path: at.path, change: 'changed', live: l, rendered: r, fields: at.fields });
    else walkList(w, r, l, at);
    return;
  }
  if (r === l || (at.names.includes('resources') && sameQuantity(r, l))) return;
  w.out.push({ path: at.path, change: 'changed', live: l, rendered: r, fields: at.fields });
}

function walkList(w: Walk, r: JsonValue[], l: JsonValue[], at: At): void {
  const semantics = listSemantics(w.group, w.kind, at.names);
  if (semantics.type === 'map') {
    for (const element of r) {
      if (!isJsonObject(element)) continue;
      const key = Object.fromEntries(semantics.keys.map((k) => [k, element[k] ?? semantics.keyDefaults?.[k] ?? null]));
      const match = l.find(
        (e) =>
          isJsonObject(e) &&
          semantics.keys.every((k) => isDeepEqual(e[k] ?? semantics.keyDefaults?.[k] ?? null, key[k])),
      );
      const label = semantics.keys.map((k) => `${k}=${String(key[k])}`).join(',');
      const elementAt: At = { path: `${at.path}[${label}]`, names: at.names, fields: [...at.fields, keySegment(key)] };
      if (match === undefined)
        w.out.push({ path: elementAt.path, change: 'added', rendered: element, fields: elementAt.fields });
      else walk(w, element, match, elementAt);
    }
    return;
  }
  if (semantics.type === 'set') {
    for (const value of r) {
      if (!l.some((e) => isDeepEqual(e, value)))
        w.out.push({
          path: `${at.path}[=${JSON.stringify(value)}]`,
          change: 'added',
          rendered: value,
          fields: [...at.fields, valueSegment(value)],
        });
    }
    return;
  }
  const defaulted = withoutEmpty(withAtomicDefaults(w.group, w.kind, at.names, r));
  const current = withoutEmpty(l);
  if (isDeepEqual(defaulted, current)) return;
  const details = r.some(isJsonObject) ? innerDifferences(current, defaulted) : [];
  w.out.push({
    path: at.path,
    change: 'changed',
    live: l,
    rendered: r,
    fields: at.fields,
    ...(details.length > 0 ? { details } : {}),
  });
}

const MAX_DETAILS = 4;

/** Where two versions of an atomic list of objects differ, as `path: live X, rendered Y` lines. */
function innerDifferences(live: JsonValue, rendered: JsonValue): string[] {
  // Lists of the same length whose items have no names: compared position by position.
  const changes =
    Array.isArray(live) &&
    Array.isArray(rendered) &&
    live.length === rendered.length &&
    !rendered.every((e) => isJsonObject(e) && typeof e.name === 'string')
      ? rendered.flatMap((item, i) => diffFields(live[i], item, `[${i}]`))
      : diffFields(live, rendered);
  const show = (v: unknown) => (v === undefined ? '(absent)' : JSON.stringify(v).slice(0, 60));
  const lines = changes
    .slice(0, MAX_DETAILS)
    .map((c) => `${c.path || '(element)'}: live ${show(c.before)}, rendered ${show(c.after)}`);
  if (changes.length > MAX_DETAILS) lines.push(`… ${changes.length - MAX_DETAILS} more`);
  return lines;
}

function compareSecretValues(
  w: Walk,
  rendered: JsonValue | undefined,
  liveData: JsonValue | undefined,
  base64: boolean,
): void {
  if (!isJsonObject(rendered)) return;
  const live = isJsonObject(liveData) ? liveData : {};
  for (const key of sortedKeys(rendered)) {
    const value = rendered[key];
    if (typeof value !== 'string') continue;
    const digest = `${SECRET_DIGEST_PREFIX}${createHash('sha256')
      .update(base64 ? Buffer.from(value, 'base64') : Buffer.from(value))
      .digest('hex')}`;
    const keyAt = child({ path: 'data', names: ['data'], fields: [fieldSegment('data')] }, key);
    if (live[key] === undefined) w.out.push({ path: keyAt.path, change: 'added', fields: keyAt.fields, secret: true });
    else if (live[key] !== digest)
      w.out.push({ path: keyAt.path, change: 'changed', fields: keyAt.fields, secret: true });
  }
}

function child(at: At, key: string): At {
  return { path: keyPath(at.path, key), names: [...at.names, key], fields: [...at.fields, fieldSegment(key)] };
}

function sortedKeys(obj: JsonObject): string[] {
  return Object.keys(obj).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Maps from string to string, whose entries are kept whatever their value. */
const STRING_MAPS = new Set([
  'labels',
  'annotations',
  'matchLabels',
  'nodeSelector',
  'selector',
  'data',
  'binaryData',
  'stringData',
]);

/** null, "", {} and [] — what Go's omitempty drops on the way out of the API server. */
function isEmpty(value: JsonValue): boolean {
  return (
    value === null ||
    value === '' ||
    (Array.isArray(value) && value.length === 0) ||
    (isJsonObject(value) && Object.keys(value).length === 0)
  );
}

/** A copy without map entries whose values are empty (recursively), for comparing atomic lists. */
function withoutEmpty(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map(withoutEmpty);
  if (!isJsonObject(value)) return value;
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(value)) {
    const cleaned = withoutEmpty(v);
    if (!isEmpty(cleaned)) out[k] = cleaned;
  }
  return out;
}
