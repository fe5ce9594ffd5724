/**
 * Safety findings for Roles and ClusterRoles: the permissions each one gains and loses (after
 * expanding rules to single permissions, so reordering or regrouping rules is not a change),
 * and changes to ClusterRole aggregation.
 *
 * Severity of gains: `danger` for wildcards and escalate/bind/impersonate, `warning` for a
 * ClusterRole (cluster-wide; the details say when it is aggregated into another ClusterRole or
 * into the built-in admin/edit/view roles), `info` for a namespaced Role. Losses are `info`: a controller that lost a permission it still
 * needs fails loudly, which the upgrade's own tests catch.
 */
import { labelsOf, nameOf, namespaceOf, type KubeObject } from '../../manifest/object.js';
import { formatLabelSelector, matchesLabelSelector } from '../../source/label-selector.js';
import type { LabelSelector } from '../../declarations/provider-spec.js';
import type { ObjectPair } from '../pair-objects.js';
import type { Finding } from '../types.js';
import { compareText, isDeepEqual } from '../util-compare.js';
import { makeFinding } from './make-finding.js';
import {
  expandRules,
  formatPermission,
  isDangerousPermission,
  summarizePermissions,
  uncoveredPermissions,
  type Permission,
} from './rbac-permissions.js';

/** The ClusterRoles of one environment on each side, across all components (aggregation is cluster-wide). */
export interface RoleContext {
  before: readonly KubeObject[];
  after: readonly KubeObject[];
}

const BUILT_IN_AGGREGATION = /^rbac\.authorization\.k8s\.io\/aggregate-to-(.+)$/;

/** The RBAC findings of one object pair; none for kinds other than Role and ClusterRole. */
export function findRbacFindings(pair: ObjectPair, roles: RoleContext): Finding[] {
  const object = pair.after ?? pair.before;
  if (object === undefined || (object.kind !== 'Role' && object.kind !== 'ClusterRole')) return [];
  const label = `${object.kind} ${nameOf(object)}`;
  const aggregation = aggregationFinding(pair, roles, label);
  // An aggregated ClusterRole's rules are filled in by the controller manager from the roles it
  // selects; their permissions are reported on those roles, not a second time here.
  if (selectorsOf(pair.after) !== undefined || selectorsOf(pair.before) !== undefined) return aggregation;
  const old = expandRules(pair.before?.rules);
  const now = expandRules(pair.after?.rules);
  const gained = uncoveredPermissions(now, old);
  const lost = uncoveredPermissions(old, now);
  const out: Finding[] = [...aggregation];
  if (gained.length > 0) {
    const dangerous = gained.filter(isDangerousPermission);
    const into = aggregatedInto(pair.after, roles.after);
    const builtIn = builtInAggregation(pair.after);
    const severity = dangerous.length > 0 ? 'danger' : object.kind === 'ClusterRole' ? 'warning' : 'info';
    const scope = object.kind === 'ClusterRole' ? 'cluster-wide' : `in namespace ${namespaceOf(object)}`;
    const details = [
      ...summarizePermissions(dangerous).map((line) => `dangerous: ${line}`),
      ...summarizePermissions(gained.filter((p) => !isDangerousPermission(p))),
      ...into.map((name) => `aggregated into ClusterRole ${name}, so its subjects gain these too`),
      ...builtIn.map(
        (role) => `aggregated into the built-in ClusterRole ${role}: every subject bound to ${role} gains these`,
      ),
    ];
    out.push(
      makeFinding(severity, 'rbac-permissions-gained', pair, `${label} gains ${count(gained.length)} ${scope}`, {
        details,
        subjects: sortedPermissions(gained),
      }),
    );
  }
  if (lost.length > 0) {
    out.push(
      makeFinding('info', 'rbac-permissions-lost', pair, `${label} loses ${count(lost.length)}`, {
        details: summarizePermissions(lost),
        subjects: sortedPermissions(lost),
      }),
    );
  }
  return out;
}

/** A note when an aggregating ClusterRole appears, changes its selectors, or selects other roles. */
function aggregationFinding(pair: ObjectPair, roles: RoleContext, label: string): Finding[] {
  const now = selectorsOf(pair.after);
  const old = selectorsOf(pair.before);
  if (now === undefined && old === undefined) return [];
  if (now === undefined)
    return [
      makeFinding('info', 'rbac-aggregation', pair, `${label} no longer aggregates other ClusterRoles`, {
        subjects: selectedRoles(old!, roles.before),
      }),
    ];
  const selected = selectedRoles(now, roles.after);
  const previously = old === undefined ? [] : selectedRoles(old, roles.before);
  if (old !== undefined && isDeepEqual(old, now) && isDeepEqual(selected, previously)) return [];
  const details = [
    `selectors: ${now.map(formatLabelSelector).join(' | ')}`,
    `aggregates: ${selected.join(', ') || '(no ClusterRole in this environment)'}`,
  ];
  if (old !== undefined && !isDeepEqual(previously, selected))
    details.push(`aggregated before: ${previously.join(', ') || '(none)'}`);
  const message =
    old === undefined
      ? `${label} aggregates the ClusterRoles its selectors match`
      : `${label}: aggregated ClusterRoles changed`;
  return [makeFinding('info', 'rbac-aggregation', pair, message, { details, subjects: selected })];
}

/** The clusterRoleSelectors of an aggregating ClusterRole; undefined for any other role. */
export function selectorsOf(role: KubeObject | undefined): LabelSelector[] | undefined {
  const rule = role?.aggregationRule as { clusterRoleSelectors?: unknown } | undefined;
  return Array.isArray(rule?.clusterRoleSelectors) ? (rule.clusterRoleSelectors as LabelSelector[]) : undefined;
}

/** Names of the ClusterRoles (other than the aggregating one) that any selector matches, sorted. */
function selectedRoles(selectors: readonly LabelSelector[], roles: readonly KubeObject[]): string[] {
  return roles
    .filter((r) => selectorsOf(r) === undefined && selectors.some((s) => matchesLabelSelector(s, labelsOf(r))))
    .map(nameOf)
    .sort(compareText);
}

/** Aggregating ClusterRoles of the same environment whose selectors match `role`'s labels. */
function aggregatedInto(role: KubeObject | undefined, roles: readonly KubeObject[]): string[] {
  if (role?.kind !== 'ClusterRole') return [];
  const labels = labelsOf(role);
  return roles
    .filter((r) => selectorsOf(r)?.some((s) => matchesLabelSelector(s, labels)))
    .map(nameOf)
    .sort(compareText);
}

/** `admin`, `edit`, `view`… for `rbac.authorization.k8s.io/aggregate-to-<role>: "true"` labels. */
function builtInAggregation(role: KubeObject | undefined): string[] {
  if (role?.kind !== 'ClusterRole') return [];
  return Object.entries(labelsOf(role))
    .flatMap(([key, value]) => (value === 'true' ? [BUILT_IN_AGGREGATION.exec(key)?.[1]] : []))
    .filter((name): name is string => name !== undefined)
    .sort(compareText);
}

function sortedPermissions(list: readonly Permission[]): string[] {
  return list.map(formatPermission).sort(compareText);
}

function count(n: number): string {
  return `${n} ${n === 1 ? 'permission' : 'permissions'}`;
}
