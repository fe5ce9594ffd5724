/**
 * Human-readable text of provider grants, for `capi-render rbac` and review: per provider, its
 * subjects, then cluster-scoped permissions, then each namespace's, then the escalations.
 */
import type { ProviderGrant, RuleSummary } from './rbac-types.js';

/**
 * One block per provider, separated by a blank line; each line of permissions reads like
 * `kubectl describe clusterrole`: `resource.group/subresource [names]: verbs`. Deterministic: the
 * grants are printed in the order given, with their already-sorted lines.
 */
export function formatGrants(grants: readonly ProviderGrant[]): string {
  return grants.map(formatGrant).join('\n');
}

function formatGrant(g: ProviderGrant): string {
  const lines = [`${g.component}: ${g.subjects.length > 0 ? g.subjects.join(', ') : 'no subjects'}`];
  if (g.clusterScoped.length === 0 && g.namespaced.length === 0) lines.push('  grants nothing');
  if (g.clusterScoped.length > 0)
    lines.push('  cluster-scoped:', ...g.clusterScoped.map((r) => `    ${formatRuleSummary(r)}`));
  for (const n of g.namespaced)
    lines.push(`  namespace ${n.namespace}:`, ...n.rules.map((r) => `    ${formatRuleSummary(r)}`));
  if (g.escalations.length > 0) lines.push('  escalations:', ...g.escalations.map((e) => `    - ${e}`));
  return `${lines.join('\n')}\n`;
}

/** `secrets: get, list`, `clusters.cluster.x-k8s.io/status: patch`, `/metrics: get`. */
export function formatRuleSummary(r: RuleSummary): string {
  return `${formatResource(r)}: ${r.verbs.join(', ')}`;
}

/** `resource.group/subresource [names]` (core group and non-resource URLs without a group). */
export function formatResource(r: Pick<RuleSummary, 'group' | 'resource' | 'resourceNames'>): string {
  const slash = r.resource.indexOf('/');
  const base = slash < 0 ? r.resource : r.resource.slice(0, slash);
  const sub = slash < 0 ? '' : r.resource.slice(slash);
  const resource = r.group === '' || r.resource.startsWith('/') ? r.resource : `${base}.${r.group}${sub}`;
  return r.resourceNames.length > 0 ? `${resource} [${r.resourceNames.join(', ')}]` : resource;
}
