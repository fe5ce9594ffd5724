import { describe, expect, it } from 'vitest';
import {
  diffRendered,
  type FieldChange,
  type KubeObject,
  type ObjectChange,
  type RenderedSide,
  SCHEMA_PATH_CAP,
  SpecError,
} from 'capi-render';
import { diffFields } from '../../src/diff/diff-fields.js';
import { crdSchemaOverride } from '../../src/diff/diff-crd-schema.js';
import { deepFreeze } from '../helpers/fixtures.js';
import { loadKubeadmRelease } from '../helpers/capi-releases.js';
import { fixtureObjects } from '../helpers/fixtures.js';
import { describeTimes, timeSideBySideUntil, type Timed } from '../helpers/timing.js';

const v1_8_0 = deepFreeze(loadKubeadmRelease('v1.8.0'));
const v1_10_4 = deepFreeze(loadKubeadmRelease('v1.10.4'));
const v1_11_0 = deepFreeze(loadKubeadmRelease('v1.11.0'));
const v1_12_0 = deepFreeze(loadKubeadmRelease('v1.12.0'));

function side(components: Record<string, readonly KubeObject[]>, env = 'prod'): RenderedSide {
  return { environments: { [env]: components } };
}

function obj(
  kind: string,
  name: string,
  extra: Record<string, unknown> = {},
  apiVersion = 'v1',
  namespace?: string,
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: { name, ...(namespace === undefined ? {} : { namespace }) },
    ...extra,
  };
}

function changeOf(changes: readonly ObjectChange[], id: string): ObjectChange {
  const found = changes.find((c) => c.id === id);
  if (found === undefined) throw new Error(`no change for ${id}`);
  return found;
}

const CAPI_CRD = (name: string): string => `CustomResourceDefinition.apiextensions.k8s.io/${name}.cluster.x-k8s.io`;

