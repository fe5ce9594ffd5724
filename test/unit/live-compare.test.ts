/**
 * The server-side-apply view of rendered vs live: what the API server adds is never a difference,
 * real differences are found at the right field, removals follow field ownership, and install-time
 * variables and image overrides are recognised.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { compareWithLive } from '../../src/adopt/live/compare-object.js';
import { readFieldOwners } from '../../src/adopt/live/managed-fields.js';
import { sameQuantity } from '../../src/adopt/live/quantity.js';
import { removalsByManager } from '../../src/adopt/live/removals.js';
import { explainArgs, imageOverride, matchTemplate } from '../../src/adopt/live/variable-hints.js';
import type { KubeObject } from 'capi-render';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { admit, fixedClock } from '../live-dumps/api-server.js';
import { fieldSetOf } from '../live-dumps/field-set.js';

type Obj = Record<string, any>;

const deployment = (containers: Obj[], extra: Obj = {}): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'd', namespace: 'ns', labels: { 'clusterctl.cluster.x-k8s.io': '' } },
  spec: {
    selector: { matchLabels: { a: 'b' } },
    template: { metadata: { labels: { a: 'b' }, creationTimestamp: null }, spec: { containers, ...extra } },
  },
});
const manager = (extra: Obj = {}) => ({
  name: 'manager',
  image: 'registry.k8s.io/capi/manager:v1',
  args: ['--leader-elect'],
  ports: [{ containerPort: 9443, name: 'webhook' }],
  ...extra,
});
/** What the API server would hold after creating `obj` (the fixture generator's model of it). */
const created = (obj: KubeObject): KubeObject =>
  admit(structuredClone(obj), 'seed', fixedClock('2025-01-01T00:00:00Z')) as KubeObject;
const paths = (r: KubeObject, l: KubeObject) => compareWithLive(r, l).map((d) => `${d.change} ${d.path}`);

describe('what the API server adds is not a difference', () => {
  const webhook = (rules: Obj[]): KubeObject => ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name: 'w', annotations: { 'cert-manager.io/inject-ca-from': 'ns/c' } },
    webhooks: [
      {
        name: 'v.x',
        sideEffects: 'None',
        admissionReviewVersions: ['v1'],
        clientConfig: { service: { name: 's', namespace: 'ns', path: '/v' } },
        rules,
      },
    ],
  });
  it.each<[string, KubeObject]>([
    [
      'Deployment defaults (strategy, probes, pull policy, port protocol, termination, DNS)',
      deployment(
        [
          manager({
            livenessProbe: { httpGet: { port: 'healthz' } },
            env: [{ name: 'N', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } }],
          }),
        ],
        { volumes: [{ name: 'cert', secret: { secretName: 'x' } }] },
      ),
    ],
    [
      'Service defaults (type, protocol, targetPort, cluster IPs, families)',
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 's', namespace: 'ns' },
        spec: { ports: [{ port: 443, targetPort: 'webhook' }], selector: { a: 'b' } },
      },
    ],
    [
      'webhook defaults, also inside the atomic rules list (scope)',
      webhook([{ apiGroups: ['x'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['things'] }]),
    ],
    [
      'binding subjects (atomic) defaulted by kind',
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: 'b' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' },
        subjects: [
          { kind: 'User', name: 'u' },
          { kind: 'ServiceAccount', name: 'sa', namespace: 'ns' },
        ],
      },
    ],
    [
      "a v1 CRD's preserveUnknownFields: false, which the server drops",
      {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: 'things.x' },
        spec: {
          group: 'x',
          names: { kind: 'Thing', plural: 'things' },
          scope: 'Namespaced',
          preserveUnknownFields: false,
          versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }],
        },
      },
    ],
    [
      'a Namespace (label, finalizers, phase)',
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'ns', labels: { x: 'y' } } },
    ],
  ])('%s', (_name, rendered) => {
    expect(paths(rendered, created(rendered))).toEqual([]);
  });

  it('a real rendered Deployment against its created copy', () => {
    const rendered = jsYaml.load(
      readFileSync(`${REPO_ROOT}rendered/dev/cluster-api/deployment-capi-controller-manager.yaml`, 'utf8'),
    ) as KubeObject;
    expect(paths(rendered, created(rendered))).toEqual([]);
  });

  it.each<[string, Obj, Obj]>([
    [
      'quantities in canonical form',
      { resources: { limits: { memory: '1024Mi', cpu: '0.5' } } },
      { resources: { limits: { memory: '1Gi', cpu: '500m' } } },
    ],
    [
      'fields only other writers set (injected caBundle, extra labels)',
      {},
      { terminationMessagePolicy: 'File', extra: 'x' },
    ],
  ])('%s', (_name, renderedExtra, liveExtra) => {
    const live = created(deployment([manager(liveExtra)]));
    (live.metadata as Obj).labels = { ...(live.metadata as Obj).labels, 'argocd.argoproj.io/instance': 'x' };
    expect(paths(deployment([manager(renderedExtra)]), live)).toEqual([]);
  });
});

