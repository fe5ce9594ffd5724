import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { ApplierRbacOptions, KubeObject, Permission, RbacComponent } from 'capi-render';
import { apiGroup, nameOf, namespaceOf } from '../../src/manifest/object.js';
import { computeApplierRbac } from '../../src/rbac/compute-applier-rbac.js';
import { formatGrants } from '../../src/rbac/format-grants.js';
import { summarizeProviderGrants } from '../../src/rbac/provider-grants.js';
import { formatPermission } from '../../src/rbac/permission.js';
import { isApplierAllowed, listGrantedPermissions, verifyApplierRbac } from '../../src/rbac/verify-applier-rbac.js';
import { deepFreeze } from '../helpers/fixtures.js';
import { CERT_MANAGER, fixtureObjects } from '../helpers/fixtures.js';
import { loadV112Components } from '../helpers/rbac-components.js';

const components = loadV112Components();
const allObjects = components.flatMap((c) => c.objects);

/** The kinds of the example that are cluster-scoped, written out independently of src/. */
const CLUSTER_SCOPED = new Set([
  'Namespace',
  'CustomResourceDefinition',
  'ClusterRole',
  'ClusterRoleBinding',
  'MutatingWebhookConfiguration',
  'ValidatingWebhookConfiguration',
]);

/**
 * What the tests expect the applier to be allowed, derived here from the objects alone (every kind
 * of the example pluralises as lowercase + 's'), so the check does not reuse src/'s requirements.
 */
function expectedPermissions(
  objects: readonly KubeObject[],
  opts: { prune: boolean; watch: boolean; health?: boolean },
): Set<string> {
  const out = new Set<string>();
  const add = (p: Permission) => out.add(formatPermission(p));
  for (const o of objects) {
    const group = apiGroup(o.apiVersion);
    const resource = `${o.kind.toLowerCase()}s`;
    const namespace = CLUSTER_SCOPED.has(o.kind) ? '' : namespaceOf(o);
    const name = nameOf(o);
    for (const verb of ['create', 'get', 'patch', ...(opts.prune ? ['delete'] : [])])
      add({ namespace, group, resource, verb, name });
    if (opts.watch) for (const verb of ['list', 'watch']) add({ namespace: '', group, resource, verb, name: null });
    // Flux health checks: the kind where it is; a Deployment's ReplicaSets and Pods.
    const owned =
      o.kind === 'Deployment'
        ? [
            ['apps', 'replicasets'],
            ['', 'pods'],
          ]
        : [];
    if (opts.health)
      for (const [g, r] of [[group, resource], ...owned])
        for (const verb of ['list', 'watch']) add({ namespace, group: g!, resource: r!, verb, name: null });
    if (o.kind === 'Role' || o.kind === 'ClusterRole') add({ namespace, group, resource, verb: 'escalate', name });
    if (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') {
      const ref = o.roleRef as { kind: string; name: string };
      add({ namespace, group, resource: `${ref.kind.toLowerCase()}s`, verb: 'bind', name: ref.name });
    }
  }
  return out;
}

const countKinds = (objects: readonly KubeObject[]) =>
  objects.reduce<Record<string, number>>((acc, o) => ({ ...acc, [o.kind]: (acc[o.kind] ?? 0) + 1 }), {});