describe('diffRules: Role and ClusterRole rules by what they grant', () => {
  const rule = (resources: string[], verbs: string[], extra: Record<string, unknown> = {}) => ({
    apiGroups: ['cluster.x-k8s.io'],
    resources,
    verbs,
    ...extra,
  });
  const cases: { name: string; before: unknown[]; after: unknown[]; expected: FieldChange[] }[] = [
    {
      name: 'a resource moves to another rule with one more verb: one change, not two rules',
      before: [rule(['clusters', 'machines'], ['get', 'list'])],
      after: [rule(['clusters'], ['get', 'list']), rule(['machines'], ['get', 'list', 'patch'])],
      expected: [
        {
          path: 'rules[machines.cluster.x-k8s.io]',
          kind: 'changed',
          before: ['get', 'list'],
          after: ['get', 'list', 'patch'],
          summary: 'verbs +patch',
        },
      ],
    },
    {
      name: 'rules added and removed, by target',
      before: [rule(['machinesets'], ['delete']), { nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      after: [
        rule(['machinepools'], ['get']),
        { apiGroups: [''], resources: ['secrets'], verbs: ['get'], resourceNames: ['kubeconfig'] },
      ],
      expected: [
        { path: 'rules[/metrics]', kind: 'removed', before: ['get'], summary: 'rule removed' },
        { path: 'rules[machinepools.cluster.x-k8s.io]', kind: 'added', after: ['get'], summary: 'rule added' },
        { path: 'rules[machinesets.cluster.x-k8s.io]', kind: 'removed', before: ['delete'], summary: 'rule removed' },
        { path: 'rules[secrets (name=kubeconfig)]', kind: 'added', after: ['get'], summary: 'rule added' },
      ],
    },
    {
      name: 'reordered or regrouped rules granting the same',
      before: [rule(['clusters'], ['get']), rule(['machines'], ['get'])],
      after: [rule(['machines', 'clusters'], ['get'])],
      expected: [
        {
          path: 'rules',
          kind: 'changed',
          before: '[2 items]',
          after: '[1 item]',
          summary: 'rules regrouped or reordered, granting the same permissions',
        },
      ],
    },
  ];
  it.each(cases)('$name', ({ before, after, expected }) => {
    const role = (rules: unknown[]) => obj('ClusterRole', 'r', { rules }, 'rbac.authorization.k8s.io/v1');
    expect(diffRendered(side({ c: [role(before)] }), side({ c: [role(after)] }))[0]!.fields).toEqual(expected);
  });
});

describe('diffFields: the recursive field diff', () => {
  const container = (name: string, image: string): Record<string, unknown> => ({
    name,
    image,
    args: ['--leader-elect'],
  });
  const cases: { name: string; before: unknown; after: unknown; expected: FieldChange[] }[] = [
    {
      name: 'maps equal up to key order have no change',
      before: { a: 1, b: { c: 2, d: 3 } },
      after: { b: { d: 3, c: 2 }, a: 1 },
      expected: [],
    },
    {
      name: 'a scalar changes',
      before: { spec: { replicas: 1 } },
      after: { spec: { replicas: 2 } },
      expected: [{ path: 'spec.replicas', kind: 'changed', before: 1, after: 2 }],
    },
    {
      name: 'keys added and removed, in key order',
      before: { b: 1, a: 'x' },
      after: { c: true, b: 1 },
      expected: [
        { path: 'a', kind: 'removed', before: 'x' },
        { path: 'c', kind: 'added', after: true },
      ],
    },
    {
      name: 'keys that are not identifiers are quoted',
      before: { metadata: { labels: { 'cluster.x-k8s.io/provider': 'cluster-api' } } },
      after: { metadata: { labels: { 'cluster.x-k8s.io/provider': 'infrastructure-docker' } } },
      expected: [
        {
          path: 'metadata.labels["cluster.x-k8s.io/provider"]',
          kind: 'changed',
          before: 'cluster-api',
          after: 'infrastructure-docker',
        },
      ],
    },
    {
      name: 'containers are matched by name, not by index',
      before: { containers: [container('manager', 'capi:v1'), container('kube-rbac-proxy', 'proxy:v1')] },
      after: { containers: [container('kube-rbac-proxy', 'proxy:v1'), container('manager', 'capi:v2')] },
      expected: [{ path: 'containers[name=manager].image', kind: 'changed', before: 'capi:v1', after: 'capi:v2' }],
    },
    {
      name: 'env entries by name: removed, changed and added',
      before: {
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
      },
      after: {
        env: [
          { name: 'B', value: '3' },
          { name: 'C', value: '4' },
        ],
      },
      expected: [
        { path: 'env[name=A]', kind: 'removed', before: { name: 'A', value: '1' } },
        { path: 'env[name=B].value', kind: 'changed', before: '2', after: '3' },
        { path: 'env[name=C]', kind: 'added', after: { name: 'C', value: '4' } },
      ],
    },
    {
      name: 'a named list that is only reordered reports the order',
      before: {
        ports: [
          { name: 'webhook', containerPort: 9443 },
          { name: 'healthz', containerPort: 9440 },
        ],
      },
      after: {
        ports: [
          { name: 'healthz', containerPort: 9440 },
          { name: 'webhook', containerPort: 9443 },
        ],
      },
      expected: [
        {
          path: 'ports',
          kind: 'changed',
          before: ['webhook', 'healthz'],
          after: ['healthz', 'webhook'],
          summary: 'order changed',
        },
      ],
    },
    {
      name: 'a short list without names is compared whole',
      before: { args: ['--leader-elect', '--v=2'] },
      after: { args: ['--leader-elect', '--v=4'] },
      expected: [
        { path: 'args', kind: 'changed', before: ['--leader-elect', '--v=2'], after: ['--leader-elect', '--v=4'] },
      ],
    },
    {
      name: 'a long list is reported as item counts',
      before: { verbs: Array.from({ length: 12 }, (_, i) => `v${i}`) },
      after: { verbs: Array.from({ length: 13 }, (_, i) => `v${i}`) },
      expected: [{ path: 'verbs', kind: 'changed', before: '[12 items]', after: '[13 items]' }],
    },
    {
      name: 'a list whose names repeat is not matched by name',
      before: {
        list: [
          { name: 'a', v: 1 },
          { name: 'a', v: 2 },
        ],
      },
      after: {
        list: [
          { name: 'a', v: 1 },
          { name: 'a', v: 3 },
        ],
      },
      expected: [
        {
          path: 'list',
          kind: 'changed',
          before: [
            { name: 'a', v: 1 },
            { name: 'a', v: 2 },
          ],
          after: [
            { name: 'a', v: 1 },
            { name: 'a', v: 3 },
          ],
        },
      ],
    },
    {
      name: 'a map replaced by a string',
      before: { a: { x: 1 } },
      after: { a: 'x' },
      expected: [{ path: 'a', kind: 'changed', before: { x: 1 }, after: 'x' }],
    },
    {
      name: 'long strings are cut, with their length',
      before: { description: 'x'.repeat(400) },
      after: { description: 'y' },
      expected: [{ path: 'description', kind: 'changed', before: `${'x'.repeat(300)}… (400 chars)`, after: 'y' }],
    },
    {
      name: 'big maps are replaced by their key count',
      before: {},
      after: { data: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`key${i}`, 'value'])) },
      expected: [{ path: 'data', kind: 'added', after: '{30 keys}' }],
    },
  ];
  it.each(cases)('$name', ({ before, after, expected }) => {
    expect(diffFields(deepFreeze(before), deepFreeze(after))).toEqual(expected);
  });
});

