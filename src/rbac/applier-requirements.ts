/**
 * What a GitOps applier asks the API server to do with a render, as RBAC permission tuples. This is
 * the specification both the role builder and the verifier work from; every verb below is justified
 * by the request the applier actually sends.
 */
import { error, throwIfErrors, type Diagnostic } from '../errors.js';
import { describeObject, getIn } from '../manifest/object.js';
import { isNeverDeleted, type ResolvedApplier } from './applier-options.js';
import { uniquePermissions } from './permission.js';
import type { Permission, RbacComponent } from './rbac-types.js';
import { resolveObjects, type ResolvedObject } from './resolve-objects.js';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';

/**
 * Every permission the applier needs to apply `components` and, with prune on, to delete them and
 * the `retired` objects the render no longer contains. Sorted, without duplicates. Throws one
 * SpecError (code `rbac`) naming every object whose kind, name, namespace or roleRef is unusable.
 */
export function listRequiredPermissions(
  components: readonly RbacComponent[],
  applier: ResolvedApplier,
  retired: readonly RbacComponent[] = [],
): Permission[] {
  const current = resolveObjects(components, retired);
  const problems: Diagnostic[] = [];
  const required: Permission[] = current.flatMap((o) => applyPermissions(o, applier, problems));
  throwIfErrors(problems);
  if (applier.prune && retired.length > 0) {
    const kept = new Set(current.map(objectKey));
    for (const o of resolveObjects(retired, components)) {
      if (!kept.has(objectKey(o))) required.push(...prunePermissions(o, applier));
    }
  }
  return uniquePermissions(required);
}

function applyPermissions(o: ResolvedObject, applier: ResolvedApplier, problems: Diagnostic[]): Permission[] {
  const on = (verb: string, name: string | null = o.name): Permission => ({
    namespace: o.namespace,
    group: o.group,
    resource: o.resource,
    verb,
    name,
  });
  const out: Permission[] = [
    // get: kubectl's client-side apply reads the object to choose between create and patch, and
    // Flux reads it to compute drift. Both by name, so resourceNames restricts it.
    on('get'),
    // patch: client-side apply sends a strategic-merge/merge patch, server-side apply an apply
    // patch. Neither applier sends PUT (update) unless told to replace (Argo CD `Replace=true`),
    // which capi-render never asks for, so update is not granted — except for Argo CD's
    // client-side RBAC reconcile (authReconcilePermissions).
    on('patch'),
    // create: a POST carries no object name at authorization time, so create cannot be limited by
    // resourceNames ("You cannot restrict create or deletecollection requests by their resource
    // name", RBAC docs). Server-side apply creates through PATCH /<resource>/<name>, and the API
    // server then authorizes `create` with that name (apiserver endpoints/handlers/patch.go), so
    // under SSA create *can* be restricted to the rendered names.
    on('create', applier.serverSideApply ? o.name : null),
  ];
  // delete: pruning sends DELETE /<resource>/<name>; restricted by name like get and patch.
  if (applier.prune && !isNeverDeleted(applier, o.object)) out.push(on('delete'));
  // list/watch carry a name only with a metadata.name field selector, which no watch cache uses:
  // they are granted for the whole resource, across all namespaces (one informer per kind).
  if (applier.watch) out.push(acrossCluster(o, 'list'), acrossCluster(o, 'watch'));
  if (applier.healthChecks) out.push(...healthCheckPermissions(o));
  out.push(...rbacPermissions(o, applier, problems));
  return out;
}

/** Workload kinds whose kstatus health is computed from the objects they own (cli-utils statusreaders). */
const OWNED_FOR_HEALTH: Record<string, { group: string; resource: string }[]> = {
  'apps/deployments': [
    { group: 'apps', resource: 'replicasets' },
    { group: '', resource: 'pods' },
  ],
  'apps/replicasets': [{ group: '', resource: 'pods' }],
  'apps/statefulsets': [{ group: '', resource: 'pods' }],
};

/**
 * Flux `wait: true` health-checks every applied object with kstatus, as the applier (impersonated
 * ServiceAccount included). Its caching cluster reader lists each kind in each namespace it polls
 * (cluster-wide for cluster-scoped kinds), and a Deployment's status lists its ReplicaSets and
 * their Pods by selector. list and watch are not restricted by name, so they are granted per
 * namespace (without them the status stays Unknown until the timeout).
 */