describe('computeApplierRbac on the real v1.12.0 example', () => {
  const rbac = computeApplierRbac(components, { applier: 'argocd' });

  it('emits one ClusterRole, a Role per provider namespace, their bindings, and the namespaces first', () => {
    expect(countKinds(rbac.objects)).toEqual({
      Namespace: 4,
      ClusterRole: 1,
      ClusterRoleBinding: 1,
      Role: 4,
      RoleBinding: 4,
    });
    expect(rbac.objects.slice(0, 4).map(nameOf)).toEqual([
      'capd-system',
      'capi-kubeadm-bootstrap-system',
      'capi-kubeadm-control-plane-system',
      'capi-system',
    ]);
    expect(rbac.objects.filter((o) => o.kind === 'Role').map(namespaceOf)).toEqual([
      'capd-system',
      'capi-kubeadm-bootstrap-system',
      'capi-kubeadm-control-plane-system',
      'capi-system',
    ]);
    const clusterRole = rbac.objects.find((o) => o.kind === 'ClusterRole')!;
    expect((clusterRole.rules as unknown[]).length).toBe(14);
    for (const role of rbac.objects.filter((o) => o.kind === 'Role'))
      expect((role.rules as unknown[]).length, namespaceOf(role)).toBe(8);
    expect(rbac.objects.find((o) => o.kind === 'ClusterRoleBinding')!.subjects).toEqual([
      { kind: 'ServiceAccount', name: 'argocd-application-controller', namespace: 'argocd' },
    ]);
  });

  it('restricts escalate and bind to exactly the rendered roles', () => {
    const rules = rbac.objects.find((o) => o.kind === 'ClusterRole')!.rules as {
      resources: string[];
      verbs: string[];
      resourceNames?: string[];
    }[];
    expect(rules.find((r) => r.verbs.includes('escalate'))).toEqual({
      apiGroups: ['rbac.authorization.k8s.io'],
      resources: ['clusterroles'],
      resourceNames: [
        'capd-manager-role',
        'capi-aggregated-manager-role',
        'capi-kubeadm-bootstrap-manager-role',
        'capi-kubeadm-control-plane-aggregated-manager-role',
        'capi-kubeadm-control-plane-manager-role',
        'capi-manager-role',
      ],
      verbs: ['create', 'delete', 'escalate', 'get', 'patch'],
    });
    // Only the ClusterRoles the ClusterRoleBindings name; the aggregated-into ones are never bound.
    expect(rules.find((r) => r.verbs.join() === 'bind')!.resourceNames).toEqual([
      'capd-manager-role',
      'capi-aggregated-manager-role',
      'capi-kubeadm-bootstrap-manager-role',
      'capi-kubeadm-control-plane-aggregated-manager-role',
    ]);
  });

  it.each<{ name: string; options: ApplierRbacOptions; prune: boolean; watch: boolean; health?: boolean }>([
    { name: 'argocd, defaults', options: { applier: 'argocd' }, prune: true, watch: true },
    { name: 'flux, defaults', options: { applier: 'flux' }, prune: true, watch: false, health: true },
    { name: 'flux, prune off', options: { applier: 'flux', prune: false }, prune: false, watch: false, health: true },
    {
      name: 'explicit ServiceAccount',
      options: { applier: { serviceAccount: { name: 'capi-applier', namespace: 'gitops' } } },
      prune: true,
      watch: true,
    },
  ])(
    '$name: the role allows exactly what applying and pruning every object needs',
    ({ options, prune, watch, health }) => {
      const computed = computeApplierRbac(components, options);
      expect(verifyApplierRbac(components, computed, options)).toEqual({ missing: [], extra: [] });
      const granted = listGrantedPermissions(computed.objects, options);
      expect(granted.unbounded).toEqual([]);
      expect(new Set(granted.permissions.map(formatPermission))).toEqual(
        expectedPermissions(allObjects, { prune, watch, health: health ?? false }),
      );
    },
  );

  it('client-side apply: create and escalate for any name, plus what kubectl auth reconcile does', () => {
    const options: ApplierRbacOptions = { applier: 'argocd', serverSideApply: false };
    const computed = computeApplierRbac(components, options);
    expect(verifyApplierRbac(components, computed, options)).toEqual({ missing: [], extra: [] });
    const allowed = (p: Permission) => isApplierAllowed(computed.objects, options, p);
    expect(
      allowed({ namespace: 'capi-system', group: 'apps', resource: 'deployments', verb: 'create', name: null }),
    ).toBe(true);
    expect(allowed({ namespace: 'default', group: 'apps', resource: 'deployments', verb: 'create', name: null })).toBe(
      false,
    );
    expect(
      allowed({
        namespace: '',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        verb: 'escalate',
        name: null,
      }),
    ).toBe(true);
    expect(
      allowed({
        namespace: '',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        verb: 'update',
        name: 'capi-manager-role',
      }),
    ).toBe(true);
    expect(
      allowed({
        namespace: '',
        group: 'apps',
        resource: 'deployments',
        verb: 'update',
        name: 'capi-controller-manager',
      }),
    ).toBe(false);
    expect(computed.notes.some((n) => n.startsWith('client-side apply'))).toBe(true);
  });

  it('denies what the render does not need', () => {
    const allowed = (p: Permission) => isApplierAllowed(rbac.objects, { applier: 'argocd' }, p);
    expect(
      allowed({
        namespace: 'capi-system',
        group: '',
        resource: 'secrets',
        verb: 'get',
        name: 'capi-webhook-service-cert',
      }),
    ).toBe(false);
    expect(
      allowed({
        namespace: 'default',
        group: 'apps',
        resource: 'deployments',
        verb: 'patch',
        name: 'capi-controller-manager',
      }),
    ).toBe(false);
    expect(
      allowed({
        namespace: '',
        group: 'rbac.authorization.k8s.io',
        resource: 'clusterroles',
        verb: 'escalate',
        name: 'cluster-admin',
      }),
    ).toBe(false);
    expect(
      allowed({
        namespace: 'capi-system',
        group: 'apps',
        resource: 'deployments',
        verb: 'update',
        name: 'capi-controller-manager',
      }),
    ).toBe(false);
  });

  it('notes the aggregated ClusterRoles rendered with rules: [] and the escalate reach', () => {
    expect(rbac.notes).toHaveLength(3);
    expect(rbac.notes.filter((n) => n.includes('has an aggregationRule but is rendered with rules'))).toHaveLength(2);
  });

  it('stays exact with the cert-manager v1.19.4 component rendered too (its kube-system Role gets no Namespace copy)', () => {
    const withCertManager = [
      deepFreeze({ name: 'cert-manager', objects: fixtureObjects(CERT_MANAGER) }),
      ...components,
    ];
    const computed = computeApplierRbac(withCertManager, { applier: 'argocd' });
    expect(verifyApplierRbac(withCertManager, computed, { applier: 'argocd' })).toEqual({ missing: [], extra: [] });
    expect(countKinds(computed.objects)).toEqual({
      Namespace: 5,
      ClusterRole: 1,
      ClusterRoleBinding: 1,
      Role: 6,
      RoleBinding: 6,
    });
    expect(computed.objects.filter((o) => o.kind === 'Role').map(namespaceOf)).toContain('kube-system');
    expect(computed.objects.filter((o) => o.kind === 'Namespace').map(nameOf)).not.toContain('kube-system');
  });

  it('is deterministic under object order and does not mutate its (frozen) input', () => {
    const shuffled = components.map((c) => ({ name: c.name, objects: [...c.objects].reverse() }));
    expect(computeApplierRbac(shuffled, { applier: 'argocd' })).toEqual(rbac);
  });
});