describe('diffRendered: CRD schemas are summarised per version', () => {
  const schema = (properties: Record<string, unknown>): Record<string, unknown> => ({
    openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties } } },
  });
  const crd = (properties: Record<string, unknown>): KubeObject =>
    obj(
      'CustomResourceDefinition',
      'widgets.example.com',
      {
        spec: {
          group: 'example.com',
          versions: [{ name: 'v1', served: true, storage: true, schema: schema(properties) }],
        },
      },
      'apiextensions.k8s.io/v1',
    );
  const diffOne = (before: Record<string, unknown>, after: Record<string, unknown>): FieldChange[] =>
    diffRendered(side({ c: [crd(before)] }), side({ c: [crd(after)] }))[0]!.fields!;

  it('counts added, removed and changed properties and lists the paths', () => {
    const fields = diffOne(
      {
        a: { type: 'string' },
        c: { type: 'string' },
        keep: { type: 'object', properties: { x: { type: 'integer' } } },
      },
      {
        b: { type: 'array', items: { type: 'object', properties: { y: { type: 'string' } } } },
        c: { type: 'integer' },
        keep: { type: 'object', properties: { x: { type: 'integer' } } },
      },
    );
    expect(fields).toEqual([
      {
        path: 'spec.versions[name=v1].schema',
        kind: 'changed',
        summary: 'schema changed (3 fields added, 1 removed, 1 changed)',
        properties: { added: ['spec.b', 'spec.b[]', 'spec.b[].y'], removed: ['spec.a'], moreAdded: 0, moreRemoved: 0 },
      },
    ]);
  });

  it('says so when only descriptions changed', () => {
    const fields = diffOne(
      { a: { type: 'string', description: 'old' } },
      { a: { type: 'string', description: 'new' } },
    );
    expect(fields).toEqual([
      {
        path: 'spec.versions[name=v1].schema',
        kind: 'changed',
        summary: 'schema changed (descriptions only)',
        properties: { added: [], removed: [], moreAdded: 0, moreRemoved: 0 },
      },
    ]);
  });

  it(`caps each path list at ${SCHEMA_PATH_CAP}`, () => {
    const many = Object.fromEntries(
      Array.from({ length: SCHEMA_PATH_CAP + 5 }, (_, i) => [`f${String(i).padStart(2, '0')}`, { type: 'string' }]),
    );
    const [field] = diffOne({}, many);
    expect(field!.properties!.added).toHaveLength(SCHEMA_PATH_CAP);
    expect(field!.properties!.moreAdded).toBe(5);
    expect(field!.summary).toBe(`schema changed (${SCHEMA_PATH_CAP + 5} fields added, 0 removed, 0 changed)`);
  });

  it('only applies to CustomResourceDefinition version schemas', () => {
    expect(crdSchemaOverride('spec.schema', { a: 1 }, { a: 2 })).toBeUndefined();
    const plain = obj('ConfigMap', 'x', { spec: { versions: [{ name: 'v1', schema: { a: 1 } }] } });
    const changed = obj('ConfigMap', 'x', { spec: { versions: [{ name: 'v1', schema: { a: 2 } }] } });
    expect(diffRendered(side({ c: [plain] }), side({ c: [changed] }))[0]!.fields).toEqual([
      { path: 'spec.versions[name=v1].schema.a', kind: 'changed', before: 1, after: 2 },
    ]);
  });
});

