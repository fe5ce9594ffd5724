/**
 * ClusterRole aggregation (the kube-controller-manager's clusterrole-aggregation controller): a
 * ClusterRole with an `aggregationRule` holds the union of the rules of every ClusterRole its
 * `clusterRoleSelectors` match; whatever its own `rules` say is overwritten by the controller.
 * Cluster API core uses this (`capi-aggregated-manager-role` gathers every ClusterRole labelled
 * `cluster.x-k8s.io/aggregate-to-manager: "true"`), as does the kubeadm control plane.
 */
import { getIn, isJsonObject, labelsOf, nameOf, type JsonValue, type KubeObject } from '../manifest/object.js';
import { matchesLabelSelector } from '../source/label-selector.js';
import type { LabelSelector } from '../declarations/provider-spec.js';
import type { RbacComponent } from './rbac-types.js';

/** The label selectors of a ClusterRole's aggregationRule, or undefined when it has none. */
export function aggregationSelectors(role: KubeObject): LabelSelector[] | undefined {
  if (!isJsonObject(role.aggregationRule)) return undefined;
  const selectors = getIn(role, ['aggregationRule', 'clusterRoleSelectors']);
  return (Array.isArray(selectors) ? selectors : []).filter(isJsonObject).map((s) => s as LabelSelector);
}

/**
 * The rules `role` grants once the aggregation controller has run over `clusterRoles` (the rendered
 * ones — ClusterRoles added to the cluster later can add more). A role without an aggregationRule
 * grants its own rules. Matched roles are taken in name order, nested aggregation is followed, and
 * duplicate rules are dropped, as the controller does.
 */
export function effectiveClusterRoleRules(
  role: KubeObject,
  clusterRoles: readonly KubeObject[],
  visiting: ReadonlySet<string> = new Set(),
): JsonValue[] {
  const selectors = aggregationSelectors(role);
  if (selectors === undefined) return Array.isArray(role.rules) ? role.rules : [];
  const seen = new Set([...visiting, nameOf(role)]);
  const matched = clusterRoles
    .filter((other) => !seen.has(nameOf(other)) && selectors.some((s) => matchesLabelSelector(s, labelsOf(other))))
    .sort((a, b) => (nameOf(a) < nameOf(b) ? -1 : nameOf(a) > nameOf(b) ? 1 : 0));
  const rules: JsonValue[] = [];
  const keys = new Set<string>();
  for (const other of matched) {
    for (const r of effectiveClusterRoleRules(other, clusterRoles, seen)) {
      const key = JSON.stringify(r);
      if (keys.has(key)) continue;
      keys.add(key);
      rules.push(r);
    }
  }
  return rules;
}

/** The rendered ClusterRoles (of every component) that carry an aggregationRule. */
export function listAggregatedClusterRoles(components: readonly RbacComponent[]): KubeObject[] {
  return components
    .flatMap((c) => c.objects)
    .filter(
      (o) =>
        o.apiVersion === 'rbac.authorization.k8s.io/v1' &&
        o.kind === 'ClusterRole' &&
        aggregationSelectors(o) !== undefined,
    );
}