describe('real differences, at their field', () => {
  it.each<[string, KubeObject, (live: Obj) => void, string[]]>([
    [
      'an argument (atomic list)',
      deployment([manager()]),
      (l) => (l.spec.template.spec.containers[0].args = ['--leader-elect=false']),
      ['changed spec.template.spec.containers[name=manager].args'],
    ],
    [
      'the image',
      deployment([manager()]),
      (l) => (l.spec.template.spec.containers[0].image = 'mirror.example.com/capi/manager:v1'),
      ['changed spec.template.spec.containers[name=manager].image'],
    ],
    [
      'an env entry the cluster lacks (map list)',
      deployment([manager({ env: [{ name: 'GOMAXPROCS', value: '2' }] })]),
      (l) => delete l.spec.template.spec.containers[0].env,
      ['added spec.template.spec.containers[name=manager].env'],
    ],
    [
      'a port the cluster lacks (keyed by port and defaulted protocol)',
      deployment([manager({ ports: [{ containerPort: 9443 }, { containerPort: 8443 }] })]),
      (l) => l.spec.template.spec.containers[0].ports.pop(),
      ['added spec.template.spec.containers[name=manager].ports[containerPort=8443,protocol=TCP]'],
    ],
    [
      "an empty label value (clusterctl's own) the cluster lacks",
      deployment([manager()]),
      (l) => delete l.metadata.labels['clusterctl.cluster.x-k8s.io'],
      ['added metadata.labels["clusterctl.cluster.x-k8s.io"]'],
    ],
    [
      'a toleration the cluster has in addition (atomic: the apply replaces the list)',
      deployment([manager()], { tolerations: [{ key: 'a', effect: 'NoSchedule' }] }),
      (l) => l.spec.template.spec.tolerations.push({ key: 'b', effect: 'NoSchedule' }),
      ['changed spec.template.spec.tolerations'],
    ],
    [
      'replicas',
      { ...deployment([manager()]), spec: { ...(deployment([manager()]).spec as Obj), replicas: 1 } },
      (l) => (l.spec.replicas = 3),
      ['changed spec.replicas'],
    ],
  ])('%s', (_name, rendered, mutate, expected) => {
    const live = created(rendered) as Obj;
    mutate(live);
    expect(paths(rendered, live as KubeObject)).toEqual(expected);
  });

  it('an atomic list of objects says where inside it differs', () => {
    const rendered = deployment([manager()], { tolerations: [{ key: 'a', effect: 'NoSchedule' }] });
    const live = created(rendered) as Obj;
    live.spec.template.spec.tolerations[0].effect = 'NoExecute';
    expect(compareWithLive(rendered, live as KubeObject)[0]!.details).toEqual([
      '[0].effect: live "NoExecute", rendered "NoSchedule"',
    ]);
  });

  it('Secret values are compared by digest and never carried in the result', () => {
    const secret = (value: string): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 's', namespace: 'ns' },
      data: { token: Buffer.from(value).toString('base64') },
    });
    const live = { ...secret('x'), data: { token: `sha256:${'0'.repeat(64)}` } } as KubeObject;
    const [difference] = compareWithLive(secret('rendered-secret'), live);
    expect(difference).toEqual({ path: 'data.token', change: 'changed', fields: ['f:data', 'f:token'], secret: true });
    const same = {
      ...live,
      data: { token: `sha256:${createHash('sha256').update('rendered-secret').digest('hex')}` },
    } as KubeObject;
    expect(compareWithLive(secret('rendered-secret'), same)).toEqual([]);
  });
});