describe('diffRendered: objects', () => {
  const ns = obj('Namespace', 'capi-system');
  const deploy = (image: string): KubeObject =>
    obj(
      'Deployment',
      'manager',
      { spec: { template: { spec: { containers: [{ name: 'manager', image }] } } } },
      'apps/v1',
      'capi-system',
    );
  const webhook = (apiVersion: string): KubeObject =>
    obj('ValidatingWebhookConfiguration', 'hooks', { webhooks: [] }, apiVersion);

  it('reports added, removed and changed objects per env and component, in apply order', () => {
    const before: RenderedSide = {
      environments: {
        staging: { core: [deploy('a:1')] },
        prod: { core: [deploy('a:1')], old: [obj('ConfigMap', 'gone', {}, 'v1', 'x')] },
      },
    };
    const after: RenderedSide = {
      environments: { staging: { core: [deploy('a:2'), ns] }, prod: { core: [deploy('a:1')] } },
    };
    expect(diffRendered(before, after).map(({ env, component, id, change }) => [env, component, id, change])).toEqual([
      ['prod', 'old', 'ConfigMap/x/gone', 'removed'],
      ['staging', 'core', 'Namespace/capi-system', 'added'],
      ['staging', 'core', 'Deployment.apps/capi-system/manager', 'changed'],
    ]);
  });

  it('keeps identity across an API version change', () => {
    const changes = diffRendered(
      side({ c: [webhook('admissionregistration.k8s.io/v1beta1')] }),
      side({ c: [webhook('admissionregistration.k8s.io/v1')] }),
    );
    expect(changes).toEqual([
      {
        env: 'prod',
        component: 'c',
        id: 'ValidatingWebhookConfiguration.admissionregistration.k8s.io/hooks',
        change: 'changed',
        fields: [
          {
            path: 'apiVersion',
            kind: 'changed',
            before: 'admissionregistration.k8s.io/v1beta1',
            after: 'admissionregistration.k8s.io/v1',
          },
        ],
      },
    ]);
  });

  it('ignores objects equal up to key order', () => {
    const a = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'x', namespace: 'n' },
      data: { a: '1', b: '2' },
    } as KubeObject;
    const b = {
      data: { b: '2', a: '1' },
      metadata: { namespace: 'n', name: 'x' },
      kind: 'ConfigMap',
      apiVersion: 'v1',
    } as KubeObject;
    expect(diffRendered(side({ c: [a] }), side({ c: [b] }))).toEqual([]);
  });

  it('rejects a component that holds an object twice', () => {
    let caught: unknown;
    try {
      diffRendered(side({ c: [deploy('a:1'), deploy('a:2')] }), side({}));
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SpecError);
    expect((caught as SpecError).code).toBe('diff-duplicate-object');
    expect((caught as SpecError).diagnostics[0]!.object).toBe('Deployment/capi-system/manager');
  });

  it('is independent of the order of objects, components and environments', () => {
    const build = (reverse: boolean): [RenderedSide, RenderedSide] => {
      const order = <T>(list: T[]): T[] => (reverse ? [...list].reverse() : list);
      const envs = (release: typeof v1_11_0): RenderedSide => ({
        environments: Object.fromEntries(
          order(['dev', 'prod']).map((env) => [
            env,
            Object.fromEntries(
              order(Object.entries(release)).map(([c, objects]) => [c, order(shuffle(objects, reverse ? 7 : 3))]),
            ),
          ]),
        ),
      });
      return [envs(v1_11_0), envs(v1_12_0)];
    };
    const [a, b] = build(false);
    const [c, d] = build(true);
    const first = diffRendered(a, b);
    expect(first.length).toBeGreaterThan(0);
    expect(diffRendered(c, d)).toEqual(first);
  });
});

