/**
 * Lines the two sides of a comparison up object by object: every (environment, component, key)
 * present on either side, with the object from each side that has it.
 */
import { compareObjects } from '../manifest/order.js';
import type { KubeObject } from '../manifest/object.js';
import { indexObjects } from './object-key.js';
import type { RenderedSide } from './types.js';
import { compareText } from './util-compare.js';

/** One object key on both sides; at least one of `before`/`after` is set. */
export interface ObjectPair {
  env: string;
  component: string;
  id: string;
  before?: KubeObject;
  after?: KubeObject;
}

/**
 * Every object key of both sides, sorted by environment, component, then the apply order of
 * `manifest/order.ts` (Namespaces and CRDs first, webhook configurations last) and key, so the
 * result does not depend on the order of the input lists or maps.
 * Throws SpecError `diff-duplicate-object` when a component holds the same key twice.
 */
export function pairObjects(before: RenderedSide, after: RenderedSide): ObjectPair[] {
  const pairs: ObjectPair[] = [];
  for (const env of unionKeys(before.environments, after.environments)) {
    const left = before.environments[env] ?? {};
    const right = after.environments[env] ?? {};
    for (const component of unionKeys(left, right)) {
      const where = { env, component };
      const old = indexObjects(left[component] ?? [], where);
      const now = indexObjects(right[component] ?? [], where);
      const group: ObjectPair[] = [];
      for (const [id, object] of old)
        group.push({ env, component, id, before: object, ...(now.has(id) ? { after: now.get(id) } : {}) });
      for (const [id, object] of now) if (!old.has(id)) group.push({ env, component, id, after: object });
      group.sort((a, b) => compareObjects((a.after ?? a.before)!, (b.after ?? b.before)!) || compareText(a.id, b.id));
      pairs.push(...group);
    }
  }
  return pairs;
}

function unionKeys(a: object, b: object): string[] {
  return [...new Set([...Object.keys(a), ...Object.keys(b)])].sort(compareText);
}
