/**
 * Every finding code, raised for a component of every kind a finding can name — the operator's
 * seven provider kinds and cert-manager — and what it says there. A finding's text must be true for
 * the component it names: words about Cluster API core's own machinery (its CRD migrator, its API
 * versions, the contracts it accepts) only for the core provider, words about a provider's CRD
 * migrator only for a provider, cmctl only for cert-manager. The rows are keyed by the codes the
 * code defines (FINDING_WHY), so a new code fails here until it has a row.
 */
import { describe, expect, it } from 'vitest';
import {
  type ContractChange,
  type Finding,
  FINDING_WHY,
  type FindingCode,
  type KubeObject,
  type ProviderKind,
  type RenderedSide,
  safetyFindings,
  type VariableUseChange,
} from 'capi-render';
import { compareContracts } from '../../src/diff/findings/contract-order.js';
import { PROVIDER_KINDS } from '../../src/declarations/provider-kinds.js';

type Kind = ProviderKind | 'cert-manager';
const KINDS: readonly Kind[] = [...PROVIDER_KINDS.map((k) => k.kind), 'cert-manager'];
const ENV = 'prod';
const CRD = 'widgets.example.com';

/** The component folder of a kind: clusterctl's manifest label of a provider named `example` (the core is `cluster-api`). */
function labelOf(kind: Kind): string {
  if (kind === 'cert-manager') return 'cert-manager';
  if (kind === 'CoreProvider') return 'cluster-api';
  return `${PROVIDER_KINDS.find((k) => k.kind === kind)!.labelPrefix}example`;
}

/** What the rendered output says a component is: clusterctl's inventory Provider object, or cert-manager's label. */
function identity(kind: Kind): KubeObject {
  if (kind === 'cert-manager')
    return object('v1', 'ServiceAccount', 'cert-manager', 'cert-manager', {
      labels: { 'clusterctl.cluster.x-k8s.io/core': 'cert-manager' },
    });
  return {
    ...object('clusterctl.cluster.x-k8s.io/v1alpha3', 'Provider', labelOf(kind), 'example-system'),
    providerName: 'example',
    type: kind,
    version: 'v1.0.0',
  };
}

function object(
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
  metadata: Record<string, unknown> = {},
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name, ...(namespace === undefined ? {} : { namespace }), ...metadata },
  };
}

/** Every component's controller ClusterRole grants what Cluster API's CRD migrator needs for the CRD (the releases that run one do). */
const MIGRATOR_ROLE: KubeObject = {
  ...object('rbac.authorization.k8s.io/v1', 'ClusterRole', 'example-crd-migrator'),
  rules: [
    {
      apiGroups: ['apiextensions.k8s.io'],
      resources: ['customresourcedefinitions', 'customresourcedefinitions/status'],
      resourceNames: [CRD],
      verbs: ['patch', 'update'],
    },
  ],
};

function crd(versions: { name: string; served?: boolean; storage?: boolean; deprecated?: boolean }[]): KubeObject {
  return {
    ...object('apiextensions.k8s.io/v1', 'CustomResourceDefinition', CRD),
    spec: {
      group: 'example.com',
      names: { kind: 'Widget', plural: 'widgets' },
      scope: 'Namespaced',
      versions: versions.map((v) => ({ served: true, storage: false, ...v })),
    },
  };
}

function role(name: string, rules: unknown[], extra: Record<string, unknown> = {}): KubeObject {
  return { ...object('rbac.authorization.k8s.io/v1', 'ClusterRole', name), rules, ...extra } as KubeObject;
}

function binding(role: string, subjects: { kind: string; name: string; namespace?: string }[]): KubeObject {
  return {
    ...object('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', 'example-binding'),
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role },
    subjects,
  };
}

function webhooks(hooks: { name: string; failurePolicy?: string }[]): KubeObject {
  const rules = [
    { apiGroups: ['example.com'], apiVersions: ['v1beta1'], operations: ['CREATE'], resources: ['widgets'] },
  ];
  return {
    ...object('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', 'example-validating'),
    webhooks: hooks.map((h) => ({ sideEffects: 'None', failurePolicy: 'Fail', rules, ...h })),
  };
}

function deployment(image: string, args: string[] = []): KubeObject {
  return {
    ...object('apps/v1', 'Deployment', 'example-controller-manager', 'example-system'),
    spec: { template: { spec: { containers: [{ name: 'manager', image, args }] } } },
  };
}

const SA = { kind: 'ServiceAccount', name: 'manager', namespace: 'example-system' };

/** One change that raises the code, in the component `label` of `kind`: its objects before and after, and the lock's facts. */
interface Scenario {
  before: KubeObject[];
  after: KubeObject[];
  contracts?: ContractChange[];
  variables?: VariableUseChange[];
  /** Objects of a second component (`elsewhere`) after the change. */
  elsewhere?: KubeObject[];
}

