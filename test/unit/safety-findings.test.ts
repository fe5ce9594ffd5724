import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type ContractChange,
  type Finding,
  type KubeObject,
  type RenderedSide,
  safetyFindings,
  type VariableUseChange,
} from 'capi-render';
import { parseMetadata, releaseSeriesFor } from '../../src/source/metadata.js';
import { deepFreeze } from '../helpers/fixtures.js';
import { KUBEADM_ASSETS, loadKubeadmRelease, type KubeadmVersion } from '../helpers/capi-releases.js';
import { fixtureObjects } from '../helpers/fixtures.js';
import { describeTimes, timeSideBySideUntil, type Timed } from '../helpers/timing.js';

const v1_8_0 = deepFreeze(loadKubeadmRelease('v1.8.0'));
const v1_10_4 = deepFreeze(loadKubeadmRelease('v1.10.4'));
const v1_11_0 = deepFreeze(loadKubeadmRelease('v1.11.0'));
const v1_12_0 = deepFreeze(loadKubeadmRelease('v1.12.0'));

function side(components: Record<string, readonly KubeObject[]>, env = 'prod'): RenderedSide {
  return { environments: { [env]: components } };
}

/** Findings of a one-component change from `before` to `after` objects. */
function findingsFor(before: readonly KubeObject[], after: readonly KubeObject[]): Finding[] {
  return safetyFindings(side({ core: deepFreeze([...before]) }), side({ core: deepFreeze([...after]) }));
}

/** `[severity, code, subjects]` of each finding: the facts, without message text. */
function facts(findings: readonly Finding[]): [string, string, string[] | undefined][] {
  return findings.map((f) => [f.severity, f.code, f.subjects]);
}

/** The name part of an object id (`Kind.group/[ns/]name` → `[ns/]name`). */
function shortId(finding: Finding): string {
  return finding.object?.replace(/^[^/]*\//, '') ?? '';
}

function only(findings: readonly Finding[], code: Finding['code']): Finding[] {
  return findings.filter((f) => f.code === code);
}

const meta = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, ...extra });

function crd(
  versions: { name: string; served?: boolean; storage?: boolean; deprecated?: boolean }[],
  name = 'widgets.example.com',
): KubeObject {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: meta(name),
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets' },
      scope: 'Namespaced',
      versions: versions.map((v) => ({ served: true, storage: false, ...v })),
    },
  } as KubeObject;
}

function role(
  kind: 'Role' | 'ClusterRole',
  name: string,
  rules: unknown[],
  extra: Record<string, unknown> = {},
  labels: Record<string, string> = {},
): KubeObject {
  const metadata = meta(name, { ...(kind === 'Role' ? { namespace: 'capi-system' } : {}), labels });
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind, metadata, rules, ...extra } as KubeObject;
}

function webhooks(
  kind: string,
  hooks: Record<string, unknown>[],
  name = 'capi-validating-webhook-configuration',
): KubeObject {
  return { apiVersion: 'admissionregistration.k8s.io/v1', kind, metadata: meta(name), webhooks: hooks } as KubeObject;
}

function hook(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig: { service: { name: 'capi-webhook-service', namespace: 'capi-system', path: `/validate-${name}` } },
    rules: [
      {
        apiGroups: ['cluster.x-k8s.io'],
        apiVersions: ['v1beta2'],
        operations: ['CREATE', 'UPDATE'],
        resources: ['clusters'],
      },
    ],
    failurePolicy: 'Fail',
    sideEffects: 'None',
    ...extra,
  };
}

function workload(
  containers: Record<string, unknown>[],
  kind = 'Deployment',
  initContainers: Record<string, unknown>[] = [],
): KubeObject {
  return {
    apiVersion: 'apps/v1',
    kind,
    metadata: meta('capi-controller-manager', { namespace: 'capi-system' }),
    spec: { template: { spec: { containers, ...(initContainers.length > 0 ? { initContainers } : {}) } } },
  } as KubeObject;
}

/** What identifies a component's kind: clusterctl's inventory Provider object, or cert-manager's label. */
function identity(kind: string): KubeObject {
  if (kind === 'cert-manager')
    return {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: meta('cert-manager', {
        namespace: 'cert-manager',
        labels: { 'clusterctl.cluster.x-k8s.io/core': 'cert-manager' },
      }),
    } as KubeObject;
  return {
    apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
    kind: 'Provider',
    metadata: meta('core', { namespace: 'core-system' }),
    providerName: 'core',
    type: kind,
    version: 'v1.0.0',
  } as KubeObject;
}

function plain(kind: string, name: string, namespace?: string): KubeObject {
  return { apiVersion: 'v1', kind, metadata: meta(name, namespace === undefined ? {} : { namespace }) } as KubeObject;
}

describe('safetyFindings: CRD versions', () => {
  const v1 = { name: 'v1beta1', storage: true };
  const cases: {
    name: string;
    before: KubeObject[];
    after: KubeObject[];
    expected: [string, string, string[] | undefined][];
  }[] = [
    { name: 'a new CRD', before: [], after: [crd([v1])], expected: [['info', 'crd-added', ['v1beta1']]] },
    {
      name: 'a version added and the old one deprecated',
      before: [crd([v1])],
      after: [
        crd([
          { name: 'v1beta1', deprecated: true },
          { name: 'v1beta2', storage: true },
        ]),
      ],
      expected: [
        ['warning', 'crd-storage-version-changed', undefined],
        ['info', 'crd-version-added', ['v1beta2']],
        ['info', 'crd-version-deprecated', ['v1beta1']],
      ],
    },
    {
      name: 'versions removed from spec.versions, in spec order',
      before: [crd([{ name: 'v1alpha3', served: false }, { name: 'v1alpha4', served: false }, v1])],
      after: [crd([v1])],
      expected: [['danger', 'crd-version-removed', ['v1alpha3', 'v1alpha4']]],
    },
    {
      name: 'a served version turned off',
      before: [crd([{ name: 'v1alpha4' }, v1])],
      after: [crd([{ name: 'v1alpha4', served: false }, v1])],
      expected: [['danger', 'crd-version-unserved', ['v1alpha4']]],
    },
    {
      name: 'a version served again',
      before: [crd([{ name: 'v1alpha4', served: false }, v1])],
      after: [crd([{ name: 'v1alpha4' }, v1])],
      expected: [['info', 'crd-version-added', ['v1alpha4']]],
    },
    {
      name: 'a CRD no longer rendered',
      before: [crd([v1])],
      after: [],
      expected: [['danger', 'crd-removed', undefined]],
    },
  ];
  it.each(cases)('$name', ({ before, after, expected }) => {
    expect(facts(findingsFor(before, after))).toEqual(expected);
  });

  it('gives the exact migration steps for a removed version, keyed on the current storage version', () => {
    const [finding] = findingsFor(
      [crd([{ name: 'v1alpha4', served: false }, v1])],
      [
        crd([
          { name: 'v1beta1', deprecated: true },
          { name: 'v1beta2', storage: true },
        ]),
      ],
    ).filter((f) => f.severity === 'danger');
    expect(finding!.code).toBe('crd-version-removed');
    expect(finding!.details).toEqual([
      "Before syncing, with the current release still installed, list the versions objects are stored in: `kubectl get crd widgets.example.com -o jsonpath='{.status.storedVersions}'`",
      'If it prints exactly `["v1beta1"]`, nothing needs migrating.',
      "Otherwise re-write every object so the API server stores it in v1beta1: a no-op update such as `kubectl get widgets.example.com -A -o json | kubectl replace -f -` (repeat for objects that report a conflict), or let the provider's CRD migrator do it if it runs one. clusterctl upgrade stopped doing this by default in v1.10 and dropped it in v1.13 (cluster-api #13290); Argo CD and Flux never do.",
      'Then drop the old versions from the stored list: `kubectl patch crd widgets.example.com --subresource=status --type=merge -p \'{"status":{"storedVersions":["v1beta1"]}}\'` (kubectl 1.24+), and check with the first command that only v1beta1 is listed.',
      'Sync only then: the API server rejects a CRD whose spec.versions no longer contains a version listed in status.storedVersions.',
    ]);
  });

  it('credits a migrator with what is done already only where the installed release has one (core v1.9 had none; v1.10+ grants it)', () => {
    const grant = role('ClusterRole', 'core-manager', [
      {
        apiGroups: ['apiextensions.k8s.io'],
        resources: ['customresourcedefinitions/status'],
        resourceNames: ['widgets.example.com'],
        verbs: ['patch'],
      },
    ]);
    const without = role('ClusterRole', 'core-manager', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }]);
    const before = crd([{ name: 'v1alpha4' }, v1]);
    const after = crd([v1]);
    const steps = (old: KubeObject, now: KubeObject) =>
      only(
        findingsFor([before, old, identity('CoreProvider')], [after, now, identity('CoreProvider')]),
        'crd-version-removed',
      )[0]!.details!;
    expect(steps(without, grant)[1]).toBe('If it prints exactly `["v1beta1"]`, nothing needs migrating.');
    expect(steps(without, grant)[2]).toContain(", or let core's CRD migrator do it. clusterctl upgrade");
    expect(steps(grant, grant)[1]).toBe(
      'If it prints exactly `["v1beta1"]`, nothing needs migrating (core\'s CRD migrator, Cluster API v1.10+, usually did it already).',
    );
    expect(steps(grant, without)[2]).toContain(
      "No ClusterRole of core lets its controller update this CRD's status, so no CRD migrator of its own does it",
    );
  });

  it('sends removal of the current storage version through an intermediate release', () => {
    const [finding] = findingsFor([crd([v1])], [crd([{ name: 'v1beta2', storage: true }])]).filter(
      (f) => f.code === 'crd-version-removed',
    );
    expect(finding!.details![0]).toContain('(v1beta1) is one of v1beta1');
    expect(finding!.details![1]).toContain('must print `["v1beta2"]`');
  });

  const byName = [
    {
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions', 'customresourcedefinitions/status'],
      resourceNames: ['widgets.example.com'],
      verbs: ['patch', 'update'],
    },
  ];
  const byHand =
    '(`kubectl get widgets.example.com -A -o json | kubectl replace -f -`, then remove v1beta1 from status.storedVersions) before a later release drops v1beta1.';
  it.each([
    {
      name: 'no ClusterRole in the component: nothing shows a migrator',
      kind: 'InfrastructureProvider',
      rules: undefined,
      says: `core renders no ClusterRole that shows whether its controller runs a CRD migrator (as Cluster API core and providers embedding it since v1.10 do); check, or do it by hand ${byHand}`,
    },
    {
      name: "the core provider granting patch on the CRD's status by name: its migrator",
      kind: 'CoreProvider',
      rules: byName,
      says: `core's controller (Cluster API v1.10+) re-writes them and trims status.storedVersions through its CRD migrator after the sync; otherwise do it by hand ${byHand}`,
    },
    {
      name: 'an infrastructure provider granting update on every CRD status: its migrator, if its release runs one',
      kind: 'InfrastructureProvider',
      rules: [
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions/status'], verbs: ['update'] },
      ],
      says: `A ClusterRole of core lets its controller update this CRD's status, the grant Cluster API's CRD migrator needs (providers embed it from Cluster API v1.10 on): if core's release runs it (its release notes say), its controller re-writes them after the sync; otherwise do it by hand ${byHand}`,
    },
    {
      name: 'a ClusterRole granting it for other CRDs only: by hand',
      kind: 'CoreProvider',
      rules: [
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions/status'],
          resourceNames: ['gadgets.example.com'],
          verbs: ['patch', 'update'],
        },
      ],
      says: `No ClusterRole of core lets its controller update this CRD's status, which a CRD migrator needs to trim status.storedVersions: do it by hand ${byHand}`,
    },
    {
      name: 'a ClusterRole that may only read CRDs: by hand',
      kind: 'IPAMProvider',
      rules: [
        {
          apiGroups: ['apiextensions.k8s.io'],
          resources: ['customresourcedefinitions'],
          verbs: ['get', 'list', 'watch'],
        },
      ],
      says: `No ClusterRole of core lets its controller update this CRD's status, which a CRD migrator needs to trim status.storedVersions: do it by hand ${byHand}`,
    },
    {
      name: "cert-manager's CRD: by hand or cmctl, whatever its roles grant",
      kind: 'cert-manager',
      rules: byName,
      says: `cert-manager's controllers do not re-write them, and only clusterctl's own cert-manager upgrade migrates them (Argo CD and Flux do not): do it by hand ${byHand.slice(0, -1)}, or with \`cmctl upgrade migrate-api-version\`.`,
    },
  ])('says who migrates a changed storage version: $name', ({ kind, rules, says }) => {
    const roles = [...(rules === undefined ? [] : [role('ClusterRole', 'core-manager', rules)]), identity(kind)];
    const [finding] = only(
      findingsFor([crd([v1]), ...roles], [crd([{ name: 'v1beta1' }, { name: 'v1beta2', storage: true }]), ...roles]),
      'crd-storage-version-changed',
    );
    expect(finding!.details![1]).toBe(says);
  });

  it('reports the storage change with its old and new version', () => {
    const [finding] = only(
      findingsFor([crd([v1])], [crd([{ name: 'v1beta1' }, { name: 'v1beta2', storage: true }])]),
      'crd-storage-version-changed',
    );
    expect(finding).toMatchObject({
      severity: 'warning',
      before: 'v1beta1',
      after: 'v1beta2',
      object: 'CustomResourceDefinition.apiextensions.k8s.io/widgets.example.com',
    });
  });
});

