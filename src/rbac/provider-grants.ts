/**
 * What each provider's own RBAC grants its controllers: every binding of a component is followed to
 * its role (in any component — a binding may use another provider's ClusterRole), aggregated
 * ClusterRoles are expanded, and every rule is flattened into one line per (group, resource, names)
 * with its verbs merged.
 */
import { getIn, isJsonObject, nameOf, namespaceOf, type JsonValue } from '../manifest/object.js';
import { formatLabelSelector } from '../source/label-selector.js';
import { aggregationSelectors, effectiveClusterRoleRules } from './aggregated-roles.js';
import { findEscalations } from './grant-escalations.js';
import { compareText } from './permission.js';
import type { ProviderGrant, RbacComponent, RuleSummary } from './rbac-types.js';

const RBAC_V1 = 'rbac.authorization.k8s.io/v1';

/** One {@link ProviderGrant} per component, in component order. Pure. */
export function summarizeProviderGrants(components: readonly RbacComponent[]): ProviderGrant[] {
  const all = components.flatMap((c) => c.objects).filter((o) => o.apiVersion === RBAC_V1);
  const clusterRoles = all.filter((o) => o.kind === 'ClusterRole');
  const clusterRoleByName = new Map(clusterRoles.map((o) => [nameOf(o), o]));
  const roleByKey = new Map(all.filter((o) => o.kind === 'Role').map((o) => [`${namespaceOf(o)}/${nameOf(o)}`, o]));

  return components.map((component) => {
    const subjects = new Set<string>();
    const cluster: JsonValue[] = [];
    const perNamespace = new Map<string, JsonValue[]>();
    const escalations: string[] = [];
    for (const binding of component.objects) {
      if (binding.apiVersion !== RBAC_V1 || (binding.kind !== 'ClusterRoleBinding' && binding.kind !== 'RoleBinding'))
        continue;
      const namespace = binding.kind === 'RoleBinding' ? namespaceOf(binding) : '';
      for (const s of Array.isArray(binding.subjects) ? binding.subjects : [])
        subjects.add(describeSubject(s, namespace));
      const refKind = getIn(binding, ['roleRef', 'kind']);
      const refName = String(getIn(binding, ['roleRef', 'name']) ?? '');
      const role =
        refKind === 'ClusterRole' ? clusterRoleByName.get(refName) : roleByKey.get(`${namespace}/${refName}`);
      if (role === undefined) {
        escalations.push(unrenderedRole(String(refKind), refName, namespace));
        continue;
      }
      const selectors = aggregationSelectors(role);
      if (selectors !== undefined) {
        escalations.push(
          `${refName} aggregates every ClusterRole labelled ${selectors.map(formatLabelSelector).join(' or ')}: any such ClusterRole added to the cluster extends it`,
        );
      }
      const rules =
        refKind === 'ClusterRole'
          ? effectiveClusterRoleRules(role, clusterRoles)
          : Array.isArray(role.rules)
            ? role.rules
            : [];
      if (namespace === '') cluster.push(...rules);
      else perNamespace.set(namespace, [...(perNamespace.get(namespace) ?? []), ...rules]);
    }
    const clusterScoped = summarizeRules(cluster);
    const namespaced = [...perNamespace.keys()]
      .sort(compareText)
      .map((ns) => ({ namespace: ns, rules: summarizeRules(perNamespace.get(ns) ?? []) }));
    escalations.push(...findEscalations(clusterScoped, ''));
    for (const n of namespaced) escalations.push(...findEscalations(n.rules, n.namespace));
    return {
      component: component.name,
      subjects: [...subjects].sort(compareText),
      clusterScoped,
      namespaced,
      escalations: [...new Set(escalations)],
    };
  });
}

/**
 * Flattens PolicyRules into (group × resource) lines, merging the verbs of lines with the same
 * group, resource and names. Non-resource URLs become lines with group '' and the URL as resource.
 * Sorted by group ('' first), resource and names.
 */
export function summarizeRules(rules: readonly JsonValue[]): RuleSummary[] {
  const lines = new Map<string, RuleSummary>();
  const add = (group: string, resource: string, verbs: string[], resourceNames: string[]) => {
    const key = [group, resource, resourceNames.join(',')].join('\u0001');
    const line = lines.get(key) ?? { group, resource, verbs: [], resourceNames };
    line.verbs = [...new Set([...line.verbs, ...verbs])].sort(compareText);
    lines.set(key, line);
  };
  for (const r of rules) {
    if (!isJsonObject(r)) continue;
    const verbs = strings(r.verbs);
    const names = strings(r.resourceNames).sort(compareText);
    for (const url of strings(r.nonResourceURLs)) add('', url, verbs, []);
    for (const group of strings(r.apiGroups))
      for (const resource of strings(r.resources)) add(group, resource, verbs, names);
  }
  return [...lines.values()].sort(
    (a, b) =>
      compareText(a.group, b.group) ||
      compareText(a.resource, b.resource) ||
      compareText(a.resourceNames.join(','), b.resourceNames.join(',')),
  );
}

function unrenderedRole(kind: string, name: string, namespace: string): string {
  if (kind === 'ClusterRole' && name === 'cluster-admin')
    return `binds ClusterRole cluster-admin${namespace ? ` in ${namespace}` : ''}: every permission`;
  return `binds ${kind} ${name}${namespace ? ` in ${namespace}` : ''}, which the render does not contain: its permissions are not listed here`;
}

function describeSubject(subject: JsonValue, bindingNamespace: string): string {
  if (!isJsonObject(subject)) return '<invalid subject>';
  const name = String(subject.name ?? '');
  if (subject.kind === 'ServiceAccount')
    return `ServiceAccount ${typeof subject.namespace === 'string' && subject.namespace ? subject.namespace : bindingNamespace}/${name}`;
  return `${String(subject.kind)} ${name}`;
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((x): x is string => typeof x === 'string') : [];
}