/** For codes about providers only: the kinds a finding of the code cannot be about. */
const NOT_FOR: Partial<Record<FindingCode, readonly Kind[]>> = {
  // The lock records contracts for providers only; the core is the contract a provider is measured against.
  'contract-changed': ['cert-manager'],
  'contract-older-than-core': ['cert-manager', 'CoreProvider'],
  'variables-changed': ['cert-manager'],
};

const ROWS: Record<FindingCode, (label: string) => Scenario> = {
  'contract-changed': (label) => ({
    before: [],
    after: [],
    contracts: [
      {
        env: ENV,
        provider: label,
        before: 'v1beta1',
        after: 'v1beta2',
        ...(label === 'cluster-api' ? {} : { core: { provider: 'cluster-api', before: 'v1beta2', after: 'v1beta2' } }),
      },
    ],
  }),
  'contract-older-than-core': (label) => ({
    before: [],
    after: [],
    contracts: [
      {
        env: ENV,
        provider: label,
        before: 'v1beta1',
        after: 'v1beta1',
        from: 'v1.0.0',
        to: 'v1.1.0',
        core: { provider: 'cluster-api', before: 'v1beta2', after: 'v1beta2' },
      },
    ],
  }),
  'crd-added': () => ({ before: [], after: [crd([{ name: 'v1beta1', storage: true }])] }),
  'crd-removed': () => ({ before: [crd([{ name: 'v1beta1', storage: true }])], after: [] }),
  'crd-version-added': () => ({
    before: [crd([{ name: 'v1beta1', storage: true }])],
    after: [crd([{ name: 'v1beta1', storage: true }, { name: 'v1beta2' }])],
  }),
  'crd-version-removed': () => ({
    before: [crd([{ name: 'v1alpha4' }, { name: 'v1beta1', storage: true }])],
    after: [crd([{ name: 'v1beta1', storage: true }])],
  }),
  'crd-version-unserved': () => ({
    before: [crd([{ name: 'v1alpha4' }, { name: 'v1beta1', storage: true }])],
    after: [
      crd([
        { name: 'v1alpha4', served: false },
        { name: 'v1beta1', storage: true },
      ]),
    ],
  }),
  'crd-version-deprecated': () => ({
    before: [crd([{ name: 'v1alpha4' }, { name: 'v1beta1', storage: true }])],
    after: [
      crd([
        { name: 'v1alpha4', deprecated: true },
        { name: 'v1beta1', storage: true },
      ]),
    ],
  }),
  'crd-storage-version-changed': () => ({
    before: [crd([{ name: 'v1beta1', storage: true }, { name: 'v1beta2' }])],
    after: [crd([{ name: 'v1beta1' }, { name: 'v1beta2', storage: true }])],
  }),
  'webhook-added': () => ({ before: [webhooks([])], after: [webhooks([{ name: 'v.widgets.example.com' }])] }),
  'webhook-removed': () => ({ before: [webhooks([{ name: 'v.widgets.example.com' }])], after: [webhooks([])] }),
  'webhook-changed': () => ({
    before: [webhooks([{ name: 'v.widgets.example.com' }])],
    after: [webhooks([{ name: 'v.widgets.example.com', failurePolicy: 'Ignore' }])],
  }),
  'rbac-permissions-gained': () => ({
    before: [role('example-manager', [])],
    after: [role('example-manager', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])],
  }),
  'rbac-permissions-lost': () => ({
    before: [role('example-manager', [{ apiGroups: [''], resources: ['secrets'], verbs: ['get'] }])],
    after: [role('example-manager', [])],
  }),
  'rbac-aggregation': () => ({
    before: [],
    after: [
      role('example-aggregated', [], {
        aggregationRule: { clusterRoleSelectors: [{ matchLabels: { 'example.com/aggregate': 'true' } }] },
      }),
    ],
  }),
  'rbac-binding-added': () => ({ before: [], after: [binding('example-manager', [SA])] }),
  'rbac-binding-subjects-added': () => ({
    before: [binding('example-manager', [SA])],
    after: [binding('example-manager', [SA, { ...SA, name: 'other' }])],
  }),
  'rbac-binding-role-changed': () => ({
    before: [binding('example-manager', [SA])],
    after: [binding('example-other', [SA])],
  }),
  'image-changed': () => ({
    before: [deployment('registry.example.com/example/manager:v1.0.0')],
    after: [deployment('registry.example.com/example/manager:v1.1.0')],
  }),
  'args-changed': () => ({
    before: [deployment('registry.example.com/m:v1', ['--v=2'])],
    after: [deployment('registry.example.com/m:v1', ['--v=4'])],
  }),
  'feature-gates-changed': () => ({
    before: [deployment('registry.example.com/m:v1', ['--feature-gates=A=true'])],
    after: [deployment('registry.example.com/m:v1', ['--feature-gates=A=false'])],
  }),
  'variables-changed': (label) => ({
    before: [],
    after: [],
    variables: [{ env: ENV, provider: label, from: 'v1.0.0', to: 'v1.1.0', before: ['EXAMPLE_OPTION'], after: [] }],
  }),
  'object-removed': () => ({ before: [object('v1', 'ConfigMap', 'example-settings', 'example-system')], after: [] }),
  'object-moved': () => ({
    before: [object('v1', 'ConfigMap', 'example-settings', 'example-system')],
    after: [],
    elsewhere: [object('v1', 'ConfigMap', 'example-settings', 'example-system')],
  }),
  'namespace-removed': () => ({ before: [object('v1', 'Namespace', 'example-system')], after: [] }),
};