describe('safetyFindings: webhooks', () => {
  const V = 'ValidatingWebhookConfiguration';
  const cases: {
    name: string;
    before: KubeObject[];
    after: KubeObject[];
    expected: [string, string, string[] | undefined][];
  }[] = [
    {
      name: 'a webhook added',
      before: [webhooks(V, [hook('a')])],
      after: [webhooks(V, [hook('a'), hook('b')])],
      expected: [['info', 'webhook-added', ['b']]],
    },
    {
      name: 'a webhook removed',
      before: [webhooks(V, [hook('a'), hook('b')])],
      after: [webhooks(V, [hook('b')])],
      expected: [['warning', 'webhook-removed', ['a']]],
    },
    {
      name: 'failure policy relaxed',
      before: [webhooks(V, [hook('a'), hook('b')])],
      after: [webhooks(V, [hook('a', { failurePolicy: 'Ignore' }), hook('b')])],
      expected: [['info', 'webhook-changed', ['a']]],
    },
    {
      name: 'only the injected caBundle and service path change',
      before: [webhooks(V, [hook('a')])],
      after: [
        webhooks(V, [
          hook('a', { clientConfig: { caBundle: 'Zm9v', service: { name: 's', namespace: 'n', path: '/v2' } } }),
        ]),
      ],
      expected: [],
    },
    {
      name: 'a whole configuration removed',
      before: [webhooks(V, [hook('a'), hook('b')])],
      after: [],
      expected: [
        ['warning', 'object-removed', undefined],
        ['warning', 'webhook-removed', ['a']],
        ['warning', 'webhook-removed', ['b']],
      ],
    },
  ];
  it.each(cases)('$name', ({ before, after, expected }) => {
    expect(facts(findingsFor(before, after))).toEqual(expected);
  });

  it('matches webhooks by name per configuration, mutating and validating apart', () => {
    const before = [webhooks('MutatingWebhookConfiguration', [hook('x')], 'm'), webhooks(V, [hook('x')], 'v')];
    const after = [webhooks('MutatingWebhookConfiguration', [], 'm'), webhooks(V, [hook('x')], 'v')];
    expect(findingsFor(before, after).map((f) => [f.code, f.object, f.subjects])).toEqual([
      ['webhook-removed', 'MutatingWebhookConfiguration.admissionregistration.k8s.io/m', ['x']],
    ]);
  });
});

