/**
 * Output-specific facts about the applier's role that a reviewer must know: where it cannot be
 * restricted by name, what it makes the applier able to reach, and rendered objects the applier
 * would fight over with a controller.
 */
import { nameOf } from '../manifest/object.js';
import { listAggregatedClusterRoles } from './aggregated-roles.js';
import { isNeverDeleted, type ResolvedApplier } from './applier-options.js';
import { compareText } from './permission.js';
import type { RbacComponent } from './rbac-types.js';

/** The notes for `components` under `applier`, sorted. */
export function collectApplierNotes(components: readonly RbacComponent[], applier: ResolvedApplier): string[] {
  const objects = components.flatMap((c) => c.objects);
  const notes: string[] = [];
  if (
    objects.some(
      (o) => o.apiVersion === 'rbac.authorization.k8s.io/v1' && (o.kind === 'Role' || o.kind === 'ClusterRole'),
    )
  ) {
    notes.push(
      "escalate on the rendered Roles/ClusterRoles, with patch on the controllers' Deployments, lets the applier reach every permission those controllers could be given: review rendered RBAC changes like changes to this role",
    );
  }
  if (!applier.serverSideApply) {
    notes.push(
      'client-side apply creates with POST, which carries no name: create on every rendered resource and escalate on roles/clusterroles are granted for any name; server-side apply restricts both to the rendered names',
    );
  }
  if (applier.watch && objects.some((o) => o.apiVersion === 'v1' && o.kind === 'Secret')) {
    notes.push(
      "the render contains Secrets, so the watch cache's cluster-wide list/watch on secrets lets the applier read every Secret in the cluster",
    );
  }
  if (applier.healthChecks && objects.some((o) => o.apiVersion === 'v1' && o.kind === 'Secret')) {
    notes.push(
      "the render contains Secrets, so the health checks' list/watch on secrets lets the applier read every Secret in those namespaces (rbac --no-health-checks if your Kustomizations do not wait)",
    );
  }
  for (const role of listAggregatedClusterRoles(components)) {
    if (role.rules !== undefined) {
      notes.push(
        `ClusterRole ${nameOf(role)} has an aggregationRule but is rendered with rules: the applier would reset the rules the aggregation controller fills on every sync; render it without rules (Argo CD also needs resource.compareoptions ignoreAggregatedRoles: true)`,
      );
    }
  }
  const kept = objects.filter((o) => applier.prune && isNeverDeleted(applier, o)).length;
  if (kept > 0)
    notes.push(
      `${kept} rendered object${kept === 1 ? ' is' : 's are'} marked never to be deleted by ${applier.kind === 'argocd' ? 'Argo CD' : 'Flux'}: no delete is granted on ${kept === 1 ? 'it' : 'them'}`,
    );
  return notes.sort(compareText);
}
