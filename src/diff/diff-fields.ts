/**
 * The recursive field diff of two versions of one object. Maps are compared key by key (key order
 * is ignored); lists of maps that all carry a unique `name` (containers, env, ports, volumes,
 * webhooks, CRD versions) are matched by name; other lists are compared as a whole when short and
 * reported as `N items → M items` when long.
 */
import { isJsonObject } from '../manifest/object.js';
import { keyPath, namePath } from './field-path.js';
import { isSecretObject, maskSecretValues } from './secret-values.js';
import { countItems, MAX_ITEMS, summarizeValue } from './summarize-value.js';
import type { FieldChange } from './types.js';
import { compareText, isDeepEqual } from './util-compare.js';

/**
 * Replaces the recursive diff at some paths: returns the changes to report for `path`, or
 * undefined to let the generic diff continue (used for CRD schemas).
 */
export type FieldDiffOverride = (path: string, before: unknown, after: unknown) => FieldChange[] | undefined;

/**
 * The field changes from `before` to `after`, in path order (map keys sorted, named list items
 * sorted by name). Equal subtrees (by reference or by value) are skipped without descending.
 * `path` is the path of the values themselves (`''` for whole objects). Two versions of a Secret
 * (either side one) are compared with their values as digests (secret-values.ts): every diff of
 * paired objects — `diff`, `report`, `upgrade`, `check` — goes through here, so no formatter ever
 * sees a Secret value.
 */
export function diffFields(before: unknown, after: unknown, path = '', override?: FieldDiffOverride): FieldChange[] {
  const out: FieldChange[] = [];
  if (path === '' && (isSecretObject(before) || isSecretObject(after)))
    walk(maskSecretValues(before), maskSecretValues(after), path, override, out);
  else walk(before, after, path, override, out);
  return out;
}

function walk(
  before: unknown,
  after: unknown,
  path: string,
  override: FieldDiffOverride | undefined,
  out: FieldChange[],
): void {
  if (isDeepEqual(before, after)) return;
  const replaced = override?.(path, before, after);
  if (replaced !== undefined) {
    out.push(...replaced);
    return;
  }
  if (isJsonObject(before) && isJsonObject(after)) {
    for (const key of [...new Set([...Object.keys(before), ...Object.keys(after)])].sort(compareText)) {
      const child = keyPath(path, key);
      if (!(key in after)) out.push({ path: child, kind: 'removed', before: summarizeValue(before[key]) });
      else if (!(key in before)) out.push({ path: child, kind: 'added', after: summarizeValue(after[key]) });
      else walk(before[key], after[key], child, override, out);
    }
    return;
  }
  if (Array.isArray(before) && Array.isArray(after)) {
    const left = namesOf(before);
    const right = namesOf(after);
    if (left && right && (left.length > 0 || right.length > 0))
      walkNamedList(before, after, left, right, path, override, out);
    else if (before.length > MAX_ITEMS || after.length > MAX_ITEMS) {
      out.push({ path, kind: 'changed', before: countItems(before.length), after: countItems(after.length) });
    } else out.push({ path, kind: 'changed', before: summarizeValue(before), after: summarizeValue(after) });
    return;
  }
  out.push({ path, kind: 'changed', before: summarizeValue(before), after: summarizeValue(after) });
}

function walkNamedList(
  before: readonly unknown[],
  after: readonly unknown[],
  left: string[],
  right: string[],
  path: string,
  override: FieldDiffOverride | undefined,
  out: FieldChange[],
): void {
  const start = out.length;
  const old = new Map(left.map((name, i) => [name, before[i]]));
  const now = new Map(right.map((name, i) => [name, after[i]]));
  for (const name of [...new Set([...left, ...right])].sort(compareText)) {
    const child = namePath(path, name);
    if (!now.has(name)) out.push({ path: child, kind: 'removed', before: summarizeValue(old.get(name)) });
    else if (!old.has(name)) out.push({ path: child, kind: 'added', after: summarizeValue(now.get(name)) });
    else walk(old.get(name), now.get(name), child, override, out);
  }
  // Same items in another order: say so, because order can matter (env entries referring to
  // earlier ones with $(VAR), the first container being the default one for kubectl).
  if (out.length === start)
    out.push({
      path,
      kind: 'changed',
      before: summarizeValue(left),
      after: summarizeValue(right),
      summary: 'order changed',
    });
}

/** The `name` of every item when all items are maps with a unique string name; otherwise undefined. */
function namesOf(list: readonly unknown[]): string[] | undefined {
  const names: string[] = [];
  for (const item of list) {
    if (!isJsonObject(item) || typeof item.name !== 'string') return undefined;
    names.push(item.name);
  }
  return new Set(names).size === names.length ? names : undefined;
}