describe('removals follow field ownership: only what the applier applied before and no one else owns', () => {
  const withManagers = (live: Obj, entries: [string, string, Obj][]) => {
    live.metadata.managedFields = entries.map(([m, operation, obj]) => ({
      manager: m,
      operation,
      apiVersion: 'apps/v1',
      fieldsType: 'FieldsV1',
      fieldsV1: fieldSetOf(obj, 'apps'),
    }));
    return live as KubeObject;
  };
  const rendered = deployment([manager()]);
  const earlier = deployment([manager(), { name: 'sidecar', image: 'registry.k8s.io/sidecar:v1' }]);
  (earlier.metadata as Obj).labels.old = 'yes';
  const live = () => created(earlier) as Obj;

  it('fields only the applier applied before, and the rendered object dropped, are removed', () => {
    const removed = removalsByManager(
      rendered,
      withManagers(live(), [['argocd-controller', 'Apply', earlier]]),
      readFieldOwners(withManagers(live(), [['argocd-controller', 'Apply', earlier]]))!,
      ['argocd-controller'],
    );
    expect(removed.map((d) => `${d.change} ${d.path}`)).toEqual([
      'removed metadata.labels.old',
      'removed spec.template.spec.containers[name=sidecar]',
    ]);
  });

  it('nothing is removed on a first adoption (the applier never applied), or where another manager also owns the field', () => {
    const adopted = withManagers(live(), [['clusterctl', 'Update', earlier]]);
    expect(removalsByManager(rendered, adopted, readFieldOwners(adopted)!, ['argocd-controller'])).toEqual([]);
    const shared = withManagers(live(), [
      ['argocd-controller', 'Apply', earlier],
      ['clusterctl', 'Update', earlier],
    ]);
    expect(removalsByManager(rendered, shared, readFieldOwners(shared)!, ['argocd-controller'])).toEqual([]);
  });
});

describe('install-time variables and image overrides', () => {
  it.each<[string, string, Record<string, string> | undefined]>([
    [
      '--feature-gates=MachinePool=${EXP_MACHINE_POOL:=true},ClusterTopology=${CLUSTER_TOPOLOGY:=false}',
      '--feature-gates=MachinePool=false,ClusterTopology=true',
      { EXP_MACHINE_POOL: 'false', CLUSTER_TOPOLOGY: 'true' },
    ],
    [
      '--diagnostics-address=${CAPI_DIAGNOSTICS_ADDRESS:=:8443}',
      '--diagnostics-address=:9443',
      { CAPI_DIAGNOSTICS_ADDRESS: ':9443' },
    ],
    ['--leader-elect', '--leader-elect', undefined],
    ['--v=${VERBOSITY}', '--other=1', undefined],
  ])('%s matched against %s', (template, value, expected) => {
    expect(matchTemplate(template, value)).toEqual(expected);
  });

  it('argument differences name the gate and the variable', () => {
    const template = [
      '--leader-elect',
      '--feature-gates=MachinePool=${EXP_MACHINE_POOL:=true},ClusterTopology=${CLUSTER_TOPOLOGY:=false}',
    ];
    const explained = explainArgs(
      template,
      ['--leader-elect', '--feature-gates=MachinePool=true,ClusterTopology=false', '--v=2'],
      ['--leader-elect', '--feature-gates=MachinePool=false,ClusterTopology=false'],
    );
    expect(explained).toEqual({
      details: ['feature gate MachinePool: live false, rendered true', 'only rendered: --v=2'],
      variables: { EXP_MACHINE_POOL: 'false' },
    });
  });

  it.each<[string, string, ReturnType<typeof imageOverride>]>([
    [
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.1',
      { tag: 'v1.12.1' },
    ],
    [
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      'mirror.example.com/capi/cluster-api-controller:v1.12.0',
      { repository: 'mirror.example.com/capi' },
    ],
    [
      'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      'registry.k8s.io/cluster-api/other:v1.12.0',
      undefined,
    ],
  ])('image %s → %s', (rendered, live, expected) => {
    expect(imageOverride(rendered, live)).toEqual(expected);
  });

  it.each<[unknown, unknown, boolean]>([
    ['1Gi', '1024Mi', true],
    ['0.5', '500m', true],
    ['100m', '0.1', true],
    ['1', '1000m', true],
    ['1Gi', '1G', false],
    ['100m', '200m', false],
  ])('quantity %s = %s: %s', (a, b, same) => {
    expect(sameQuantity(a, b)).toBe(same);
  });
});