describe('safetyFindings: RBAC', () => {
  const rule = (
    apiGroups: string[],
    resources: string[],
    verbs: string[],
    extra: Record<string, unknown> = {},
  ): Record<string, unknown> => ({ apiGroups, resources, verbs, ...extra });
  const base = rule([''], ['secrets'], ['get']);
  const cases: {
    name: string;
    before: KubeObject[];
    after: KubeObject[];
    expected: [string, string, string[] | undefined][];
  }[] = [
    {
      name: 'a namespaced Role gains: info',
      before: [role('Role', 'r', [base])],
      after: [role('Role', 'r', [base, rule(['coordination.k8s.io'], ['leases'], ['create'])])],
      expected: [['info', 'rbac-permissions-gained', ['create leases.coordination.k8s.io']]],
    },
    {
      name: 'a ClusterRole gains: warning',
      before: [role('ClusterRole', 'c', [base])],
      after: [role('ClusterRole', 'c', [rule([''], ['secrets'], ['get', 'delete'])])],
      expected: [['warning', 'rbac-permissions-gained', ['delete secrets']]],
    },
    {
      name: 'wildcard verbs: danger',
      before: [role('ClusterRole', 'c', [base])],
      after: [role('ClusterRole', 'c', [base, rule(['apps'], ['deployments'], ['*'])])],
      expected: [['danger', 'rbac-permissions-gained', ['* deployments.apps']]],
    },
    {
      name: 'wildcard resources: danger',
      before: [role('Role', 'r', [])],
      after: [role('Role', 'r', [rule(['cluster.x-k8s.io'], ['*'], ['get'])])],
      expected: [['danger', 'rbac-permissions-gained', ['get *.cluster.x-k8s.io']]],
    },
    {
      name: 'escalate, bind and impersonate: danger',
      before: [role('ClusterRole', 'c', [])],
      after: [
        role('ClusterRole', 'c', [
          rule(['rbac.authorization.k8s.io'], ['clusterroles'], ['bind', 'escalate']),
          rule([''], ['serviceaccounts'], ['impersonate']),
        ]),
      ],
      expected: [
        [
          'danger',
          'rbac-permissions-gained',
          [
            'bind clusterroles.rbac.authorization.k8s.io',
            'escalate clusterroles.rbac.authorization.k8s.io',
            'impersonate serviceaccounts',
          ],
        ],
      ],
    },
    {
      name: 'non-resource URLs',
      before: [role('ClusterRole', 'c', [])],
      after: [role('ClusterRole', 'c', [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }])],
      expected: [['warning', 'rbac-permissions-gained', ['get /metrics']]],
    },
    {
      name: 'permissions lost: info',
      before: [role('ClusterRole', 'c', [rule([''], ['secrets'], ['get', 'list'])])],
      after: [role('ClusterRole', 'c', [base])],
      expected: [['info', 'rbac-permissions-lost', ['list secrets']]],
    },
    {
      name: 'rules regrouped without a change in permissions',
      before: [role('ClusterRole', 'c', [rule(['', 'apps'], ['configmaps', 'deployments'], ['get', 'list'])])],
      after: [
        role('ClusterRole', 'c', [
          rule(['apps'], ['configmaps', 'deployments'], ['list', 'get']),
          rule([''], ['deployments'], ['get', 'list']),
          rule([''], ['configmaps'], ['list', 'get']),
        ]),
      ],
      expected: [],
    },
    {
      name: 'a wildcard narrowed to explicit verbs loses the wildcard only',
      before: [role('ClusterRole', 'c', [rule([''], ['pods'], ['*'])])],
      after: [role('ClusterRole', 'c', [rule([''], ['pods'], ['get', 'list'])])],
      expected: [['info', 'rbac-permissions-lost', ['* pods']]],
    },
    {
      name: 'a name restriction lifted',
      before: [role('Role', 'r', [rule([''], ['secrets'], ['get'], { resourceNames: ['a'] })])],
      after: [role('Role', 'r', [base])],
      expected: [['info', 'rbac-permissions-gained', ['get secrets']]],
    },
    {
      name: '*/scale covers the scale subresource',
      before: [role('ClusterRole', 'c', [rule(['apps'], ['*/scale'], ['update'])])],
      after: [role('ClusterRole', 'c', [rule(['apps'], ['*/scale', 'deployments/scale'], ['update'])])],
      expected: [],
    },
    {
      name: 'a new ClusterRole gains all it grants',
      before: [],
      after: [role('ClusterRole', 'c', [base])],
      expected: [['warning', 'rbac-permissions-gained', ['get secrets']]],
    },
  ];
  it.each(cases)('$name', ({ before, after, expected }) => {
    expect(facts(findingsFor(before, after))).toEqual(expected);
  });

  const AGG = { 'example.com/aggregate-to-manager': 'true' };
  const aggregating = role('ClusterRole', 'aggregated-manager', [], {
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: AGG }] },
  });

  it('notes an aggregating ClusterRole and the roles it selects, and reports permissions on the selected role', () => {
    const findings = findingsFor([], [aggregating, role('ClusterRole', 'manager', [base], {}, AGG)]);
    expect(findings.map((f) => [f.code, shortId(f), f.subjects])).toEqual([
      ['rbac-permissions-gained', 'manager', ['get secrets']],
      ['rbac-aggregation', 'aggregated-manager', ['manager']],
    ]);
    expect(findings[0]!.details).toContain(
      'aggregated into ClusterRole aggregated-manager, so its subjects gain these too',
    );
  });

  it('notes an unchanged aggregating ClusterRole when the set of roles it selects changes', () => {
    const findings = findingsFor([aggregating], [aggregating, role('ClusterRole', 'extra', [base], {}, AGG)]);
    expect(findings.map((f) => [f.code, shortId(f), f.subjects])).toEqual([
      ['rbac-permissions-gained', 'extra', ['get secrets']],
      ['rbac-aggregation', 'aggregated-manager', ['extra']],
    ]);
  });

  it('says when gains flow into the built-in admin/edit/view roles', () => {
    const [finding] = findingsFor(
      [],
      [
        role(
          'ClusterRole',
          'widgets-edit',
          [rule(['example.com'], ['widgets'], ['create'])],
          {},
          { 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
        ),
      ],
    );
    expect(finding!.details).toContain(
      'aggregated into the built-in ClusterRole edit: every subject bound to edit gains these',
    );
  });
});

