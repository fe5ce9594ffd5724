/**
 * Turns permission tuples of one scope into the fewest PolicyRules that grant exactly them, and
 * back. Merging only ever combines rules whose other three lists are identical, so a merged rule's
 * cross product (apiGroups × resources × verbs × resourceNames) is exactly the union of its parts:
 * nothing is granted that was not asked for.
 */
import { compareText } from './permission.js';
import type { Permission, PolicyRule } from './rbac-types.js';

const ANY_NAME = '\u0000any';

/** The rules granting exactly `permissions` (whose namespaces are ignored), sorted. */
export function buildPolicyRules(permissions: readonly Permission[]): PolicyRule[] {
  // (group, resource) → verb → names ('any' wins over a list: it already covers every name).
  const byResource = new Map<string, { group: string; resource: string; verbs: Map<string, Set<string>> }>();
  for (const p of permissions) {
    const key = `${p.group}\u0001${p.resource}`;
    let entry = byResource.get(key);
    if (entry === undefined) byResource.set(key, (entry = { group: p.group, resource: p.resource, verbs: new Map() }));
    let names = entry.verbs.get(p.verb);
    if (names === undefined) entry.verbs.set(p.verb, (names = new Set()));
    if (p.name === null) {
      names.clear();
      names.add(ANY_NAME);
    } else if (!names.has(ANY_NAME)) {
      names.add(p.name);
    }
  }

  // One rule per (group, resource, name set): verbs that apply to the same names share a rule.
  let rules: PolicyRule[] = [];
  for (const { group, resource, verbs } of byResource.values()) {
    const byNames = new Map<string, { names: string[]; verbs: string[] }>();
    for (const [verb, names] of verbs) {
      const list = names.has(ANY_NAME) ? [] : [...names].sort(compareText);
      const key = list.join('\u0001');
      const slot = byNames.get(key) ?? { names: list, verbs: [] };
      slot.verbs.push(verb);
      byNames.set(key, slot);
    }
    for (const { names, verbs: ruleVerbs } of byNames.values()) rules.push(rule([group], [resource], ruleVerbs, names));
  }
  rules = mergeOn(
    rules,
    (r) => [r.apiGroups, r.verbs, r.resourceNames],
    (into, from) =>
      rule(
        into.apiGroups ?? [],
        [...(into.resources ?? []), ...(from.resources ?? [])],
        into.verbs,
        into.resourceNames ?? [],
      ),
  );
  rules = mergeOn(
    rules,
    (r) => [r.resources, r.verbs, r.resourceNames],
    (into, from) =>
      rule(
        [...(into.apiGroups ?? []), ...(from.apiGroups ?? [])],
        into.resources ?? [],
        into.verbs,
        into.resourceNames ?? [],
      ),
  );
  return rules.sort(comparePolicyRules);
}

/** A rule with sorted, de-duplicated lists; `resourceNames` is omitted when empty (every name). */
export function rule(
  apiGroups: readonly string[],
  resources: readonly string[],
  verbs: readonly string[],
  resourceNames: readonly string[] = [],
): PolicyRule {
  const sorted = (xs: readonly string[]) => [...new Set(xs)].sort(compareText);
  const out: PolicyRule = { apiGroups: sorted(apiGroups), resources: sorted(resources), verbs: sorted(verbs) };
  if (resourceNames.length > 0) out.resourceNames = sorted(resourceNames);
  return out;
}

/** Deterministic order of rules: by apiGroups, then resources, verbs and resourceNames. */
export function comparePolicyRules(a: PolicyRule, b: PolicyRule): number {
  const text = (xs: readonly string[] | undefined) => (xs ?? []).join(',');
  return (
    compareText(text(a.apiGroups), text(b.apiGroups)) ||
    compareText(text(a.resources), text(b.resources)) ||
    compareText(text(a.verbs), text(b.verbs)) ||
    compareText(text(a.resourceNames), text(b.resourceNames)) ||
    compareText(text(a.nonResourceURLs), text(b.nonResourceURLs))
  );
}

/** Merges rules whose `identity` lists are equal, folding them with `combine`. Keeps first-seen order. */
function mergeOn(
  rules: readonly PolicyRule[],
  identity: (r: PolicyRule) => (readonly string[] | undefined)[],
  combine: (into: PolicyRule, from: PolicyRule) => PolicyRule,
): PolicyRule[] {
  const merged = new Map<string, PolicyRule>();
  for (const r of rules) {
    const key = identity(r)
      .map((xs) => (xs ?? []).join('\u0001'))
      .join('\u0002');
    const existing = merged.get(key);
    merged.set(key, existing === undefined ? r : combine(existing, r));
  }
  return [...merged.values()];
}