function healthCheckPermissions(o: ResolvedObject): Permission[] {
  const inNamespace = (group: string, resource: string): Permission[] =>
    ['list', 'watch'].map((verb) => ({ namespace: o.namespace, group, resource, verb, name: null }));
  return [
    ...inNamespace(o.group, o.resource),
    ...(OWNED_FOR_HEALTH[`${o.group}/${o.resource}`] ?? []).flatMap((r) => inNamespace(r.group, r.resource)),
  ];
}

/**
 * The RBAC API's escalation checks (k8s.io/kubernetes pkg/registry/rbac): writing a Role or
 * ClusterRole needs every permission it contains or `escalate` on it; writing a binding needs the
 * bound role's permissions or `bind` on that role. `escalate` is authorized with the request URL's
 * name — empty for a POST create, so under client-side apply it cannot be restricted by name.
 * `bind` is authorized with roleRef.name in the binding's namespace, so it always can.
 */
function rbacPermissions(o: ResolvedObject, applier: ResolvedApplier, problems: Diagnostic[]): Permission[] {
  if (o.group !== RBAC_GROUP) return [];
  if (o.resource === 'roles' || o.resource === 'clusterroles') {
    return [
      {
        namespace: o.namespace,
        group: RBAC_GROUP,
        resource: o.resource,
        verb: 'escalate',
        name: applier.serverSideApply ? o.name : null,
      },
      ...authReconcilePermissions(o, applier),
    ];
  }
  if (o.resource !== 'rolebindings' && o.resource !== 'clusterrolebindings') return [];
  const where = describeObject(o.object);
  const kind = getIn(o.object, ['roleRef', 'kind']);
  const name = getIn(o.object, ['roleRef', 'name']);
  const group = getIn(o.object, ['roleRef', 'apiGroup']);
  const validKind = kind === 'ClusterRole' || (kind === 'Role' && o.resource === 'rolebindings');
  if (!validKind || typeof name !== 'string' || name === '' || group !== RBAC_GROUP) {
    problems.push(
      error('rbac', `${where} has an invalid roleRef`, {
        object: where,
        field: 'roleRef',
        hint: `roleRef needs apiGroup ${RBAC_GROUP}, a kind of ClusterRole (or Role in a RoleBinding) and a name`,
      }),
    );
    return [];
  }
  return [
    {
      namespace: o.namespace,
      group: RBAC_GROUP,
      resource: kind === 'Role' ? 'roles' : 'clusterroles',
      verb: 'bind',
      name,
    },
    ...authReconcilePermissions(o, applier),
  ];
}

/**
 * Argo CD's client-side sync runs `kubectl auth reconcile` on every rbac.authorization.k8s.io/v1
 * object before `kubectl apply` (gitops-engine pkg/sync/resource_ops.go, skipped under server-side
 * apply). Reconcile first reads the object's Namespace (gitops-engine refuses to let reconcile
 * create it), then PUTs (update) a role or binding whose rules or subjects differ, and deletes and
 * re-creates a binding whose roleRef changed — even with pruning off. An explicit ServiceAccount
 * may be Argo CD's sync impersonation, so it gets the same.
 */
function authReconcilePermissions(o: ResolvedObject, applier: ResolvedApplier): Permission[] {
  if (applier.serverSideApply || applier.kind === 'flux') return [];
  const on = (verb: string): Permission => ({
    namespace: o.namespace,
    group: RBAC_GROUP,
    resource: o.resource,
    verb,
    name: o.name,
  });
  const out = [on('update')];
  if (o.resource === 'rolebindings' || o.resource === 'clusterrolebindings') out.push(on('delete'));
  if (o.namespace !== '')
    out.push({ namespace: '', group: '', resource: 'namespaces', verb: 'get', name: o.namespace });
  return out;
}

/** Pruning an object of the previous render: read it (Flux checks its prune annotation), delete it. */
function prunePermissions(o: ResolvedObject, applier: ResolvedApplier): Permission[] {
  if (isNeverDeleted(applier, o.object)) return [];
  const on = (verb: string): Permission => ({
    namespace: o.namespace,
    group: o.group,
    resource: o.resource,
    verb,
    name: o.name,
  });
  const out = [on('get'), on('delete')];
  if (applier.watch) out.push(acrossCluster(o, 'list'), acrossCluster(o, 'watch'));
  return out;
}

function acrossCluster(o: ResolvedObject, verb: string): Permission {
  return { namespace: '', group: o.group, resource: o.resource, verb, name: null };
}

function objectKey(o: ResolvedObject): string {
  return `${o.group}/${o.resource}/${o.namespace}/${o.name}`;
}