describe('safetyFindings: RBAC bindings', () => {
  type Subject = { kind: string; name: string; namespace?: string };
  const sa = (name: string, namespace = 'capi-system'): Subject => ({ kind: 'ServiceAccount', name, namespace });
  const group = (name: string): Subject => ({ kind: 'Group', name, apiGroup: 'rbac.authorization.k8s.io' }) as Subject;
  const user = (name: string): Subject => ({ kind: 'User', name, apiGroup: 'rbac.authorization.k8s.io' }) as Subject;
  const binding = (
    kind: 'RoleBinding' | 'ClusterRoleBinding',
    name: string,
    roleRef: [string, string],
    subjects: Subject[],
    labels: Record<string, string> = {},
  ): KubeObject =>
    ({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: meta(name, { ...(kind === 'RoleBinding' ? { namespace: 'capi-system' } : {}), labels }),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: roleRef[0], name: roleRef[1] },
      subjects,
    }) as KubeObject;
  const crb = (roleRef: [string, string], subjects: Subject[], labels: Record<string, string> = {}) =>
    binding('ClusterRoleBinding', 'capi-manager-rolebinding', roleRef, subjects, labels);
  const manager = sa('capi-manager');
  const leases = { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'update'] };
  // Unchanged on both sides, so the roles themselves give no finding: only the bindings do.
  const narrow = role('ClusterRole', 'capi-manager-role', [leases]);
  const wildVerbs = role('ClusterRole', 'wild-verbs', [
    { apiGroups: ['apps'], resources: ['deployments'], verbs: ['*'] },
  ]);
  const wildResources = role('ClusterRole', 'wild-resources', [
    { apiGroups: ['infrastructure.cluster.x-k8s.io'], resources: ['*'], verbs: ['get'] },
  ]);
  const AGG = { 'example.com/aggregate-to-manager': 'true' };
  const aggregating = role('ClusterRole', 'capi-aggregated-manager-role', [], {
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: AGG }] },
  });
  const aggregatedWild = role(
    'ClusterRole',
    'capi-manager-wild',
    [{ apiGroups: ['addons.cluster.x-k8s.io'], resources: ['*'], verbs: ['list'] }],
    {},
    AGG,
  );
  const nsRole = role('Role', 'capi-leader-election-role', [leases]);
  const nsWild = role('Role', 'capi-everything', [{ apiGroups: [''], resources: ['*'], verbs: ['*'] }]);
  const elsewhere = {
    ...role('Role', 'elsewhere-wild', [{ apiGroups: [''], resources: ['*'], verbs: ['*'] }]),
    metadata: meta('elsewhere-wild', { namespace: 'default' }),
  } as KubeObject;
  const roles = [narrow, wildVerbs, wildResources, aggregating, aggregatedWild, nsRole, nsWild];
  type Row = [string, string, string[] | undefined];
  const cases: { name: string; before: KubeObject[]; after: KubeObject[]; expected: Row[] }[] = [
    // New bindings.
    {
      name: 'new ClusterRoleBinding to cluster-admin: danger',
      before: [],
      after: [crb(['ClusterRole', 'cluster-admin'], [manager])],
      expected: [['danger', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'new RoleBinding to cluster-admin: danger',
      before: [],
      after: [binding('RoleBinding', 'rb', ['ClusterRole', 'cluster-admin'], [manager])],
      expected: [['danger', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'new binding to a role with * verbs: danger',
      before: [],
      after: [crb(['ClusterRole', 'wild-verbs'], [manager])],
      expected: [['danger', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'new binding to a role with * resources: danger',
      before: [],
      after: [crb(['ClusterRole', 'wild-resources'], [manager])],
      expected: [['danger', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'new binding to an aggregated role collecting * resources: danger',
      before: [],
      after: [crb(['ClusterRole', 'capi-aggregated-manager-role'], [manager])],
      expected: [['danger', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'new RoleBinding to a namespaced Role with wildcards: danger',
      before: [],
      after: [binding('RoleBinding', 'rb', ['Role', 'capi-everything'], [manager])],
      expected: [['danger', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'new binding of a narrow role to Group system:authenticated: danger',
      before: [],
      after: [crb(['ClusterRole', 'capi-manager-role'], [group('system:authenticated')])],
      expected: [['danger', 'rbac-binding-added', ['Group system:authenticated']]],
    },
    {
      name: 'new binding to Group system:unauthenticated: danger',
      before: [],
      after: [crb(['ClusterRole', 'capi-manager-role'], [group('system:unauthenticated')])],
      expected: [['danger', 'rbac-binding-added', ['Group system:unauthenticated']]],
    },
    {
      name: 'new binding to User system:anonymous: danger',
      before: [],
      after: [crb(['ClusterRole', 'capi-manager-role'], [user('system:anonymous')])],
      expected: [['danger', 'rbac-binding-added', ['User system:anonymous']]],
    },
    {
      name: 'new binding to Group system:serviceaccounts: danger',
      before: [],
      after: [crb(['ClusterRole', 'capi-manager-role'], [group('system:serviceaccounts')])],
      expected: [['danger', 'rbac-binding-added', ['Group system:serviceaccounts']]],
    },
    {
      name: 'new binding to Group system:serviceaccounts:<ns>: danger',
      before: [],
      after: [crb(['ClusterRole', 'capi-manager-role'], [group('system:serviceaccounts:default')])],
      expected: [['danger', 'rbac-binding-added', ['Group system:serviceaccounts:default']]],
    },
    {
      name: 'new binding of a narrow role to a service account: warning',
      before: [],
      after: [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      expected: [['warning', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'new RoleBinding of a narrow Role: warning',
      before: [],
      after: [binding('RoleBinding', 'rb', ['Role', 'capi-leader-election-role'], [manager])],
      expected: [['warning', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'a wildcard Role of that name in another namespace is not the one bound: warning',
      before: [elsewhere],
      after: [elsewhere, binding('RoleBinding', 'rb', ['Role', 'elsewhere-wild'], [manager])],
      expected: [['warning', 'rbac-binding-added', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'a User named like a group that is not everyone: warning',
      before: [],
      after: [crb(['ClusterRole', 'capi-manager-role'], [user('system:serviceaccounts'), user('alice')])],
      expected: [['warning', 'rbac-binding-added', ['User alice', 'User system:serviceaccounts']]],
    },
    // Changed bindings: subjects added.
    {
      name: 'Group system:authenticated added to a narrow binding: danger',
      before: [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      after: [crb(['ClusterRole', 'capi-manager-role'], [manager, group('system:authenticated')])],
      expected: [['danger', 'rbac-binding-subjects-added', ['Group system:authenticated']]],
    },
    {
      name: 'a service account added to a binding of cluster-admin: danger',
      before: [crb(['ClusterRole', 'cluster-admin'], [manager])],
      after: [crb(['ClusterRole', 'cluster-admin'], [manager, sa('other', 'default')])],
      expected: [['danger', 'rbac-binding-subjects-added', ['ServiceAccount default/other']]],
    },
    {
      name: 'a service account added to a binding of a wildcard role: danger',
      before: [crb(['ClusterRole', 'wild-resources'], [manager])],
      after: [crb(['ClusterRole', 'wild-resources'], [manager, sa('other')])],
      expected: [['danger', 'rbac-binding-subjects-added', ['ServiceAccount capi-system/other']]],
    },
    {
      name: 'a benign subject added to a narrow binding: warning',
      before: [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      after: [crb(['ClusterRole', 'capi-manager-role'], [manager, sa('capi-helper')])],
      expected: [['warning', 'rbac-binding-subjects-added', ['ServiceAccount capi-system/capi-helper']]],
    },
    {
      name: 'the same service account name in another namespace is a new subject',
      before: [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      after: [crb(['ClusterRole', 'capi-manager-role'], [manager, sa('capi-manager', 'default')])],
      expected: [['warning', 'rbac-binding-subjects-added', ['ServiceAccount default/capi-manager']]],
    },
    // Changed bindings: roleRef.
    {
      name: 'roleRef changed to cluster-admin: danger',
      before: [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      after: [crb(['ClusterRole', 'cluster-admin'], [manager])],
      expected: [['danger', 'rbac-binding-role-changed', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'roleRef changed to a wildcard role: danger',
      before: [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      after: [crb(['ClusterRole', 'wild-verbs'], [manager])],
      expected: [['danger', 'rbac-binding-role-changed', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'roleRef changed to a narrow role: warning',
      before: [crb(['ClusterRole', 'wild-verbs'], [manager])],
      after: [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      expected: [['warning', 'rbac-binding-role-changed', ['ServiceAccount capi-system/capi-manager']]],
    },
    {
      name: 'roleRef changed and a subject added: both',
      before: [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      after: [crb(['ClusterRole', 'cluster-admin'], [manager, group('system:serviceaccounts')])],
      expected: [
        [
          'danger',
          'rbac-binding-role-changed',
          ['Group system:serviceaccounts', 'ServiceAccount capi-system/capi-manager'],
        ],
        ['danger', 'rbac-binding-subjects-added', ['Group system:serviceaccounts']],
      ],
    },
    // Nothing to say.
    {
      name: 'an unchanged binding of cluster-admin to system:authenticated',
      before: [crb(['ClusterRole', 'cluster-admin'], [group('system:authenticated')])],
      after: [crb(['ClusterRole', 'cluster-admin'], [group('system:authenticated')])],
      expected: [],
    },
    {
      name: 'only labels changed, subjects reordered',
      before: [crb(['ClusterRole', 'cluster-admin'], [manager, sa('b')])],
      after: [crb(['ClusterRole', 'cluster-admin'], [sa('b'), manager], { team: 'platform' })],
      expected: [],
    },
    {
      name: 'a subject removed',
      before: [crb(['ClusterRole', 'cluster-admin'], [manager, group('system:authenticated')])],
      after: [crb(['ClusterRole', 'cluster-admin'], [manager])],
      expected: [],
    },
  ];
  it.each(cases)('$name', ({ before, after, expected }) => {
    expect(facts(findingsFor([...roles, ...before], [...roles, ...after]))).toEqual(expected);
  });

  it('says what makes a binding dangerous, the way a reviewer reads it', () => {
    const [admin] = findingsFor([], [crb(['ClusterRole', 'cluster-admin'], [manager])]);
    expect(admin).toMatchObject({
      object: 'ClusterRoleBinding.rbac.authorization.k8s.io/capi-manager-rolebinding',
      message:
        'ClusterRoleBinding capi-manager-rolebinding grants ClusterRole cluster-admin cluster-wide to ServiceAccount capi-system/capi-manager',
      details: ['dangerous: cluster-admin allows every verb on every resource cluster-wide'],
    });
    const [everyone] = findingsFor(
      [narrow, crb(['ClusterRole', 'capi-manager-role'], [manager])],
      [narrow, crb(['ClusterRole', 'capi-manager-role'], [manager, group('system:authenticated')])],
    );
    expect(everyone).toMatchObject({
      message:
        'ClusterRoleBinding capi-manager-rolebinding also grants ClusterRole capi-manager-role cluster-wide to Group system:authenticated',
      details: ['dangerous: Group system:authenticated is every authenticated user and service account'],
    });
    const [aggregated] = findingsFor(
      [aggregating, aggregatedWild],
      [aggregating, aggregatedWild, crb(['ClusterRole', 'capi-aggregated-manager-role'], [manager])],
    );
    expect(aggregated!.details).toEqual([
      'dangerous: ClusterRole capi-aggregated-manager-role allows *.addons.cluster.x-k8s.io: list',
      'ClusterRole capi-aggregated-manager-role aggregates these from ClusterRole capi-manager-wild',
    ]);
    const [changed] = findingsFor(
      [crb(['ClusterRole', 'capi-manager-role'], [manager])],
      [crb(['ClusterRole', 'other-role'], [manager])],
    );
    expect(changed).toMatchObject({
      severity: 'warning',
      before: 'ClusterRole capi-manager-role',
      after: 'ClusterRole other-role',
    });
    expect(changed!.details).toEqual([
      'ClusterRole other-role is not rendered in this environment: what it allows is not checked here',
      'roleRef cannot be changed in place: the API server refuses the update, so the binding must be deleted and created again',
    ]);
  });

  it('finds wildcard roles in another component of the same environment, not in another environment', () => {
    const before: RenderedSide = { environments: { prod: { roles: [wildVerbs] }, dev: { roles: [] } } };
    const bindingOnly = crb(['ClusterRole', 'wild-verbs'], [manager]);
    const after: RenderedSide = {
      environments: { prod: { roles: [wildVerbs], core: [bindingOnly] }, dev: { roles: [], core: [bindingOnly] } },
    };
    expect(safetyFindings(before, after).map((f) => [f.env, f.severity, f.code])).toEqual([
      ['prod', 'danger', 'rbac-binding-added'],
      ['dev', 'warning', 'rbac-binding-added'],
    ]);
  });
});

describe('safetyFindings: workloads', () => {
  const manager = (image: string, args: string[]): Record<string, unknown> => ({ name: 'manager', image, args });
  const gates = (list: string): string => `--feature-gates=${list}`;

  it('reports image, argument and feature-gate changes per container', () => {
    const findings = findingsFor(
      [workload([manager('capi:v1', ['--leader-elect', '--v=2', '--old', gates('A=true,B=false,C=true')])])],
      [workload([manager('capi:v2', ['--leader-elect', '--v=4', '--new=1', gates('A=true,B=true,D=false')])])],
    );
    expect(findings.map((f) => [f.severity, f.code, f.subjects, f.before, f.after, f.details])).toEqual([
      [
        'warning',
        'feature-gates-changed',
        ['manager'],
        undefined,
        undefined,
        [
          'changed B: false → true',
          "removed C (was true; the controller's default applies, or the gate no longer exists)",
          'added D=false',
        ],
      ],
      [
        'info',
        'args-changed',
        ['manager'],
        undefined,
        undefined,
        ['added --new=1', 'removed --old', 'changed --v: --v=2 → --v=4'],
      ],
      ['info', 'image-changed', ['manager'], 'capi:v1', 'capi:v2', undefined],
    ]);
  });

  it('only added gates are info', () => {
    const [finding] = findingsFor(
      [workload([manager('i', [gates('A=true')])])],
      [workload([manager('i', [gates('A=true,B=false')])])],
    );
    expect([finding!.severity, finding!.code, finding!.details]).toEqual([
      'info',
      'feature-gates-changed',
      ['added B=false'],
    ]);
  });

  it('covers DaemonSets and init containers, and new containers', () => {
    const before = [workload([manager('a:1', [])], 'DaemonSet', [{ name: 'init', image: 'busybox:1' }])];
    const after = [
      workload([manager('a:1', []), { name: 'proxy', image: 'proxy:1' }], 'DaemonSet', [
        { name: 'init', image: 'busybox:2' },
      ]),
    ];
    expect(findingsFor(before, after).map((f) => [f.code, f.subjects, f.before, f.after])).toEqual([
      ['image-changed', ['init'], 'busybox:1', 'busybox:2'],
      ['image-changed', ['proxy'], undefined, 'proxy:1'],
    ]);
  });
});

describe('safetyFindings: an image from another registry host', () => {
  const image = (reference: string) => [workload([{ name: 'manager', image: reference }])];
  it.each([
    {
      name: 'a new tag on the same host',
      from: 'registry.k8s.io/cluster-api/capi:v1.11.0',
      to: 'registry.k8s.io/cluster-api/capi:v1.12.0',
      severity: 'info',
      host: undefined,
    },
    {
      name: 'a digest added on the same host',
      from: 'ghcr.io/o/capi:v1',
      to: 'ghcr.io/o/capi:v1@sha256:' + 'a'.repeat(64),
      severity: 'info',
      host: undefined,
    },
    {
      name: 'another path on the same host',
      from: 'registry.k8s.io/cluster-api/capi:v1',
      to: 'registry.k8s.io/capi/capi:v1',
      severity: 'info',
      host: undefined,
    },
    {
      name: 'Docker Hub written short and in full',
      from: 'nginx:1.0',
      to: 'docker.io/library/nginx:1.1',
      severity: 'info',
      host: undefined,
    },
    {
      name: "the vcd release's move from VMware's registry to Broadcom's",
      from: 'projects.registry.vmware.com/vmware-cloud-director/cluster-api-provider-cloud-director:v1.2.0',
      to: 'projects.packages.broadcom.com/vmware-cloud-director/cluster-api-provider-cloud-director:v1.3.2',
      severity: 'warning',
      host: "The image moves from registry projects.registry.vmware.com to projects.packages.broadcom.com: the cluster's nodes pull from projects.packages.broadcom.com after the sync.",
    },
    {
      name: 'from Docker Hub to a registry with a port',
      from: 'capi:v1',
      to: 'mirror.example.com:5000/capi:v1',
      severity: 'warning',
      host: "The image moves from registry docker.io to mirror.example.com:5000: the cluster's nodes pull from mirror.example.com:5000 after the sync.",
    },
  ])('$name: $severity', ({ from, to, severity, host }) => {
    const [finding] = findingsFor(image(from), image(to));
    expect([finding!.severity, finding!.code, finding!.before, finding!.after]).toEqual([
      severity,
      'image-changed',
      from,
      to,
    ]);
    expect(finding!.details?.[0]).toBe(host);
    if (host !== undefined) expect(finding!.details![1]).toContain('An air-gapped site must mirror it from');
  });
});

describe('safetyFindings: removals', () => {
  const cases: {
    name: string;
    before: Record<string, KubeObject[]>;
    after: Record<string, KubeObject[]>;
    expected: [string, string, string | undefined, string | undefined][];
  }[] = [
    {
      name: 'an object is pruned',
      before: { core: [plain('ConfigMap', 'x', 'ns')] },
      after: { core: [] },
      expected: [['warning', 'object-removed', undefined, undefined]],
    },
    {
      name: 'a Namespace is pruned',
      before: { core: [plain('Namespace', 'capi-system')] },
      after: { core: [] },
      expected: [['danger', 'namespace-removed', undefined, undefined]],
    },
    {
      name: 'an object moves to another component',
      before: { a: [plain('ConfigMap', 'x', 'ns')], b: [] },
      after: { a: [], b: [plain('ConfigMap', 'x', 'ns')] },
      expected: [['warning', 'object-moved', 'a', 'b']],
    },
    {
      name: 'a CRD moving between components is dangerous',
      before: { a: [crd([{ name: 'v1', storage: true }])] },
      after: { b: [crd([{ name: 'v1', storage: true }])] },
      expected: [
        ['danger', 'object-moved', 'a', 'b'],
        ['info', 'crd-added', undefined, undefined],
      ],
    },
  ];
  it.each(cases)('$name', ({ before, after, expected }) => {
    expect(safetyFindings(side(before), side(after)).map((f) => [f.severity, f.code, f.before, f.after])).toEqual(
      expected,
    );
  });
});

describe('safetyFindings: removals of objects protected from pruning (what really happens)', () => {
  const argocd = (options: string) => ({ 'argocd.argoproj.io/sync-options': options });
  const flux = { 'kustomize.toolkit.fluxcd.io/prune': 'disabled' };
  const annotated = (object: KubeObject, annotations: Record<string, string>): KubeObject => ({
    ...object,
    metadata: { ...(object.metadata as object), annotations },
  });
  const ipaddresses = crd([{ name: 'v1beta2', storage: true }], 'ipaddresses.ipam.cluster.x-k8s.io');
  const cases: { name: string; before: KubeObject; expected: [string, string]; says: RegExp; details: RegExp[] }[] = [
    {
      name: 'a CRD with Argo CD Prune=false and Delete=false (as capi-render renders it) is left behind',
      before: annotated(ipaddresses, argocd('Delete=false,Prune=false,ServerSideApply=true')),
      expected: ['warning', 'crd-removed'],
      says: /left behind, not deleted: Argo CD \(`Prune=false`, `Delete=false`\) leaves it in the cluster, and its objects survive/,
      details: [
        /Nothing manages it from now on/,
        /OutOfSync/,
        /`kubectl delete crd ipaddresses\.ipam\.cluster\.x-k8s\.io` deletes the CRD and all of them/,
      ],
    },
    {
      name: 'a CRD with Flux prune: disabled is left behind',
      before: annotated(ipaddresses, flux),
      expected: ['warning', 'crd-removed'],
      says: /Flux \(`kustomize\.toolkit\.fluxcd\.io\/prune: disabled`\) leaves it in the cluster/,
      details: [/Nothing manages it/],
    },
    {
      name: 'a CRD with Prune=false only survives the sync but not the deletion of the Application',
      before: annotated(ipaddresses, argocd('Prune=false')),
      expected: ['warning', 'crd-removed'],
      says: /Argo CD \(`Prune=false`\) leaves it/,
      details: [
        /`Delete=false` is not set: deleting the Argo CD Application still deletes the CRD and every ipaddresses\.ipam\.cluster\.x-k8s\.io object/,
      ],
    },
    {
      name: 'an unprotected CRD (plain kustomize output) is deleted with its objects',
      before: ipaddresses,
      expected: ['danger', 'crd-removed'],
      says: /pruning it deletes every ipaddresses\.ipam\.cluster\.x-k8s\.io object/,
      details: [/Prune=false/],
    },
    {
      name: 'a protected Namespace is left behind with what is in it',
      before: annotated(plain('Namespace', 'capi-system'), flux),
      expected: ['warning', 'namespace-removed'],
      says: /left behind with everything in it/,
      details: [/kubectl delete namespace capi-system/],
    },
    {
      name: 'another protected object is left behind (info)',
      before: annotated(plain('ConfigMap', 'x', 'ns'), argocd('Prune=false,Delete=false')),
      expected: ['info', 'object-removed'],
      says: /left behind: Argo CD/,
      details: [],
    },
  ];
  it.each(cases)('$name', ({ before, expected, says, details }) => {
    const [finding, ...rest] = safetyFindings(side({ core: [before] }), side({ core: [] }));
    expect(rest).toEqual([]);
    expect([finding!.severity, finding!.code]).toEqual(expected);
    expect(finding!.message).toMatch(says);
    for (const detail of details)
      expect(
        finding!.details?.some((d) => detail.test(d)),
        `${detail} in ${JSON.stringify(finding!.details)}`,
      ).toBe(true);
  });

  it('a protected object moving between components is taken over, not pruned', () => {
    const cm = annotated(plain('ConfigMap', 'x', 'ns'), flux);
    const [finding] = safetyFindings(side({ a: [cm], b: [] }), side({ a: [], b: [cm] }));
    expect([finding!.severity, finding!.code, finding!.before, finding!.after]).toEqual([
      'info',
      'object-moved',
      'a',
      'b',
    ]);
  });
});

describe('safetyFindings: versions added without being served', () => {
  it('explain why they are there and that they need nothing', () => {
    const before = crd([{ name: 'v1beta1', storage: true }]);
    const after = crd([
      { name: 'v1alpha3', served: false, deprecated: true },
      { name: 'v1alpha4', served: false, deprecated: true },
      { name: 'v1beta1', storage: true },
    ]);
    const [finding] = findingsFor([before], [after]);
    expect([finding!.code, finding!.subjects]).toEqual(['crd-version-added', ['v1alpha3', 'v1alpha4']]);
    expect(finding!.details).toEqual([
      'v1alpha3, v1alpha4 are not served: no client can read or write objects through them, so nothing changes for users or controllers.',
      'Listing them lets the API server accept this CRD on a cluster whose `status.storedVersions` still names them, and read objects stored in them long ago. Nothing to do.',
    ]);
  });

  it('say nothing extra for a served version', () => {
    const [finding] = findingsFor(
      [crd([{ name: 'v1beta1', storage: true }])],
      [crd([{ name: 'v1beta1', storage: true }, { name: 'v1beta2' }])],
    );
    expect([finding!.code, finding!.subjects, finding!.details]).toEqual(['crd-version-added', ['v1beta2'], undefined]);
  });
});

describe('safetyFindings: contracts', () => {
  it('warns when a known contract changes and ignores unchanged or unknown ones', () => {
    const contracts: ContractChange[] = [
      { env: 'prod', provider: 'cluster-api', before: 'v1beta1', after: 'v1beta2' },
      { env: 'prod', provider: 'infrastructure-docker', before: 'v1beta2', after: 'v1beta2' },
      { env: 'prod', provider: 'addon-helm', after: 'v1beta1' },
    ];
    expect(
      safetyFindings(side({}), side({}), { contracts }).map((f) => [
        f.severity,
        f.code,
        f.component,
        f.object,
        f.before,
        f.after,
      ]),
    ).toEqual([['warning', 'contract-changed', 'cluster-api', undefined, 'v1beta1', 'v1beta2']]);
  });

  it.each([
    {
      name: 'a provider moving to the contract the core implements already moves alone',
      core: { before: 'v1beta2', after: 'v1beta2' },
      says: "The core provider cluster-api implements v1beta2 already: infrastructure-metal3 moves to the core's contract, and no other provider has to move with it.",
    },
    {
      name: 'a provider moving with the core',
      core: { before: 'v1beta1', after: 'v1beta2' },
      says: 'infrastructure-metal3 moves with the core provider cluster-api, which implements v1beta2 after this upgrade.',
    },
    {
      name: 'a provider moving past the core',
      core: { before: 'v1beta1', after: 'v1beta1' },
      says: 'The core provider cluster-api implements v1beta1 after this upgrade, and accepts providers implementing v1beta1.',
    },
  ])('$name', ({ core, says }) => {
    const contracts: ContractChange[] = [
      {
        env: 'prod',
        provider: 'infrastructure-metal3',
        before: 'v1beta1',
        after: 'v1beta2',
        core: { provider: 'cluster-api', ...core },
      },
    ];
    const [finding] = safetyFindings(side({}), side({}), { contracts });
    expect(finding!.details![0]).toBe(says);
  });
});

describe('safetyFindings: a provider on a contract older than the core', () => {
  const core = (before: string | undefined, after: string) => ({
    provider: 'cluster-api',
    ...(before ? { before } : {}),
    after,
  });
  const RULE =
    'clusterctl accepts it, by Cluster API\'s support rule (book, reference/versions.md): "v1beta1 is temporarily compatible with v1beta2", and v1beta1 is "Deprecated since CAPI v1.11; in v1.16, April 2027 compatibility with the v1beta1 contract will be considered EOL".';
  const cases: { name: string; change: ContractChange; expected: [string, string[]] | undefined }[] = [
    {
      name: 'a v1beta1 provider upgraded under a v1beta2 core: a warning',
      change: {
        env: 'prod',
        provider: 'infrastructure-vcd',
        before: 'v1beta1',
        after: 'v1beta1',
        from: 'v1.2.0',
        to: 'v1.3.2',
        core: core('v1beta2', 'v1beta2'),
      },
      expected: ['warning', ['v1beta1', 'v1beta2']],
    },
    {
      name: 'a v1beta1 provider new in the environment',
      change: {
        env: 'prod',
        provider: 'ipam-in-cluster',
        after: 'v1beta1',
        to: 'v1.0.0',
        core: core('v1beta2', 'v1beta2'),
      },
      expected: ['warning', ['v1beta1', 'v1beta2']],
    },
    {
      name: 'a v1beta1 provider the core leaves behind',
      change: {
        env: 'prod',
        provider: 'addon-helm',
        before: 'v1beta1',
        after: 'v1beta1',
        from: 'v0.3.0',
        to: 'v0.3.0',
        core: core('v1beta1', 'v1beta2'),
      },
      expected: ['warning', ['v1beta1', 'v1beta2']],
    },
    {
      name: 'a provider nothing moves: nothing',
      change: {
        env: 'prod',
        provider: 'infrastructure-vcd',
        before: 'v1beta1',
        after: 'v1beta1',
        from: 'v1.3.2',
        to: 'v1.3.2',
        core: core('v1beta2', 'v1beta2'),
      },
      expected: undefined,
    },
    {
      name: "a provider on the core's contract: nothing",
      change: {
        env: 'prod',
        provider: 'infrastructure-docker',
        before: 'v1beta2',
        after: 'v1beta2',
        from: 'v1.11.0',
        to: 'v1.12.0',
        core: core('v1beta2', 'v1beta2'),
      },
      expected: undefined,
    },
    {
      name: 'a v1alpha4 provider under a v1beta1 core: danger, as clusterctl refuses it',
      change: {
        env: 'prod',
        provider: 'bootstrap-kubeadm',
        before: 'v1alpha4',
        after: 'v1alpha4',
        from: 'v0.4.8',
        to: 'v0.4.8',
        core: core('v1alpha4', 'v1beta1'),
      },
      expected: ['danger', ['v1alpha4', 'v1beta1']],
    },
  ];
  it.each(cases)('$name', ({ change, expected }) => {
    const found = only(safetyFindings(side({}), side({}), { contracts: [change] }), 'contract-older-than-core');
    expect(found.map((f) => [f.severity, f.subjects])).toEqual(expected === undefined ? [] : [expected]);
    if (expected?.[0] === 'warning') {
      expect(found[0]!.message).toBe(
        `${change.provider} implements contract v1beta1, older than v1beta2, the contract of the core provider cluster-api`,
      );
      expect(found[0]!.details![0]).toBe(RULE);
    }
    if (expected?.[0] === 'danger') {
      expect(found[0]!.details).toEqual([
        'clusterctl: "installing provider "bootstrap-kubeadm" could lead to a non functioning management cluster: the target version for the provider implements the v1alpha4 contract version, while the core provider is compatible with v1beta1 contract versions"; move bootstrap-kubeadm to a release implementing v1beta1 in the same upgrade',
      ]);
    }
  });

  it.each([
    { provider: 'infrastructure-vcd', limits: true },
    { provider: 'bootstrap-rke2', limits: true },
    { provider: 'control-plane-rke2', limits: true },
    { provider: 'ipam-in-cluster', limits: false },
    { provider: 'runtime-extension-test', limits: false },
    { provider: 'addon-helm', limits: false },
  ])(
    "names the compatibility's limits on terminal failures for the kinds that report them: $provider",
    ({ provider, limits }) => {
      const change: ContractChange = {
        env: 'prod',
        provider,
        before: 'v1beta1',
        after: 'v1beta1',
        from: 'v1.0.0',
        to: 'v1.1.0',
        core: core('v1beta2', 'v1beta2'),
      };
      const [found] = only(safetyFindings(side({}), side({}), { contracts: [change] }), 'contract-older-than-core');
      expect(found!.details!.some((d) => d.startsWith('The compatibility has limits: a terminal failure'))).toBe(
        limits,
      );
    },
  );

  it.each([
    {
      name: 'v1beta1 → v1beta2: the providers left behind keep working',
      before: 'v1beta1',
      after: 'v1beta2',
      first:
        'A core implementing v1beta2 still accepts providers implementing v1beta1 (Cluster API: "v1beta1 is temporarily compatible with v1beta2"): those in prod that do not move with it keep working, and each is named in a contract-older-than-core finding.',
    },
    {
      name: 'v1alpha4 → v1beta1: every provider moves',
      before: 'v1alpha4',
      after: 'v1beta1',
      first:
        'clusterctl moves all providers to a new contract together: every other provider in prod needs a release for v1beta1 in the same upgrade.',
    },
  ])("the core's own contract move: $name", ({ before, after, first }) => {
    const [found] = safetyFindings(side({}), side({}), {
      contracts: [{ env: 'prod', provider: 'cluster-api', before, after }],
    });
    expect(found!.details).toEqual([
      first,
      `Manifests in git that use Cluster API's ${before} API versions (Clusters, MachineDeployments, ClusterClasses, templates) keep working only while ${before} is served; plan their move to ${after}.`,
    ]);
  });
});

describe('safetyFindings: variables a provider stops or starts reading', () => {
  it('warns for a value no longer read, notes one newly read, and says nothing when the names are the same', () => {
    const variables: VariableUseChange[] = [
      {
        env: 'prod',
        provider: 'infrastructure-metal3',
        from: 'v1.12.7',
        to: 'v1.13.2',
        before: ['CAPM3_FAST_TRACK', 'TLS_MIN_VERSION'],
        after: ['CAPM3_FAST_TRACK'],
      },
      { env: 'prod', provider: 'ipam-metal3', from: 'v1.12.6', to: 'v1.13.2', before: ['A', 'B'], after: ['C'] },
      { env: 'prod', provider: 'bootstrap-rke2', from: 'v0.24.4', to: 'v0.25.0', before: ['X'], after: ['X'] },
    ];
    expect(
      safetyFindings(side({}), side({}), { variables }).map((f) => [
        f.severity,
        f.code,
        f.component,
        f.message,
        f.subjects,
      ]),
    ).toEqual([
      [
        'warning',
        'variables-changed',
        'infrastructure-metal3',
        'infrastructure-metal3 v1.13.2 no longer reads variable TLS_MIN_VERSION, set in prod',
        ['TLS_MIN_VERSION'],
      ],
      [
        'warning',
        'variables-changed',
        'ipam-metal3',
        'ipam-metal3 v1.13.2 no longer reads variables A, B, set in prod',
        ['A', 'B'],
      ],
      [
        'info',
        'variables-changed',
        'ipam-metal3',
        'ipam-metal3 v1.13.2 now reads variable C, already set in prod',
        ['C'],
      ],
    ]);
  });
});

describe('safetyFindings: order', () => {
  it('is independent of the order of objects, components and environments', () => {
    const reversed = (release: Record<string, readonly KubeObject[]>): Record<string, KubeObject[]> =>
      Object.fromEntries(
        Object.entries(release)
          .reverse()
          .map(([c, objects]) => [c, [...objects].reverse()]),
      );
    const forward = safetyFindings(
      { environments: { a: v1_10_4, b: v1_10_4 } },
      { environments: { a: v1_11_0, b: v1_11_0 } },
    );
    const backward = safetyFindings(
      { environments: { b: reversed(v1_10_4), a: reversed(v1_10_4) } },
      { environments: { b: reversed(v1_11_0), a: reversed(v1_11_0) } },
    );
    expect(forward.length).toBeGreaterThan(0);
    expect(backward).toEqual(forward);
  });

  it('sorts danger first, then environment, component and object', () => {
    const severities = safetyFindings(side(v1_10_4), side(v1_11_0)).map((f) => f.severity);
    expect(severities).toEqual(
      [...severities].sort(
        (a, b) => ['danger', 'warning', 'info'].indexOf(a) - ['danger', 'warning', 'info'].indexOf(b),
      ),
    );
  });
});

/** The contract of each provider at `version`, from its own metadata.yaml (the real release series). */
function contractsAt(version: KubeadmVersion): Record<string, string> {
  return Object.fromEntries(
    Object.keys(KUBEADM_ASSETS).map((component) => {
      const text = readFileSync(
        new URL(`../fixtures/repository/${component}/${version}/metadata.yaml`, import.meta.url),
        'utf8',
      );
      return [component, releaseSeriesFor(parseMetadata(text, component), version)!.contract];
    }),
  );
}

describe('safetyFindings on the real kubeadm releases', () => {
  describe('v1.10.4 → v1.11.0 (the v1beta2 contract)', () => {
    const before = contractsAt('v1.10.4');
    const after = contractsAt('v1.11.0');
    const contracts = Object.keys(KUBEADM_ASSETS).map((provider) => ({
      env: 'prod',
      provider,
      before: before[provider],
      after: after[provider],
    }));
    const findings = safetyFindings(side(v1_10_4), side(v1_11_0), { contracts });

    it('moves all three providers from contract v1beta1 to v1beta2', () => {
      expect(only(findings, 'contract-changed').map((f) => [f.component, f.before, f.after])).toEqual([
        ['bootstrap-kubeadm', 'v1beta1', 'v1beta2'],
        ['cluster-api', 'v1beta1', 'v1beta2'],
        ['control-plane-kubeadm', 'v1beta1', 'v1beta2'],
      ]);
    });

    it('flags the disappearing CRD versions and the disappearing CRD as danger', () => {
      // test/fixtures/PROVENANCE.md, "Surprises worth a test" item 1: the v1.11.0 fixtures were trimmed, without every v1alpha3/v1alpha4 (and
      // ipam v1alpha1) version and without ipaddresses.ipam.cluster.x-k8s.io. So these versions are
      // "removed" here; in the real v1.11.0 release they are still listed with served: false (as in
      // v1.12.0), and ipaddressclaims v1alpha1 is still served. Nothing stops being served in this upgrade.
      expect(
        findings.filter((f) => f.severity === 'danger').map((f) => [f.code, f.component, shortId(f), f.subjects]),
      ).toEqual([
        [
          'crd-version-removed',
          'bootstrap-kubeadm',
          'kubeadmconfigs.bootstrap.cluster.x-k8s.io',
          ['v1alpha3', 'v1alpha4'],
        ],
        [
          'crd-version-removed',
          'bootstrap-kubeadm',
          'kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io',
          ['v1alpha3', 'v1alpha4'],
        ],
        ['crd-version-removed', 'cluster-api', 'clusterclasses.cluster.x-k8s.io', ['v1alpha4']],
        [
          'crd-version-removed',
          'cluster-api',
          'clusterresourcesetbindings.addons.cluster.x-k8s.io',
          ['v1alpha3', 'v1alpha4'],
        ],
        ['crd-version-removed', 'cluster-api', 'clusterresourcesets.addons.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['crd-version-removed', 'cluster-api', 'clusters.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['crd-version-removed', 'cluster-api', 'ipaddressclaims.ipam.cluster.x-k8s.io', ['v1alpha1']],
        ['crd-removed', 'cluster-api', 'ipaddresses.ipam.cluster.x-k8s.io', undefined],
        ['crd-version-removed', 'cluster-api', 'machinedeployments.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['crd-version-removed', 'cluster-api', 'machinehealthchecks.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['crd-version-removed', 'cluster-api', 'machinepools.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['crd-version-removed', 'cluster-api', 'machines.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['crd-version-removed', 'cluster-api', 'machinesets.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        [
          'crd-version-removed',
          'control-plane-kubeadm',
          'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io',
          ['v1alpha3', 'v1alpha4'],
        ],
        [
          'crd-version-removed',
          'control-plane-kubeadm',
          'kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io',
          ['v1alpha4'],
        ],
      ]);
      expect(only(findings, 'crd-version-unserved')).toEqual([]);
    });

    it('gives the storedVersions check and the migration to v1beta1, the storage version the cluster still uses', () => {
      const clusters = findings.find(
        (f) => f.code === 'crd-version-removed' && shortId(f) === 'clusters.cluster.x-k8s.io',
      )!;
      expect(clusters.details).toContain(
        "Before syncing, with the current release still installed, list the versions objects are stored in: `kubectl get crd clusters.cluster.x-k8s.io -o jsonpath='{.status.storedVersions}'`",
      );
      expect(
        clusters.details!.some((d) =>
          d.includes(`--subresource=status --type=merge -p '{"status":{"storedVersions":["v1beta1"]}}'`),
        ),
      ).toBe(true);
    });

    it('changes the storage version of every CAPI CRD to v1beta2 (ExtensionConfig from v1alpha1)', () => {
      expect(only(findings, 'crd-storage-version-changed').map((f) => [shortId(f), f.before, f.after])).toEqual([
        ['kubeadmconfigs.bootstrap.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['clusterclasses.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['clusterresourcesetbindings.addons.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['clusterresourcesets.addons.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['clusters.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['extensionconfigs.runtime.cluster.x-k8s.io', 'v1alpha1', 'v1beta2'],
        ['ipaddressclaims.ipam.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['machinedeployments.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['machinedrainrules.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['machinehealthchecks.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['machinepools.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['machines.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['machinesets.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['kubeadmcontrolplanes.controlplane.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
        ['kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io', 'v1beta1', 'v1beta2'],
      ]);
      expect(
        only(findings, 'crd-version-deprecated').every(
          (f) => f.subjects!.length === 1 && ['v1beta1', 'v1alpha1'].includes(f.subjects![0]!),
        ),
      ).toBe(true);
    });

    it('removes three defaulting webhooks', () => {
      expect(only(findings, 'webhook-removed').map((f) => [shortId(f), f.subjects])).toEqual([
        ['capi-kubeadm-bootstrap-mutating-webhook-configuration', ['default.kubeadmconfig.bootstrap.cluster.x-k8s.io']],
        ['capi-mutating-webhook-configuration', ['default.clusterclass.cluster.x-k8s.io']],
        [
          'capi-kubeadm-control-plane-mutating-webhook-configuration',
          ['default.kubeadmcontrolplanetemplate.controlplane.cluster.x-k8s.io'],
        ],
      ]);
    });

    it('changes the three manager images and nothing in RBAC, arguments or feature gates', () => {
      expect(only(findings, 'image-changed').map((f) => [f.before, f.after])).toEqual([
        [
          'registry.k8s.io/cluster-api/kubeadm-bootstrap-controller:v1.10.4',
          'registry.k8s.io/cluster-api/kubeadm-bootstrap-controller:v1.11.0',
        ],
        [
          'registry.k8s.io/cluster-api/cluster-api-controller:v1.10.4',
          'registry.k8s.io/cluster-api/cluster-api-controller:v1.11.0',
        ],
        [
          'registry.k8s.io/cluster-api/kubeadm-control-plane-controller:v1.10.4',
          'registry.k8s.io/cluster-api/kubeadm-control-plane-controller:v1.11.0',
        ],
      ]);
      expect(
        findings.filter(
          (f) => f.code.startsWith('rbac-') || f.code === 'args-changed' || f.code === 'feature-gates-changed',
        ),
      ).toEqual([]);
    });
  });

  describe('v1.11.0 → v1.12.0', () => {
    const findings = safetyFindings(side(v1_11_0), side(v1_12_0));

    it('needs no decision: nothing is dangerous', () => {
      expect(findings.filter((f) => f.severity === 'danger')).toEqual([]);
    });

    it('moves every manager from the v1.11.0 to the v1.12.0 image', () => {
      expect(only(findings, 'image-changed').map((f) => [f.component, f.subjects, f.after])).toEqual([
        ['bootstrap-kubeadm', ['manager'], 'registry.k8s.io/cluster-api/kubeadm-bootstrap-controller:v1.12.0'],
        ['cluster-api', ['manager'], 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0'],
        ['control-plane-kubeadm', ['manager'], 'registry.k8s.io/cluster-api/kubeadm-control-plane-controller:v1.12.0'],
      ]);
      expect(only(findings, 'image-changed').every((f) => f.before!.endsWith(':v1.11.0'))).toBe(true);
    });

    it('adds feature gates gate by gate; the core drops ClusterResourceSet', () => {
      expect(only(findings, 'feature-gates-changed').map((f) => [f.severity, f.component, f.details])).toEqual([
        [
          'warning',
          'cluster-api',
          [
            "removed ClusterResourceSet (was true; the controller's default applies, or the gate no longer exists)",
            'added InPlaceUpdates=false',
            'added MachineTaintPropagation=false',
            'added ReconcilerRateLimiting=false',
          ],
        ],
        ['info', 'bootstrap-kubeadm', ['added ReconcilerRateLimiting=false']],
        ['info', 'control-plane-kubeadm', ['added InPlaceUpdates=false', 'added ReconcilerRateLimiting=false']],
      ]);
      expect(only(findings, 'args-changed')).toEqual([]);
    });

    it('grants the control-plane manager seven new cluster-wide permissions, aggregated into its aggregated role', () => {
      const rbac = findings.filter((f) => f.code.startsWith('rbac-'));
      expect(rbac.map((f) => [f.severity, f.code, shortId(f), f.subjects])).toEqual([
        [
          'warning',
          'rbac-permissions-gained',
          'capi-kubeadm-control-plane-manager-role',
          [
            'delete secrets',
            'get extensionconfigs.runtime.cluster.x-k8s.io',
            'get namespaces',
            'list extensionconfigs.runtime.cluster.x-k8s.io',
            'list namespaces',
            'watch extensionconfigs.runtime.cluster.x-k8s.io',
            'watch namespaces',
          ],
        ],
      ]);
      expect(rbac[0]!.details).toEqual([
        'extensionconfigs.runtime.cluster.x-k8s.io: get, list, watch',
        'namespaces: get, list, watch',
        'secrets: delete',
        'aggregated into ClusterRole capi-kubeadm-control-plane-aggregated-manager-role, so its subjects gain these too',
      ]);
    });

    it('sees the versions and the CRD trimmed from the v1.11.0 fixture come back (fixture artifact)', () => {
      // test/fixtures/PROVENANCE.md, "Surprises worth a test" item 1: v1.11.0 lost its v1alpha3/v1alpha4 (ipam v1alpha1) versions and ipaddresses in the trim.
      expect(only(findings, 'crd-added').map((f) => [shortId(f), f.subjects])).toEqual([
        ['ipaddresses.ipam.cluster.x-k8s.io', ['v1alpha1', 'v1beta1', 'v1beta2']],
      ]);
      expect(only(findings, 'crd-version-added').map((f) => [shortId(f), f.subjects])).toEqual([
        ['kubeadmconfigs.bootstrap.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['clusterclasses.cluster.x-k8s.io', ['v1alpha4']],
        ['clusterresourcesetbindings.addons.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['clusterresourcesets.addons.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['clusters.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['ipaddressclaims.ipam.cluster.x-k8s.io', ['v1alpha1']],
        ['machinedeployments.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['machinehealthchecks.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['machinepools.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['machines.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['machinesets.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['kubeadmcontrolplanes.controlplane.cluster.x-k8s.io', ['v1alpha3', 'v1alpha4']],
        ['kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io', ['v1alpha4']],
      ]);
      expect(only(findings, 'crd-storage-version-changed')).toEqual([]);
    });
  });

  describe('v1.8.0 → v1.10.4', () => {
    const findings = safetyFindings(side(v1_8_0), side(v1_10_4));

    it('adds MachineDrainRules with their validating webhook', () => {
      expect(only(findings, 'crd-added').map((f) => [shortId(f), f.subjects])).toEqual([
        ['machinedrainrules.cluster.x-k8s.io', ['v1beta1']],
      ]);
      expect(only(findings, 'webhook-added').map((f) => f.subjects)).toEqual([
        ['validation.machinedrainrule.cluster.x-k8s.io'],
      ]);
    });

    it('drops --use-deprecated-infra-machine-naming and turns MachineSetPreflightChecks on', () => {
      expect(only(findings, 'args-changed').map((f) => [f.component, f.details])).toEqual([
        ['cluster-api', ['removed --use-deprecated-infra-machine-naming=false']],
        ['control-plane-kubeadm', ['removed --use-deprecated-infra-machine-naming=false']],
      ]);
      const core = only(findings, 'feature-gates-changed').find((f) => f.component === 'cluster-api')!;
      expect([core.severity, core.details]).toEqual([
        'warning',
        [
          'changed MachineSetPreflightChecks: false → true',
          'added MachineWaitForVolumeDetachConsiderVolumeAttachments=true',
          'added PriorityQueue=false',
        ],
      ]);
    });

    it('widens every manager ClusterRole (CRD patch for the CRD migrator, finalizers, drain rules), none dangerously', () => {
      const gained = only(findings, 'rbac-permissions-gained');
      expect(gained.map((f) => [f.severity, shortId(f), f.subjects!.length])).toEqual([
        ['warning', 'capi-kubeadm-bootstrap-manager-role', 23],
        ['warning', 'capi-manager-role', 104],
        ['warning', 'capi-kubeadm-control-plane-manager-role', 8],
      ]);
      const core = gained[1]!.subjects!;
      expect(core).toContain('patch customresourcedefinitions.apiextensions.k8s.io (name=clusters.cluster.x-k8s.io)');
      expect(core).toContain(
        'update customresourcedefinitions.apiextensions.k8s.io/status (name=machines.cluster.x-k8s.io)',
      );
      expect(core).toContain('get machinedrainrules.cluster.x-k8s.io');
      expect(only(findings, 'rbac-permissions-lost')).toEqual([]);
    });
  });

  it('a first install reports every binding: the managers bound to wildcard CAPI resources as danger, the rest as warning', () => {
    const findings = safetyFindings(side({}), side(v1_12_0)).filter((f) => f.code.startsWith('rbac-binding-'));
    expect(findings.map((f) => [f.severity, f.code, shortId(f)])).toEqual([
      ['danger', 'rbac-binding-added', 'capi-manager-rolebinding'],
      ['danger', 'rbac-binding-added', 'capi-kubeadm-control-plane-manager-rolebinding'],
      ['warning', 'rbac-binding-added', 'capi-kubeadm-bootstrap-manager-rolebinding'],
      [
        'warning',
        'rbac-binding-added',
        'capi-kubeadm-bootstrap-system/capi-kubeadm-bootstrap-leader-election-rolebinding',
      ],
      ['warning', 'rbac-binding-added', 'capi-system/capi-leader-election-rolebinding'],
      [
        'warning',
        'rbac-binding-added',
        'capi-kubeadm-control-plane-system/capi-kubeadm-control-plane-leader-election-rolebinding',
      ],
    ]);
    expect(findings[0]!.details).toContain(
      'dangerous: ClusterRole capi-aggregated-manager-role allows *.infrastructure.cluster.x-k8s.io: create, delete, get, list, patch, update, watch',
    );
  });

  it('finds nothing between a release and an equal copy of it', () => {
    expect(safetyFindings(side(v1_12_0), side(structuredClone(v1_12_0)))).toEqual([]);
  });
});

describe('safetyFindings: performance', () => {
  it('checks four full environments (~300 objects each, no shared references) in time linear in their size (a small multiple of serialising them)', async () => {
    const certManager = fixtureObjects('repository/cert-manager/v1.19.4/cert-manager.yaml.gz');
    const filler = Array.from({ length: 200 }, (_, i) => plain('ConfigMap', `settings-${i}`, 'capi-system'));
    const envs = ['dev', 'staging', 'prod', 'dr'];
    const build = (release: Record<string, readonly KubeObject[]>): RenderedSide => ({
      environments: Object.fromEntries(
        envs.map((e) => [e, structuredClone({ ...release, 'cert-manager': certManager, settings: filler })]),
      ),
    });
    const before = build(v1_11_0);
    const after = build(v1_12_0);
    // Against a linear walk of the same objects (serialising both sides), timed in alternating rounds:
    // the suite shares two noisy cores with other workers, so an absolute bound measured them too.
    // Today it costs about a third of such a walk; the bound leaves ~10× headroom, as 1 s did.
    let findings: ReturnType<typeof safetyFindings> = [];
    const ratio = (t: Record<'findings' | 'serialise both sides', Timed>) =>
      t.findings.median / t['serialise both sides'].median;
    const times = await timeSideBySideUntil(
      {
        findings: () => (findings = safetyFindings(before, after)),
        'serialise both sides': () => JSON.stringify([before, after]),
      },
      (t) => ratio(t) < 3,
    );
    expect(ratio(times), describeTimes(times)).toBeLessThan(3);
    expect(only(findings, 'image-changed')).toHaveLength(12);
  });
});
