/**
 * The hint shown when a patch matches no object: which kinds (with their apiVersions) exist,
 * and for the kind the patch asked for, which objects of that kind exist — usually enough to
 * spot a typo or a wrong group/version.
 */
import { describeObject, type KubeObject } from '../../manifest/object.js';

const MAX_NAMES = 20;

/** A sorted, deterministic summary of `objects` for a "matches nothing" hint. */
export function describeAvailableObjects(objects: readonly KubeObject[], wantedKind?: string): string {
  const kinds = [...new Set(objects.map((o) => `${o.kind} (${o.apiVersion})`))].sort();
  const parts = [`kinds present: ${kinds.join(', ') || 'none'}`];
  if (wantedKind) {
    const named = objects
      .filter((o) => o.kind === wantedKind)
      .map((o) => describeObject(o))
      .sort();
    if (named.length > 0) {
      const shown = named.slice(0, MAX_NAMES).join(', ');
      parts.push(`${wantedKind} objects: ${shown}${named.length > MAX_NAMES ? `, … (${named.length} in all)` : ''}`);
    }
  }
  return parts.join('; ');
}

/** An extra hint for a target version written as a whole apiVersion (`apps/v1` instead of `v1`). */
export function versionHint(version: string | undefined, objects: readonly KubeObject[]): string | undefined {
  if (!version?.includes('/')) return undefined;
  const known = objects.some((o) => o.apiVersion === version);
  return `target.version is the version alone (v1); put the group in target.group${known ? ` (objects with apiVersion ${version} exist)` : ''}`;
}