describe('diffRendered on the real kubeadm releases', () => {
  it('core v1.10.4 → v1.11.0: every CRD changes, one disappears (fixture trimming), the manager image and the webhooks change', () => {
    const changes = diffRendered(side(v1_10_4), side(v1_11_0)).filter((c) => c.component === 'cluster-api');
    // test/fixtures/PROVENANCE.md ("Surprises worth a test"): the v1.11.0 fixture was trimmed to fit a ConfigMap; ipaddresses.ipam.cluster.x-k8s.io
    // is missing from it (the real v1.11.0 release still ships it), hence `removed`.
    expect(changes.map((c) => [c.change, c.id])).toEqual([
      ['changed', CAPI_CRD('clusterclasses')],
      ['changed', 'CustomResourceDefinition.apiextensions.k8s.io/clusterresourcesetbindings.addons.cluster.x-k8s.io'],
      ['changed', 'CustomResourceDefinition.apiextensions.k8s.io/clusterresourcesets.addons.cluster.x-k8s.io'],
      ['changed', CAPI_CRD('clusters')],
      ['changed', 'CustomResourceDefinition.apiextensions.k8s.io/extensionconfigs.runtime.cluster.x-k8s.io'],
      ['changed', 'CustomResourceDefinition.apiextensions.k8s.io/ipaddressclaims.ipam.cluster.x-k8s.io'],
      ['removed', 'CustomResourceDefinition.apiextensions.k8s.io/ipaddresses.ipam.cluster.x-k8s.io'],
      ['changed', CAPI_CRD('machinedeployments')],
      ['changed', CAPI_CRD('machinedrainrules')],
      ['changed', CAPI_CRD('machinehealthchecks')],
      ['changed', CAPI_CRD('machinepools')],
      ['changed', CAPI_CRD('machines')],
      ['changed', CAPI_CRD('machinesets')],
      ['changed', 'Deployment.apps/capi-system/capi-controller-manager'],
      ['changed', 'MutatingWebhookConfiguration.admissionregistration.k8s.io/capi-mutating-webhook-configuration'],
      ['changed', 'ValidatingWebhookConfiguration.admissionregistration.k8s.io/capi-validating-webhook-configuration'],
    ]);
  });

  it('core v1.10.4 → v1.11.0: the Cluster CRD, version by version, without a field-by-field schema dump', () => {
    const fields = changeOf(diffRendered(side(v1_10_4), side(v1_11_0)), CAPI_CRD('clusters')).fields!;
    // v1alpha3/v1alpha4 are `removed` only because the v1.11.0 fixture was trimmed (see test/fixtures/PROVENANCE.md);
    // the real release keeps them as served: false.
    expect(fields.map((f) => [f.kind, f.path, f.summary])).toEqual([
      ['changed', 'metadata.annotations["controller-gen.kubebuilder.io/version"]', undefined],
      ['removed', 'spec.versions[name=v1alpha3]', undefined],
      ['removed', 'spec.versions[name=v1alpha4]', undefined],
      ['added', 'spec.versions[name=v1beta1].deprecated', undefined],
      ['changed', 'spec.versions[name=v1beta1].schema', 'schema changed (descriptions only)'],
      ['changed', 'spec.versions[name=v1beta1].storage', undefined],
      ['added', 'spec.versions[name=v1beta2]', undefined],
    ]);
    expect(fields[0]).toMatchObject({ before: 'v0.17.2', after: 'v0.18.0' });
    expect(fields[5]).toMatchObject({ before: true, after: false });
  });

  it('core v1.10.4 → v1.11.0: the Machine v1beta1 schema gains status.nodeInfo.swap', () => {
    const fields = changeOf(diffRendered(side(v1_10_4), side(v1_11_0)), CAPI_CRD('machines')).fields!;
    expect(fields.find((f) => f.path === 'spec.versions[name=v1beta1].schema')).toEqual({
      path: 'spec.versions[name=v1beta1].schema',
      kind: 'changed',
      summary: 'schema changed (2 fields added, 0 removed, 0 changed)',
      properties: {
        added: ['status.nodeInfo.swap', 'status.nodeInfo.swap.capacity'],
        removed: [],
        moreAdded: 0,
        moreRemoved: 0,
      },
    });
  });

  it('core v1.11.0 → v1.12.0: the manager gets the v1.12.0 image and a new feature-gate argument', () => {
    const deployment = changeOf(
      diffRendered(side(v1_11_0), side(v1_12_0)),
      'Deployment.apps/capi-system/capi-controller-manager',
    );
    // Container args flag by flag: only the flag that changed (diff-container-args.ts).
    expect(deployment.fields).toEqual([
      {
        path: 'spec.template.spec.containers[name=manager].args[--feature-gates]',
        kind: 'changed',
        before:
          '--feature-gates=MachinePool=true,ClusterResourceSet=true,ClusterTopology=false,RuntimeSDK=false,MachineSetPreflightChecks=true,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,PriorityQueue=false',
        after:
          '--feature-gates=MachinePool=true,ClusterTopology=false,RuntimeSDK=false,MachineSetPreflightChecks=true,MachineWaitForVolumeDetachConsiderVolumeAttachments=true,PriorityQueue=false,ReconcilerRateLimiting=false,InPlaceUpdates=false,MachineTaintPropagation=false',
      },
      {
        path: 'spec.template.spec.containers[name=manager].image',
        kind: 'changed',
        before: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.11.0',
        after: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      },
    ]);
  });

  it('core v1.11.0 → v1.12.0: the CRD trimmed from the v1.11.0 fixture comes back as added', () => {
    const changes = diffRendered(side(v1_11_0), side(v1_12_0));
    // Artifact of the trimmed fixture (see test/fixtures/PROVENANCE.md), not of the release.
    expect(
      changeOf(changes, 'CustomResourceDefinition.apiextensions.k8s.io/ipaddresses.ipam.cluster.x-k8s.io').change,
    ).toBe('added');
  });

  it('core v1.8.0 → v1.10.4: MachineDrainRules arrive and the manager ClusterRole changes', () => {
    const changes = diffRendered(side(v1_8_0), side(v1_10_4)).filter((c) => c.component === 'cluster-api');
    // The v1.8.0 fixture has no Namespace (removed from the operator's ConfigMap, see test/fixtures/PROVENANCE.md),
    // so it shows as added here.
    expect(changes.filter((c) => c.change !== 'changed').map((c) => [c.change, c.id])).toEqual([
      ['added', 'Namespace/capi-system'],
      ['added', CAPI_CRD('machinedrainrules')],
    ]);
    // Per rule target, not `[N items] → [M items]`: the CRD migrator's patch, finalizers, drain rules.
    const rules = changeOf(changes, 'ClusterRole.rbac.authorization.k8s.io/capi-manager-role').fields!;
    expect(rules.length).toBeGreaterThan(0);
    expect(rules.every((f) => f.path.startsWith('rules[') && f.summary !== undefined)).toBe(true);
    expect(rules.find((f) => f.path === 'rules[machinedrainrules.cluster.x-k8s.io]')).toMatchObject({
      kind: 'added',
      summary: 'rule added',
    });
  });

  it('kubeadm control plane v1.11.0 → v1.12.0: the manager ClusterRole shows the rules added and the verb gained', () => {
    const changes = diffRendered(side(v1_11_0), side(v1_12_0));
    expect(
      changeOf(changes, 'ClusterRole.rbac.authorization.k8s.io/capi-kubeadm-control-plane-manager-role').fields,
    ).toEqual([
      {
        path: 'rules[extensionconfigs.runtime.cluster.x-k8s.io]',
        kind: 'added',
        after: ['get', 'list', 'watch'],
        summary: 'rule added',
      },
      { path: 'rules[namespaces]', kind: 'added', after: ['get', 'list', 'watch'], summary: 'rule added' },
      {
        path: 'rules[secrets]',
        kind: 'changed',
        before: ['create', 'get', 'list', 'patch', 'update', 'watch'],
        after: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
        summary: 'verbs +delete',
      },
    ]);
  });

  it('finds nothing between a release and itself, and never mutates the (frozen) inputs', () => {
    expect(diffRendered(side(v1_12_0), side(v1_12_0))).toEqual([]);
    expect(diffRendered(side(v1_12_0), side(structuredClone(v1_12_0)))).toEqual([]);
  });
});

