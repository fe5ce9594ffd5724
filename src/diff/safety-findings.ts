/**
 * The upgrade safety report: facts about the change from `before` to `after` that a reviewer must
 * weigh before merging, each with a severity (`danger` means a human decision is needed).
 */
import type { KubeObject } from '../manifest/object.js';
import { componentKey, componentKinds } from './findings/component-kind.js';
import { findContractFindings } from './findings/contract-findings.js';
import { findCrdFindings, type ComponentRoles } from './findings/crd-findings.js';
import { findRbacBindingFindings, type BoundRoles } from './findings/rbac-binding-findings.js';
import { findRbacFindings, type RoleContext } from './findings/rbac-findings.js';
import { findRemovalFindings } from './findings/removal-findings.js';
import { findVariableFindings } from './findings/variable-findings.js';
import { findWebhookFindings } from './findings/webhook-findings.js';
import { findWorkloadFindings } from './findings/workload-findings.js';
import { pairObjects, type ObjectPair } from './pair-objects.js';
import type { Finding, FindingSeverity, RenderedSide, SafetyContext } from './types.js';
import { compareText, isDeepEqual } from './util-compare.js';

const SEVERITY_RANK: Record<FindingSeverity, number> = { danger: 0, warning: 1, info: 2 };

/**
 * Every finding for the change from `before` to `after`: contract changes, providers left on a
 * contract older than the core's, and the variables a provider stops or starts reading (from
 * `context`), CRD
 * versions added/removed/unserved/deprecated and storage-version changes, webhooks added/removed/
 * changed, RBAC permissions gained/lost and aggregation, (Cluster)RoleBindings granting a role to
 * new subjects or changing their roleRef, images, arguments and feature gates, and objects that
 * will be pruned or move between components.
 * Sorted by severity (danger first), environment, component, object, code and message, so the
 * result does not depend on input order. Pure; unchanged objects are skipped cheaply.
 */
export function safetyFindings(before: RenderedSide, after: RenderedSide, context: SafetyContext = {}): Finding[] {
  const pairs = pairObjects(before, after);
  const roles = clusterRolesPerEnv(pairs);
  const bound = boundRolesPerEnv(pairs, roles);
  const owners = componentsPerEnv(pairs);
  const componentRoles = clusterRolesPerComponent(pairs);
  const kinds = componentKinds(pairs);
  const out: Finding[] = [
    ...findContractFindings(context.contracts ?? [], kinds),
    ...findVariableFindings(context.variables ?? []),
  ];
  for (const pair of pairs) {
    if (pair.before !== undefined && pair.after !== undefined && isDeepEqual(pair.before, pair.after)) {
      // Unchanged, but an aggregating ClusterRole can still change through the roles it selects.
      if (pair.after.kind === 'ClusterRole') out.push(...findRbacFindings(pair, roles.get(pair.env)!));
      continue;
    }
    const component = componentKey(pair.env, pair.component);
    out.push(
      ...findCrdFindings(pair, componentRoles.get(component), kinds.get(component)),
      ...findWebhookFindings(pair),
      ...findRbacFindings(pair, roles.get(pair.env)!),
      ...findRbacBindingFindings(pair, bound.get(pair.env)!),
      ...findWorkloadFindings(pair),
    );
    if (pair.after === undefined) {
      const movedTo = owners.get(`${pair.env}\n${pair.id}`)?.find((c) => c !== pair.component);
      out.push(...findRemovalFindings(pair, movedTo));
    }
  }
  return out.sort(compareFindings);
}

function compareFindings(a: Finding, b: Finding): number {
  return (
    SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] ||
    compareText(a.env, b.env) ||
    compareText(a.component, b.component) ||
    compareText(a.object ?? '', b.object ?? '') ||
    compareText(a.code, b.code) ||
    compareText(a.message, b.message)
  );
}

/** The ClusterRoles of each environment, per side, across components. */
function clusterRolesPerEnv(pairs: readonly ObjectPair[]): Map<string, RoleContext> {
  const out = new Map<string, { before: KubeObject[]; after: KubeObject[] }>();
  for (const pair of pairs) {
    const entry = out.get(pair.env) ?? { before: [], after: [] };
    out.set(pair.env, entry);
    if (pair.before?.kind === 'ClusterRole') entry.before.push(pair.before);
    if (pair.after?.kind === 'ClusterRole') entry.after.push(pair.after);
  }
  return out;
}

/** For `env\ncomponent`: the ClusterRoles the component renders before and after the change. */
function clusterRolesPerComponent(pairs: readonly ObjectPair[]): Map<string, ComponentRoles> {
  const out = new Map<string, { before: KubeObject[]; after: KubeObject[] }>();
  for (const pair of pairs) {
    const key = componentKey(pair.env, pair.component);
    const entry = out.get(key) ?? { before: [], after: [] };
    out.set(key, entry);
    if (pair.before?.kind === 'ClusterRole') entry.before.push(pair.before);
    if (pair.after?.kind === 'ClusterRole') entry.after.push(pair.after);
  }
  return out;
}

/** The Roles and ClusterRoles of each environment after the change, across components: what bindings grant. */
function boundRolesPerEnv(
  pairs: readonly ObjectPair[],
  clusterRoles: ReadonlyMap<string, RoleContext>,
): Map<string, BoundRoles> {
  const roles = new Map<string, KubeObject[]>();
  for (const pair of pairs) {
    if (pair.after?.kind !== 'Role') continue;
    const list = roles.get(pair.env) ?? [];
    roles.set(pair.env, list);
    list.push(pair.after);
  }
  return new Map(
    [...clusterRoles].map(([env, context]) => [env, { clusterRoles: context.after, roles: roles.get(env) ?? [] }]),
  );
}

/** For `env\nid`: the components that render the object after the change (sorted, from the pair order). */
function componentsPerEnv(pairs: readonly ObjectPair[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const pair of pairs) {
    if (pair.after === undefined) continue;
    const key = `${pair.env}\n${pair.id}`;
    out.set(key, [...(out.get(key) ?? []), pair.component]);
  }
  return out;
}