/** The findings of the row's change, in the component of `kind`. */
function raise(code: FindingCode, kind: Kind): Finding[] {
  const label = labelOf(kind);
  const s = ROWS[code](label);
  const fixed = [identity(kind), MIGRATOR_ROLE];
  const side = (objects: KubeObject[], elsewhere: KubeObject[] = []): RenderedSide => ({
    environments: { [ENV]: { [label]: [...fixed, ...objects], elsewhere } },
  });
  const context = {
    ...(s.contracts ? { contracts: s.contracts } : {}),
    ...(s.variables ? { variables: s.variables } : {}),
  };
  return safetyFindings(side(s.before), side(s.after, s.elsewhere), context).filter((f) => f.component === label);
}

const text = (f: Finding) => [f.message, ...(f.details ?? [])].join('\n');

/** Wording true only of Cluster API core: its CRD migrator as a fact, its API versions, the contracts it accepts. */
const CORE_ONLY = [
  /CAPI controllers/,
  /\(Cluster API v1\.10\+\) re-writes them/,
  /Cluster API v1\.10\+, usually did it/,
  /Cluster API v1\.10\+, phase CleanupManagedFields/,
  /Manifests in git that use Cluster API's/,
  /A core implementing \S+ still accepts/,
];
/** Wording true only of a provider other than the core: its release may run Cluster API's CRD migrator. */
const PROVIDER_ONLY = [
  /the grant Cluster API's CRD migrator needs/,
  /if its release runs/,
  /The contract names the Cluster API rules/,
];
/** Wording true only of cert-manager. */
const CERT_MANAGER_ONLY = [/cmctl/, /cert-manager's controllers/];

const CASES = (Object.keys(FINDING_WHY) as FindingCode[]).flatMap((code) =>
  KINDS.filter((kind) => !NOT_FOR[code]?.includes(kind)).map((kind) => ({ code, kind })),
);

describe('finding codes × component kinds', () => {
  it('has a row for every finding code the code defines, and no other', () => {
    expect(Object.keys(ROWS).sort()).toEqual(Object.keys(FINDING_WHY).sort());
  });

  it.each(CASES)('$code for $kind: raised, and worded only as is true for it', ({ code, kind }) => {
    const found = raise(code, kind).filter((f) => f.code === code);
    expect(found.length, `${code} is raised for ${kind}`).toBeGreaterThan(0);
    const all = found.map(text).join('\n');
    const wrong = [
      ...(kind === 'CoreProvider' ? [] : CORE_ONLY),
      ...(kind === 'CoreProvider' || kind === 'cert-manager' ? PROVIDER_ONLY : []),
      ...(kind === 'cert-manager' ? [] : CERT_MANAGER_ONLY),
    ];
    expect(wrong.filter((pattern) => pattern.test(all))).toEqual([]);
  });
});

/**
 * The codes whose text depends on the component's kind, and the line each kind gets (the component
 * grants its controller what Cluster API's CRD migrator needs for the CRD). Other codes say the same
 * for every kind.
 */
const BY_KIND: { code: FindingCode; line: (kind: Kind, label: string) => string }[] = [
  {
    code: 'crd-storage-version-changed',
    line: (kind, label) => {
      const byHand = `(\`kubectl get ${CRD} -A -o json | kubectl replace -f -\`, then remove v1beta1 from status.storedVersions) before a later release drops v1beta1`;
      if (kind === 'CoreProvider')
        return `${label}'s controller (Cluster API v1.10+) re-writes them and trims status.storedVersions through its CRD migrator after the sync; otherwise do it by hand ${byHand}.`;
      if (kind === 'cert-manager')
        return `cert-manager's controllers do not re-write them, and only clusterctl's own cert-manager upgrade migrates them (Argo CD and Flux do not): do it by hand ${byHand}, or with \`cmctl upgrade migrate-api-version\`.`;
      return `A ClusterRole of ${label} lets its controller update this CRD's status, the grant Cluster API's CRD migrator needs (providers embed it from Cluster API v1.10 on): if ${label}'s release runs it (its release notes say), its controller re-writes them after the sync; otherwise do it by hand ${byHand}.`;
    },
  },
  {
    code: 'crd-version-removed',
    line: (kind, label) =>
      `If it prints exactly \`["v1beta1"]\`, nothing needs migrating${
        kind === 'CoreProvider'
          ? ` (${label}'s CRD migrator, Cluster API v1.10+, usually did it already)`
          : kind === 'cert-manager'
            ? ''
            : ` (${label}'s controller may have done it already: its ClusterRole has the grant Cluster API's CRD migrator needs for this CRD)`
      }.`,
  },
  {
    code: 'crd-version-unserved',
    line: (kind, label) =>
      `Stored objects stay readable through the served versions, but objects whose metadata.managedFields still name v1alpha4 break server-side apply (kubernetes/kubernetes#111937); ${
        kind === 'CoreProvider'
          ? `${label}'s CRD migrator (Cluster API v1.10+, phase CleanupManagedFields) removes those entries`
          : kind === 'cert-manager'
            ? 'cert-manager does not remove those entries: remove them from each object (a JSON patch on `/metadata/managedFields`) before a server-side apply (Flux always uses one) writes it'
            : `${label}'s controller removes those entries if its release runs Cluster API's CRD migrator (phase CleanupManagedFields)`
      }.`,
  },
  {
    // Only kinds whose objects report terminal failures to core's Machine controller hear of the
    // compatibility's limits (the others' absence of it: safety-findings.test.ts).
    code: 'contract-older-than-core',
    line: (kind, label) =>
      ['InfrastructureProvider', 'BootstrapProvider', 'ControlPlaneProvider'].includes(kind)
        ? `The compatibility has limits: a terminal failure ${label} reports the v1beta1 way (status.failureReason, status.failureMessage) no longer fails the Machine nor triggers MachineHealthCheck remediation under a v1beta2 core (Cluster API's v1beta2 contract pages).`
        : `${label} needs a release implementing v1beta2 before the core moves to a Cluster API release that no longer accepts v1beta1: \`capi-render plan\` lists each provider's releases per contract.`,
  },
  {
    code: 'contract-changed',
    line: (kind, label) =>
      kind === 'CoreProvider'
        ? "Manifests in git that use Cluster API's v1beta1 API versions (Clusters, MachineDeployments, ClusterClasses, templates) keep working only while v1beta1 is served; plan their move to v1beta2."
        : `The contract names the Cluster API rules ${label} follows, not the API versions of its own kinds: which of those are served or stored is in this report's CRD findings.`,
  },
];

describe('the line each kind gets where the truth depends on the kind', () => {
  const cases = BY_KIND.flatMap(({ code, line }) =>
    KINDS.filter((kind) => !NOT_FOR[code]?.includes(kind)).map((kind) => ({
      code,
      kind,
      expected: line(kind, labelOf(kind)),
    })),
  );
  it.each(cases)('$code for $kind', ({ code, kind, expected }) => {
    const [finding] = raise(code, kind).filter((f) => f.code === code);
    expect(finding!.details).toContain(expected);
  });

  it('says the same for every kind where the kind does not matter', () => {
    const dependent = new Set(BY_KIND.map((b) => b.code));
    for (const code of Object.keys(ROWS) as FindingCode[]) {
      if (dependent.has(code)) continue;
      const kinds = KINDS.filter((kind) => !NOT_FOR[code]?.includes(kind));
      // The component's own name is the one difference allowed.
      const texts = new Set(
        kinds.map((kind) =>
          raise(code, kind)
            .filter((f) => f.code === code)
            .map((f) => text(f).replaceAll(labelOf(kind), '<component>'))
            .join('\n---\n'),
        ),
      );
      expect([...texts], code).toHaveLength(1);
    }
  });
});

describe('contract order', () => {
  it.each([
    ['v1alpha3', 'v1alpha4', -1],
    ['v1alpha4', 'v1beta1', -1],
    ['v1beta1', 'v1beta2', -1],
    ['v1beta2', 'v1', -1],
    ['v1', 'v2alpha1', -1],
    ['v1beta2', 'v1beta2', 0],
    ['v1beta10', 'v1beta2', 1],
  ] as const)('%s against %s', (a, b, sign) => {
    expect(Math.sign(compareContracts(a, b))).toBe(sign);
    expect(Math.sign(compareContracts(b, a))).toBe(-sign || 0);
  });
});
