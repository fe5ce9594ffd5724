/**
 * Role and ClusterRole `rules` in an object diff, as the rules a reviewer reads: one field change
 * per target (resource.group[/subresource], a resource name, or a non-resource URL) whose verbs
 * appear, disappear or change — `rules[secrets]: ["get","list"] → ["delete","get","list"]` — instead
 * of `[9 items] → [11 items]`. Rules are compared by what they grant, so regrouping or reordering
 * them (controller-gen does both between releases) is not reported as a change of permissions.
 */
import type { FieldDiffOverride } from './diff-fields.js';
import { expandRules, verbsByTarget } from './findings/rbac-permissions.js';
import { countItems } from './summarize-value.js';
import type { FieldChange } from './types.js';
import { compareText } from './util-compare.js';

/** A {@link FieldDiffOverride} for Roles and ClusterRoles: `rules` per target. */
export const rbacRulesOverride: FieldDiffOverride = (path, before, after) =>
  path === 'rules' ? diffRules(before, after) : undefined;

/** The per-target changes between two `rules` lists (sorted by target); one `regrouped` change when they grant the same. */
export function diffRules(before: unknown, after: unknown): FieldChange[] {
  const old = verbsByTarget(expandRules(before));
  const now = verbsByTarget(expandRules(after));
  const out: FieldChange[] = [];
  for (const target of [...new Set([...old.keys(), ...now.keys()])].sort(compareText)) {
    const path = `rules[${target}]`;
    const was = old.get(target);
    const is = now.get(target);
    if (was === undefined) out.push({ path, kind: 'added', after: is, summary: 'rule added' });
    else if (is === undefined) out.push({ path, kind: 'removed', before: was, summary: 'rule removed' });
    else if (was.join(',') !== is.join(','))
      out.push({ path, kind: 'changed', before: was, after: is, summary: verbChange(was, is) });
  }
  if (out.length > 0) return out;
  const size = (rules: unknown) => (Array.isArray(rules) ? rules.length : 0);
  return [
    {
      path: 'rules',
      kind: 'changed',
      before: countItems(size(before)),
      after: countItems(size(after)),
      summary: 'rules regrouped or reordered, granting the same permissions',
    },
  ];
}

/** `verbs +delete -patch`. */
function verbChange(was: readonly string[], is: readonly string[]): string {
  const added = is.filter((v) => !was.includes(v)).map((v) => `+${v}`);
  const removed = was.filter((v) => !is.includes(v)).map((v) => `-${v}`);
  return `verbs ${[...added, ...removed].join(' ')}`;
}