describe('verifyApplierRbac finds what a role lacks and what it adds', () => {
  const options: ApplierRbacOptions = { applier: 'flux' };
  const rbac = computeApplierRbac(components, options);
  const edit = (change: (objects: KubeObject[]) => KubeObject[]) => ({
    objects: change(structuredClone(rbac.objects)),
  });
  const rulesOf = (o: KubeObject) =>
    o.rules as { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[];

  it.each<{ name: string; change: (objects: KubeObject[]) => KubeObject[]; missing: string[]; extra: string[] }>([
    {
      name: 'a name dropped from a rule',
      change: (objects) => {
        const role = objects.find((o) => o.kind === 'Role' && namespaceOf(o) === 'capi-system')!;
        const deployments = rulesOf(role).find((r) => r.resources.includes('deployments'))!;
        deployments.resourceNames = [];
        deployments.verbs = ['get'];
        return objects;
      },
      missing: [
        'create deployments.apps capi-controller-manager in capi-system',
        'delete deployments.apps capi-controller-manager in capi-system',
        'patch deployments.apps capi-controller-manager in capi-system',
      ],
      extra: ['get deployments.apps (any name) in capi-system'],
    },
    {
      name: 'a wildcard rule added',
      change: (objects) => {
        rulesOf(objects.find((o) => o.kind === 'ClusterRole')!).push({
          apiGroups: ['*'],
          resources: ['*'],
          verbs: ['*'],
        });
        return objects;
      },
      missing: [],
      extra: [
        'wildcard rule (apiGroups *; resources *; verbs *) via ClusterRoleBinding/capi-render-applier → ClusterRole/capi-render-applier',
      ],
    },
    {
      name: 'a namespaced rule granted cluster-wide',
      change: (objects) => {
        rulesOf(objects.find((o) => o.kind === 'ClusterRole')!).push({
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['get'],
        });
        return objects;
      },
      missing: [],
      extra: ['get leases.coordination.k8s.io (any name) cluster-wide'],
    },
    {
      name: 'the Namespace copies left out',
      change: (objects) => objects.filter((o) => !(o.kind === 'Namespace' && nameOf(o) === 'capd-system')),
      missing: [
        'Namespace capd-system must precede Role/capd-system/capi-render-applier (the render creates capd-system; the role is applied before it)',
        'Namespace capd-system must precede RoleBinding/capd-system/capi-render-applier (the render creates capd-system; the role is applied before it)',
      ],
      extra: [],
    },
    {
      name: 'a binding shared with another subject',
      change: (objects) => {
        (objects.find((o) => o.kind === 'ClusterRoleBinding')!.subjects as unknown[]).push({
          kind: 'Group',
          name: 'system:authenticated',
        });
        return objects;
      },
      missing: [],
      extra: ['ClusterRoleBinding/capi-render-applier also binds other subjects'],
    },
  ])('$name', ({ change, missing, extra }) => {
    expect(verifyApplierRbac(components, edit(change), options)).toEqual({ missing, extra });
  });

  it('a role bound to another ServiceAccount grants the applier nothing', () => {
    const other = computeApplierRbac(components, { applier: 'argocd' });
    const result = verifyApplierRbac(components, other, options);
    expect(result.missing.length).toBeGreaterThan(100);
    expect(result.extra).toEqual(
      expect.arrayContaining(['ClusterRole/capi-render-applier is bound to no binding of the applier']),
    );
  });
});

describe('provider grants', () => {
  const rbac = computeApplierRbac(components, { applier: 'flux' });

  it('expands core v1.12.0 permissions (aggregation resolved), cluster-scoped first', () => {
    const text = formatGrants(rbac.grants);
    expect(text.split('\n').slice(0, 12).join('\n')).toBe(
      [
        'cluster-api: ServiceAccount capi-system/capi-manager',
        '  cluster-scoped:',
        '    configmaps: get, list, patch, update, watch',
        '    events: create, patch',
        '    namespaces: get, list, watch',
        '    secrets: create, delete, get, list, patch, update, watch',
        '    *.addons.cluster.x-k8s.io: create, delete, get, list, patch, update, watch',
        '    clusterresourcesets.addons.cluster.x-k8s.io/finalizers: get, patch, update',
        '    clusterresourcesets.addons.cluster.x-k8s.io/status: get, patch, update',
        '    customresourcedefinitions.apiextensions.k8s.io: get, list, watch',
        '    customresourcedefinitions.apiextensions.k8s.io [clusterclasses.cluster.x-k8s.io, clusterresourcesetbindings.addons.cluster.x-k8s.io, clusterresourcesets.addons.cluster.x-k8s.io, clusters.cluster.x-k8s.io, extensionconfigs.runtime.cluster.x-k8s.io, ipaddressclaims.ipam.cluster.x-k8s.io, ipaddresses.ipam.cluster.x-k8s.io, machinedeployments.cluster.x-k8s.io, machinedrainrules.cluster.x-k8s.io, machinehealthchecks.cluster.x-k8s.io, machinepools.cluster.x-k8s.io, machines.cluster.x-k8s.io, machinesets.cluster.x-k8s.io]: patch, update',
        '    customresourcedefinitions.apiextensions.k8s.io/status [clusterclasses.cluster.x-k8s.io, clusterresourcesetbindings.addons.cluster.x-k8s.io, clusterresourcesets.addons.cluster.x-k8s.io, clusters.cluster.x-k8s.io, extensionconfigs.runtime.cluster.x-k8s.io, ipaddressclaims.ipam.cluster.x-k8s.io, ipaddresses.ipam.cluster.x-k8s.io, machinedeployments.cluster.x-k8s.io, machinedrainrules.cluster.x-k8s.io, machinehealthchecks.cluster.x-k8s.io, machinepools.cluster.x-k8s.io, machines.cluster.x-k8s.io, machinesets.cluster.x-k8s.io]: patch, update',
      ].join('\n'),
    );
    const core = rbac.grants[0]!;
    expect(core.namespaced).toEqual([
      {
        namespace: 'capi-system',
        rules: [
          { group: '', resource: 'events', verbs: ['create'], resourceNames: [] },
          {
            group: 'coordination.k8s.io',
            resource: 'leases',
            verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
            resourceNames: [],
          },
        ],
      },
    ]);
    expect(core.escalations).toEqual([
      'capi-aggregated-manager-role aggregates every ClusterRole labelled cluster.x-k8s.io/aggregate-to-manager=true: any such ClusterRole added to the cluster extends it',
      'every resource of addons.cluster.x-k8s.io: create, delete, get, list, patch, update, watch cluster-wide',
      'every resource of bootstrap.cluster.x-k8s.io: create, delete, get, list, patch, update, watch cluster-wide',
      'every resource of controlplane.cluster.x-k8s.io: create, delete, get, list, patch, update, watch cluster-wide',
      'every resource of infrastructure.cluster.x-k8s.io: create, delete, get, list, patch, update, watch cluster-wide',
      'read secrets cluster-wide (get, list, watch)',
      'create and read secrets cluster-wide: a kubernetes.io/service-account-token Secret yields a token of any ServiceAccount',
    ]);
  });

  it('lists one grant per component with its ServiceAccount', () => {
    expect(rbac.grants.map((g) => [g.component, g.subjects])).toEqual([
      ['cluster-api', ['ServiceAccount capi-system/capi-manager']],
      ['bootstrap-kubeadm', ['ServiceAccount capi-kubeadm-bootstrap-system/capi-kubeadm-bootstrap-manager']],
      [
        'control-plane-kubeadm',
        ['ServiceAccount capi-kubeadm-control-plane-system/capi-kubeadm-control-plane-manager'],
      ],
      ['infrastructure-docker', ['ServiceAccount capd-system/capd-manager']],
    ]);
    expect(rbac.grants[3]!.escalations).toEqual(['read secrets cluster-wide (get, list, watch)']);
  });
});

// ---- synthetic cases -------------------------------------------------------------------------

const ns = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
const crd = (group: string, kind: string, plural: string, scope: 'Namespaced' | 'Cluster'): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.${group}` },
  spec: { group, names: { kind, plural }, scope, versions: [{ name: 'v1', served: true, storage: true }] },
});
const obj = (
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
  extra: Record<string, unknown> = {},
): KubeObject => ({ apiVersion, kind, metadata: namespace === undefined ? { name } : { name, namespace }, ...extra });
const one = (...objects: KubeObject[]): RbacComponent[] => deepFreeze([{ name: 'test', objects }]);
const ruleLines = (objects: readonly KubeObject[], kind: string, namespace = '') =>
  (
    objects.find((o) => o.kind === kind && namespaceOf(o) === namespace)?.rules as
      { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[] | undefined
  )?.map(
    (r) =>
      `${r.apiGroups.join(',')}|${r.resources.join(',')}|${r.verbs.join(',')}|${(r.resourceNames ?? []).join(',')}`,
  );

describe('computeApplierRbac synthetic cases', () => {
  it.each<{
    name: string;
    input: RbacComponent[];
    options: ApplierRbacOptions;
    clusterRole: string[] | undefined;
    role?: [string, string[] | undefined];
  }>([
    {
      name: 'custom namespaced kind from a rendered CRD',
      input: one(crd('example.io', 'Widget', 'widgets', 'Namespaced'), obj('example.io/v1', 'Widget', 'w1', 'team')),
      options: { applier: 'flux', healthChecks: false },
      clusterRole: ['apiextensions.k8s.io|customresourcedefinitions|create,delete,get,patch|widgets.example.io'],
      role: ['team', ['example.io|widgets|create,delete,get,patch|w1']],
    },
    {
      name: 'cluster-scoped custom kind goes into the ClusterRole',
      input: one(crd('example.io', 'Gadget', 'gadgets', 'Cluster'), obj('example.io/v1', 'Gadget', 'g1', 'ignored')),
      options: { applier: 'flux', healthChecks: false, prune: false },
      clusterRole: [
        'apiextensions.k8s.io|customresourcedefinitions|create,get,patch|gadgets.example.io',
        'example.io|gadgets|create,get,patch|g1',
      ],
    },
    {
      name: 'argocd adds cluster-wide list/watch per kind',
      input: one(ns('team'), obj('v1', 'ConfigMap', 'c1', 'team')),
      options: { applier: 'argocd' },
      clusterRole: ['|configmaps,namespaces|list,watch|', '|namespaces|create,delete,get,patch|team'],
      role: ['team', ['|configmaps|create,delete,get,patch|c1']],
    },
    {
      name: 'prune off removes delete',
      input: one(ns('team'), obj('v1', 'ConfigMap', 'c1', 'team')),
      options: { applier: 'flux', healthChecks: false, prune: false },
      clusterRole: ['|namespaces|create,get,patch|team'],
      role: ['team', ['|configmaps|create,get,patch|c1']],
    },
    {
      name: 'client-side apply cannot restrict create by name',
      input: one(obj('v1', 'ConfigMap', 'c1', 'team')),
      options: { applier: 'flux', healthChecks: false, serverSideApply: false },
      clusterRole: undefined,
      role: ['team', ['|configmaps|create|', '|configmaps|delete,get,patch|c1']],
    },
    {
      name: 'Argo CD Prune=false,Delete=false: no delete on that object',
      input: one(
        obj('v1', 'ConfigMap', 'c1', 'team', {
          metadata: {
            name: 'c1',
            namespace: 'team',
            annotations: { 'argocd.argoproj.io/sync-options': 'Prune=false, Delete=false' },
          },
        }),
        obj('v1', 'ConfigMap', 'c2', 'team'),
      ),
      options: { applier: 'argocd', watch: false },
      clusterRole: undefined,
      role: ['team', ['|configmaps|create,get,patch|c1,c2', '|configmaps|delete|c2']],
    },
    {
      name: 'Flux prune: disabled: no delete on that object',
      input: one(
        obj('v1', 'ConfigMap', 'c1', 'team', {
          metadata: { name: 'c1', namespace: 'team', annotations: { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' } },
        }),
      ),
      options: { applier: 'flux', healthChecks: false },
      clusterRole: undefined,
      role: ['team', ['|configmaps|create,get,patch|c1']],
    },
    {
      name: 'a RoleBinding to a ClusterRole needs bind on it in the namespace',
      input: one(
        obj('rbac.authorization.k8s.io/v1', 'RoleBinding', 'rb', 'team', {
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' },
          subjects: [],
        }),
      ),
      options: { applier: 'flux', healthChecks: false, prune: false },
      clusterRole: undefined,
      role: [
        'team',
        [
          'rbac.authorization.k8s.io|clusterroles|bind|view',
          'rbac.authorization.k8s.io|rolebindings|create,get,patch|rb',
        ],
      ],
    },
    {
      name: 'an object retired from the previous render can be read and deleted, nothing more',
      input: one(obj('v1', 'ConfigMap', 'kept', 'team')),
      options: {
        applier: 'flux',
        healthChecks: false,
        retired: [
          { name: 'test', objects: [obj('v1', 'ConfigMap', 'kept', 'team'), obj('v1', 'ConfigMap', 'gone', 'team')] },
        ],
      },
      clusterRole: undefined,
      role: ['team', ['|configmaps|create,patch|kept', '|configmaps|delete,get|gone,kept']],
    },
    {
      name: 'Flux health checks (wait: true): list/watch on each kind where it is, and on what a Deployment’s status is read from',
      input: one(
        ns('team'),
        obj('v1', 'ConfigMap', 'c1', 'team'),
        obj('apps/v1', 'Deployment', 'd1', 'team'),
        obj('apps/v1', 'StatefulSet', 's1', 'other'),
      ),
      options: { applier: 'flux', prune: false },
      clusterRole: ['|namespaces|create,get,patch|team', '|namespaces|list,watch|'],
      role: [
        'team',
        [
          '|configmaps|create,get,patch|c1',
          '|configmaps,pods|list,watch|',
          'apps|deployments|create,get,patch|d1',
          'apps|deployments,replicasets|list,watch|',
        ],
      ],
    },
  ])('$name', ({ input, options, clusterRole, role }) => {
    const rbac = computeApplierRbac(input, options);
    expect(ruleLines(rbac.objects, 'ClusterRole')).toEqual(clusterRole);
    if (role !== undefined) expect(ruleLines(rbac.objects, 'Role', role[0])).toEqual(role[1]);
    expect(verifyApplierRbac(input, rbac, options)).toEqual({ missing: [], extra: [] });
  });

  it('Flux health checks: a StatefulSet’s status is read from its Pods, in its own namespace', () => {
    const input = one(obj('apps/v1', 'StatefulSet', 's1', 'other'));
    const rbac = computeApplierRbac(input, { applier: 'flux', prune: false });
    expect(ruleLines(rbac.objects, 'Role', 'other')).toEqual([
      '|pods|list,watch|',
      'apps|statefulsets|create,get,patch|s1',
      'apps|statefulsets|list,watch|',
    ]);
    expect(verifyApplierRbac(input, rbac, { applier: 'flux', prune: false })).toEqual({ missing: [], extra: [] });
  });

  it.each<{ applier: ApplierRbacOptions['applier']; subject: { name: string; namespace: string } }>([
    { applier: 'argocd', subject: { name: 'argocd-application-controller', namespace: 'argocd' } },
    { applier: 'flux', subject: { name: 'kustomize-controller', namespace: 'flux-system' } },
    {
      applier: { serviceAccount: { name: 'deployer', namespace: 'ops' } },
      subject: { name: 'deployer', namespace: 'ops' },
    },
  ])('binds $subject.namespace/$subject.name', ({ applier, subject }) => {
    const rbac = computeApplierRbac(one(ns('team'), obj('v1', 'ConfigMap', 'c1', 'team')), {
      applier,
      roleName: 'deploy',
    });
    const bindings = rbac.objects.filter((o) => o.kind.endsWith('Binding'));
    expect(bindings.map((b) => [b.kind, namespaceOf(b), nameOf(b)])).toEqual([
      ['ClusterRoleBinding', '', 'deploy'],
      ['RoleBinding', 'team', 'deploy'],
    ]);
    for (const b of bindings) expect(b.subjects).toEqual([{ kind: 'ServiceAccount', ...subject }]);
  });

  it('keeps a namespace the render does not create out of the Namespace copies', () => {
    const rbac = computeApplierRbac(one(obj('v1', 'ConfigMap', 'c1', 'kube-system')), { applier: 'flux' });
    expect(rbac.objects.map((o) => `${o.kind}/${namespaceOf(o)}`)).toEqual([
      'Role/kube-system',
      'RoleBinding/kube-system',
    ]);
  });

  it.each<{ name: string; input: RbacComponent[]; options?: Partial<ApplierRbacOptions>; objects: string[] }>([
    {
      name: 'unknown kinds, all named at once',
      input: one(
        obj('example.io/v1', 'Widget', 'w1', 'team'),
        obj('apps/v1', 'Service', 's1', 'team'),
        obj('v1', 'ConfigMap', 'ok', 'team'),
      ),
      objects: ['Widget/team/w1', 'Service/team/s1'],
    },
    {
      name: 'a namespaced object without a namespace',
      input: one(obj('v1', 'ConfigMap', 'c1')),
      objects: ['ConfigMap/c1'],
    },
    {
      name: 'an object without a name',
      input: one({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'x-', namespace: 'team' } }),
      objects: ['ConfigMap/team/<no name>'],
    },
    {
      name: 'a binding with an invalid roleRef',
      input: one(
        obj('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'crb', undefined, {
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' },
        }),
      ),
      objects: ['ClusterRoleBinding/crb'],
    },
    {
      name: 'a rendered ClusterRole named like the applier role',
      input: one(obj('rbac.authorization.k8s.io/v1', 'ClusterRole', 'capi-render-applier', undefined, { rules: [] })),
      objects: ['ClusterRole/capi-render-applier'],
    },
    {
      name: 'an invalid role name',
      input: one(obj('v1', 'ConfigMap', 'c1', 'team')),
      options: { roleName: 'Not Valid' },
      objects: [],
    },
  ])('throws SpecError rbac: $name', ({ input, options, objects }) => {
    let caught: unknown;
    try {
      computeApplierRbac(input, { applier: 'flux', ...options });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SpecError);
    const err = caught as SpecError;
    expect(err.diagnostics.map((d) => d.code)).toEqual(err.diagnostics.map(() => 'rbac'));
    expect(err.diagnostics.map((d) => d.object).filter((o) => o !== undefined)).toEqual(objects);
  });

  it('resolves cert-manager kinds without their CRDs, and prefers a rendered CRD', () => {
    const issuer = obj('cert-manager.io/v1', 'Issuer', 'i1', 'team');
    expect(
      ruleLines(computeApplierRbac(one(issuer), { applier: 'flux', healthChecks: false }).objects, 'Role', 'team'),
    ).toEqual(['cert-manager.io|issuers|create,delete,get,patch|i1']);
    const redefined = one(crd('cert-manager.io', 'Issuer', 'issuerz', 'Cluster'), issuer);
    expect(
      ruleLines(computeApplierRbac(redefined, { applier: 'flux', healthChecks: false }).objects, 'ClusterRole'),
    ).toContain('cert-manager.io|issuerz|create,delete,get,patch|i1');
  });

  it('resolves the ExternalSecret that secrets.mode external-secrets renders, without its CRD', () => {
    const es = obj('external-secrets.io/v1', 'ExternalSecret', 'capa-manager-bootstrap-credentials', 'capa-system');
    expect(
      ruleLines(computeApplierRbac(one(es), { applier: 'flux', healthChecks: false }).objects, 'Role', 'capa-system'),
    ).toEqual(['external-secrets.io|externalsecrets|create,delete,get,patch|capa-manager-bootstrap-credentials']);
  });
});

describe('summarizeProviderGrants escalations', () => {
  const rbacObj = (kind: string, name: string, namespace: string | undefined, extra: Record<string, unknown>) =>
    obj('rbac.authorization.k8s.io/v1', kind, name, namespace, extra);
  const sa = [{ kind: 'ServiceAccount', name: 'ctrl', namespace: 'sys' }];
  const bindTo = (
    kind: 'ClusterRoleBinding' | 'RoleBinding',
    name: string,
    refKind: string,
    ref: string,
    namespace?: string,
  ) =>
    rbacObj(kind, name, namespace, {
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: refKind, name: ref },
      subjects: sa,
    });

  it.each<{ name: string; objects: KubeObject[]; escalations: string[] }>([
    {
      name: 'star on star',
      objects: [
        rbacObj('ClusterRole', 'all', undefined, { rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] }),
        bindTo('ClusterRoleBinding', 'all', 'ClusterRole', 'all'),
      ],
      escalations: [
        'every API group: *.* cluster-wide',
        'every resource of *: * cluster-wide',
        'every verb on *.* cluster-wide',
        'escalate *.* cluster-wide',
        'bind *.* cluster-wide',
        'impersonate *.* cluster-wide',
        'read secrets cluster-wide (get, list, watch)',
        'create and read secrets cluster-wide: a kubernetes.io/service-account-token Secret yields a token of any ServiceAccount',
        'mint ServiceAccount tokens cluster-wide',
        'exec into pods cluster-wide',
        'attach to pods cluster-wide',
        'proxy to kubelets cluster-wide',
        'create pods cluster-wide: runs pods as any ServiceAccount there',
        'create daemonsets cluster-wide: runs pods as any ServiceAccount there',
        'create deployments cluster-wide: runs pods as any ServiceAccount there',
        'create replicasets cluster-wide: runs pods as any ServiceAccount there',
        'create statefulsets cluster-wide: runs pods as any ServiceAccount there',
        'create cronjobs cluster-wide: runs pods as any ServiceAccount there',
        'create jobs cluster-wide: runs pods as any ServiceAccount there',
        'write clusterrolebindings (create, patch, update) cluster-wide',
        'write clusterroles (create, patch, update) cluster-wide',
        'write rolebindings (create, patch, update) cluster-wide',
        'write roles (create, patch, update) cluster-wide',
        'write any mutatingwebhookconfigurations cluster-wide: can intercept API requests',
        'write any validatingwebhookconfigurations cluster-wide: can intercept API requests',
      ],
    },
    {
      name: 'cluster-admin and an unrendered role',
      objects: [
        bindTo('ClusterRoleBinding', 'admin', 'ClusterRole', 'cluster-admin'),
        bindTo('RoleBinding', 'view', 'ClusterRole', 'view', 'sys'),
      ],
      escalations: [
        'binds ClusterRole cluster-admin: every permission',
        'binds ClusterRole view in sys, which the render does not contain: its permissions are not listed here',
      ],
    },
    {
      name: 'namespaced bind and escalate, secrets read only in a namespace',
      objects: [
        rbacObj('Role', 'r', 'sys', {
          rules: [
            {
              apiGroups: ['rbac.authorization.k8s.io'],
              resources: ['roles'],
              verbs: ['bind', 'escalate'],
              resourceNames: ['x'],
            },
            { apiGroups: [''], resources: ['secrets'], verbs: ['get', 'list'] },
          ],
        }),
        bindTo('RoleBinding', 'r', 'Role', 'r', 'sys'),
      ],
      escalations: [
        'escalate roles.rbac.authorization.k8s.io [x] in sys',
        'bind roles.rbac.authorization.k8s.io [x] in sys',
      ],
    },
  ])('$name', ({ objects, escalations }) => {
    const [grant] = summarizeProviderGrants(one(...objects));
    expect(grant!.escalations).toEqual(escalations);
  });
});
