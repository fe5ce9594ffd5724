/**
 * Fields an apply would remove: a field the live object has
 * and the rendered object lacks is removed only when the applier's own manager applied it earlier
 * (an `Apply` entry in managedFields) and no other manager owns it. On a first adoption the applier
 * has never applied, so nothing is removed; after the first sync, fields dropped from the inputs are.
 */
import { isJsonObject, type JsonValue, type KubeObject } from '../../manifest/object.js';
import { apiGroup } from '../../manifest/object.js';
import { keyPath } from '../../diff/field-path.js';
import { isDeepEqual } from '../../diff/util-compare.js';
import type { FieldDifference } from './compare-object.js';
import { listSemantics } from './list-semantics.js';
import { hasPath, type FieldOwner, type FieldTree } from './managed-fields.js';

/** Removals of every manager in `managers` that applied to `live` before. */
export function removalsByManager(
  rendered: KubeObject,
  live: KubeObject,
  owners: readonly FieldOwner[],
  managers: readonly string[],
): FieldDifference[] {
  const out: FieldDifference[] = [];
  const group = apiGroup(rendered.apiVersion);
  for (const mine of owners.filter((o) => o.operation === 'Apply' && managers.includes(o.manager))) {
    const others = owners.filter((o) => o !== mine && !(o.manager === mine.manager && o.operation === 'Apply'));
    const visit = (
      tree: FieldTree,
      r: JsonValue | undefined,
      l: JsonValue | undefined,
      segments: string[],
      names: string[],
      display: string,
    ): void => {
      for (const [segment, child] of tree) {
        if (segment === '.') continue;
        const nextNames = segment.startsWith('f:') ? [...names, segment.slice(2)] : names;
        const rChild = step(r, segment, group, rendered.kind, names);
        const lChild = step(l, segment, group, rendered.kind, names);
        const path = [...segments, segment];
        const shown = showSegment(display, segment);
        if (rChild === undefined) {
          if (lChild !== undefined && !others.some((o) => hasPath(o.tree, path)) && !out.some((d) => d.path === shown))
            out.push({ path: shown, change: 'removed', live: lChild, fields: path });
          continue;
        }
        if (child.size > 0) visit(child, rChild, lChild, path, nextNames, shown);
      }
    };
    visit(mine.tree, rendered, live, [], [], '');
  }
  return out;
}

/** The value one `fieldsV1` segment addresses inside `value`. */
function step(
  value: JsonValue | undefined,
  segment: string,
  group: string,
  kind: string,
  names: readonly string[],
): JsonValue | undefined {
  const body = segment.slice(2);
  if (segment.startsWith('f:')) return isJsonObject(value) ? value[body] : undefined;
  if (!Array.isArray(value)) return undefined;
  if (segment.startsWith('i:')) return value[Number(body)];
  let parsed: JsonValue;
  try {
    parsed = JSON.parse(body) as JsonValue;
  } catch {
    return undefined;
  }
  if (segment.startsWith('v:')) return value.some((e) => isDeepEqual(e, parsed)) ? parsed : undefined;
  if (!segment.startsWith('k:') || !isJsonObject(parsed)) return undefined;
  const semantics = listSemantics(group, kind, names);
  const defaults = semantics.type === 'map' ? (semantics.keyDefaults ?? {}) : {};
  return value.find(
    (e) =>
      isJsonObject(e) &&
      Object.entries(parsed as Record<string, JsonValue>).every(([k, v]) =>
        isDeepEqual(e[k] ?? defaults[k] ?? null, v),
      ),
  );
}

function showSegment(parent: string, segment: string): string {
  const body = segment.slice(2);
  if (segment.startsWith('f:')) return keyPath(parent, body);
  if (segment.startsWith('i:')) return `${parent}[${body}]`;
  if (segment.startsWith('v:')) return `${parent}[=${body}]`;
  try {
    const key = JSON.parse(body) as Record<string, JsonValue>;
    return `${parent}[${Object.entries(key)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(',')}]`;
  } catch {
    return `${parent}[${body}]`;
  }
}