describe('diffRendered: performance', () => {
  it('diffs four full environments (~300 objects each, 1.4 MB CRDs, no shared references) in time linear in their size (a small multiple of serialising them)', async () => {
    const docker = {
      old: fixtureObjects('repository/infrastructure-docker/v1.11.0/infrastructure-components-development.yaml.gz'),
      now: fixtureObjects('repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml.gz'),
    };
    const certManager = fixtureObjects('repository/cert-manager/v1.19.4/cert-manager.yaml.gz');
    const filler = Array.from({ length: 170 }, (_, i) =>
      obj('ConfigMap', `settings-${i}`, { data: { value: String(i) } }, 'v1', 'capi-system'),
    );
    const env = (release: typeof v1_11_0, infra: KubeObject[]): Record<string, KubeObject[]> =>
      structuredClone({ ...release, 'infrastructure-docker': infra, 'cert-manager': certManager, settings: filler });
    const envs = ['dev', 'staging', 'prod', 'dr'];
    const before: RenderedSide = { environments: Object.fromEntries(envs.map((e) => [e, env(v1_11_0, docker.old)])) };
    const after: RenderedSide = { environments: Object.fromEntries(envs.map((e) => [e, env(v1_12_0, docker.now)])) };
    const count = Object.values(after.environments.prod!).reduce((n, list) => n + list.length, 0);
    expect(count).toBeGreaterThan(280);
    // Against a linear walk of the same objects (serialising both sides), timed in alternating rounds:
    // one wall-clock sample on a loaded runner measures the other workers as much as the diff. Today
    // it costs about one such walk; the bound leaves ~5× headroom, as 1 s did.
    let changes: ReturnType<typeof diffRendered> = [];
    const ratio = (t: Record<'diff' | 'serialise both sides', Timed>) =>
      t.diff.median / t['serialise both sides'].median;
    const times = await timeSideBySideUntil(
      {
        diff: () => (changes = diffRendered(before, after)),
        'serialise both sides': () => JSON.stringify([before, after]),
      },
      (t) => ratio(t) < 5,
    );
    expect(changes.length).toBeGreaterThan(0);
    expect(ratio(times), describeTimes(times)).toBeLessThan(5);
  });
});

/** A deterministic permutation (a fixed-seed linear congruential shuffle), so failures reproduce. */
function shuffle<T>(list: readonly T[], seed: number): T[] {
  const copy = [...list];
  let state = seed;
  for (let i = copy.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
