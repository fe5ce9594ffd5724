import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { JsonValue, KubeObject, Patch } from 'capi-render';
import { getIn } from '../../src/manifest/object.js';
import { applyProviderPatches } from '../../src/customize/patches/index.js';
import { deepFreeze, findObject, loadCoreComponents, refOf } from '../helpers/core-components.js';

const ctx = { providerRef: 'CoreProvider/capi-system/cluster-api' };
const DEPLOYMENT = 'Deployment/capi-system/capi-controller-manager';
const SERVICE = 'Service/capi-system/capi-webhook-service';
const CRB = 'ClusterRoleBinding/capi-manager-rolebinding';
const MANAGER_TARGET = {
  group: 'apps',
  version: 'v1',
  kind: 'Deployment',
  name: 'capi-controller-manager',
  namespace: 'capi-system',
};

/** Runs the patches on fresh frozen fixture objects and checks nothing was mutated. */
function run(patches: Patch[]): { before: KubeObject[]; after: KubeObject[] } {
  const before = loadCoreComponents();
  const snapshot = JSON.stringify(before);
  const after = applyProviderPatches(before, deepFreeze(patches), ctx);
  expect(JSON.stringify(before)).toBe(snapshot);
  return { before, after };
}

function errorOf(patches: Patch[]): SpecError {
  try {
    run(patches);
  } catch (e) {
    expect(e).toBeInstanceOf(SpecError);
    return e as SpecError;
  }
  throw new Error('expected a SpecError');
}

const at = (objects: KubeObject[], ref: string, path: (string | number)[]): JsonValue | undefined =>
  getIn(findObject(objects, ref), path);
const hasLabel = (key: string, value: string) => (o: KubeObject) =>
  (getIn(o, ['metadata', 'labels', key]) as unknown) === value;

interface Case {
  name: string;
  patches: Patch[];
  /** Which objects must come back as new objects; every other object must be the very same one. */
  changed: (o: KubeObject) => boolean;
  expected: { ref: string; path: (string | number)[]; value: JsonValue | undefined }[];
}

const cases: Case[] = [
  {
    name: 'merge patch: a list in the patch replaces the whole containers list (RFC 7396, no merge keys)',
    patches: [
      {
        target: { kind: 'Deployment', name: 'capi-controller-manager' },
        patch:
          'spec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        securityContext:\n          readOnlyRootFilesystem: true\n',
      },
    ],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [
      // image, args, probes… of the manager container are gone: only what the patch listed is left.
      {
        ref: DEPLOYMENT,
        path: ['spec', 'template', 'spec', 'containers'],
        value: [{ name: 'manager', securityContext: { readOnlyRootFilesystem: true } }],
      },
      { ref: DEPLOYMENT, path: ['spec', 'template', 'spec', 'serviceAccountName'], value: 'capi-manager' },
    ],
  },
  {
    name: 'merge patch: maps merge key by key',
    patches: [
      {
        target: { kind: 'Deployment' },
        patch: 'spec:\n  template:\n    spec:\n      securityContext:\n        fsGroup: 65532\n',
      },
    ],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [
      {
        ref: DEPLOYMENT,
        path: ['spec', 'template', 'spec', 'securityContext'],
        value: { runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' }, fsGroup: 65532 },
      },
    ],
  },
  {
    name: 'merge patch: null (and an empty YAML value) deletes a key',
    patches: [
      {
        target: { kind: 'Deployment' },
        patch: 'spec:\n  template:\n    spec:\n      tolerations: null\n      terminationGracePeriodSeconds:\n',
      },
    ],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [
      { ref: DEPLOYMENT, path: ['spec', 'template', 'spec', 'tolerations'], value: undefined },
      { ref: DEPLOYMENT, path: ['spec', 'template', 'spec', 'terminationGracePeriodSeconds'], value: undefined },
      { ref: DEPLOYMENT, path: ['spec', 'template', 'spec', 'serviceAccountName'], value: 'capi-manager' },
    ],
  },
  {
    name: 'merge patch: nulls inside a new value are dropped, as evanphx does',
    patches: [{ target: { kind: 'Service' }, patch: 'metadata:\n  annotations:\n    a: "1"\n    b: null\n' }],
    changed: (o) => refOf(o) === SERVICE,
    expected: [{ ref: SERVICE, path: ['metadata', 'annotations'], value: { a: '1' } }],
  },
  {
    name: 'RFC 6902: add an arg with /- (the operator docs example), target by group+version+kind+name+namespace',
    patches: [
      {
        target: MANAGER_TARGET,
        patch:
          '- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --additional-sync-machine-labels=topology.kubernetes.io/.*\n',
      },
    ],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [
      { ref: DEPLOYMENT, path: ['spec', 'template', 'spec', 'containers', 0, 'args', 0], value: '--leader-elect' },
      {
        ref: DEPLOYMENT,
        path: ['spec', 'template', 'spec', 'containers', 0, 'args', 4],
        value: '--additional-sync-machine-labels=topology.kubernetes.io/.*',
      },
      {
        ref: DEPLOYMENT,
        path: ['spec', 'template', 'spec', 'containers', 0, 'image'],
        value: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      },
    ],
  },
  {
    name: 'RFC 6902: add at an index inserts before it; -1 addresses the last element (evanphx negative index)',
    patches: [
      {
        target: { kind: 'Deployment' },
        patch: [
          '- op: add',
          '  path: /spec/template/spec/containers/0/args/0',
          '  value: --first',
          '- op: replace',
          '  path: /spec/template/spec/tolerations/-1/key',
          '  value: node-role.kubernetes.io/infra',
        ].join('\n'),
      },
    ],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [
      { ref: DEPLOYMENT, path: ['spec', 'template', 'spec', 'containers', 0, 'args', 0], value: '--first' },
      { ref: DEPLOYMENT, path: ['spec', 'template', 'spec', 'containers', 0, 'args', 1], value: '--leader-elect' },
      {
        ref: DEPLOYMENT,
        path: ['spec', 'template', 'spec', 'tolerations', 0, 'key'],
        value: 'node-role.kubernetes.io/master',
      },
      {
        ref: DEPLOYMENT,
        path: ['spec', 'template', 'spec', 'tolerations', 1, 'key'],
        value: 'node-role.kubernetes.io/infra',
      },
    ],
  },
  {
    name: 'RFC 6902: copy, move, and test (a missing member passes a test for null)',
    patches: [
      {
        target: { kind: 'Deployment' },
        patch: [
          '- {op: test, path: /metadata/annotations, value: null}',
          '- {op: add, path: /metadata/annotations, value: {}}',
          '- {op: copy, from: /spec/template/spec/serviceAccountName, path: /metadata/annotations/sa}',
          '- {op: move, from: /metadata/labels/control-plane, path: /metadata/labels/role}',
          '- {op: test, path: /metadata/labels/role, value: controller-manager}',
          '- {op: add, path: /metadata/annotations/a~1b~0c, value: escaped}',
        ].join('\n'),
      },
    ],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [
      { ref: DEPLOYMENT, path: ['metadata', 'annotations'], value: { sa: 'capi-manager', 'a/b~c': 'escaped' } },
      {
        ref: DEPLOYMENT,
        path: ['metadata', 'labels'],
        value: { 'cluster.x-k8s.io/provider': 'cluster-api', role: 'controller-manager' },
      },
    ],
  },
  {
    name: 'target by labelSelector cluster.x-k8s.io/provider=cluster-api selects every labelled object',
    patches: [
      {
        target: { labelSelector: 'cluster.x-k8s.io/provider=cluster-api' },
        patch: 'metadata:\n  labels:\n    team: platform\n',
      },
    ],
    changed: hasLabel('cluster.x-k8s.io/provider', 'cluster-api'),
    expected: [
      { ref: DEPLOYMENT, path: ['metadata', 'labels', 'team'], value: 'platform' },
      {
        ref: 'CustomResourceDefinition/machines.cluster.x-k8s.io',
        path: ['metadata', 'labels', 'team'],
        value: 'platform',
      },
    ],
  },
  {
    name: 'target by a set-based labelSelector (in, !key) narrows to the Namespace and the Deployment',
    patches: [
      {
        target: { labelSelector: 'control-plane in (controller-manager), !cluster.x-k8s.io/aggregate-to-manager' },
        patch: 'metadata:\n  labels:\n    picked: "yes"\n',
      },
    ],
    changed: hasLabel('control-plane', 'controller-manager'),
    expected: [
      { ref: 'Namespace/capi-system', path: ['metadata', 'labels', 'picked'], value: 'yes' },
      { ref: DEPLOYMENT, path: ['metadata', 'labels', 'picked'], value: 'yes' },
    ],
  },
  {
    name: 'target by kind only',
    patches: [{ target: { kind: 'Service' }, patch: 'metadata:\n  labels:\n    test-label: test-value\n' }],
    changed: (o) => o.kind === 'Service',
    expected: [
      {
        ref: SERVICE,
        path: ['metadata', 'labels'],
        value: { 'cluster.x-k8s.io/provider': 'cluster-api', 'test-label': 'test-value' },
      },
    ],
  },
  {
    name: 'target by group+version selects all 13 CRDs',
    patches: [
      {
        target: { group: 'apiextensions.k8s.io', version: 'v1' },
        patch: 'metadata:\n  annotations:\n    reviewed: "true"\n',
      },
    ],
    changed: (o) => o.kind === 'CustomResourceDefinition',
    expected: [
      {
        ref: 'CustomResourceDefinition/clusters.cluster.x-k8s.io',
        path: ['metadata', 'annotations', 'reviewed'],
        value: 'true',
      },
    ],
  },
  {
    name: 'no target (and an empty target) patch every object',
    patches: [
      { patch: 'metadata:\n  labels:\n    env: prod\n' },
      { target: {}, patch: '- {op: add, path: /metadata/labels/tier, value: infra}' },
    ],
    changed: () => true,
    expected: [
      { ref: 'Namespace/capi-system', path: ['metadata', 'labels', 'env'], value: 'prod' },
      {
        ref: 'ValidatingWebhookConfiguration/capi-validating-webhook-configuration',
        path: ['metadata', 'labels', 'tier'],
        value: 'infra',
      },
    ],
  },
  {
    name: 'patches apply in order, each seeing the result of the ones before',
    patches: [
      { target: { kind: 'Deployment' }, patch: 'spec:\n  replicas: 2\n' },
      {
        target: { kind: 'Deployment' },
        patch: '- {op: test, path: /spec/replicas, value: 2}\n- {op: replace, path: /spec/replicas, value: 3}\n',
      },
    ],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [{ ref: DEPLOYMENT, path: ['spec', 'replicas'], value: 3 }],
  },
  {
    name: 'a merge patch that restates identity fields and existing values changes nothing and keeps identity',
    patches: [
      {
        target: { kind: 'Deployment' },
        patch:
          'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capi-controller-manager\n  labels:\n    control-plane: controller-manager\nspec:\n  replicas: 1\n',
      },
    ],
    changed: () => false,
    expected: [{ ref: DEPLOYMENT, path: ['spec', 'replicas'], value: 1 }],
  },
];

describe('applyProviderPatches on cluster-api v1.12.0 core components', () => {
  it.each(cases)('$name', ({ patches, changed, expected }) => {
    const { before, after } = run(patches);
    expect(after.map(refOf)).toEqual(before.map(refOf));
    after.forEach((object, i) => {
      const original = before[i] as KubeObject;
      if (changed(original)) expect(object, refOf(object)).not.toBe(original);
      else expect(object, refOf(object)).toBe(original);
    });
    for (const { ref, path, value } of expected)
      expect(at(after, ref, path), `${ref} ${path.join('.')}`).toEqual(value);
  });
});

// The operator's patch_test.go cases, on the fixture's own ClusterRoleBinding and Service: the
// same edits written as merge patches and as RFC 6902 lists give the same objects.
describe('operator patch_test.go cases (merge and RFC 6902 variants agree)', () => {
  const subject = { kind: 'ServiceAccount', name: 'test-service-account', namespace: 'test-namespace' };
  const mergeVariant: Patch[] = [
    {
      target: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
      // Lists are replaced whole, so the existing subject has to be listed again.
      patch:
        'subjects:\n- kind: ServiceAccount\n  name: capi-manager\n  namespace: capi-system\n- kind: ServiceAccount\n  name: test-service-account\n  namespace: test-namespace\n',
    },
    {
      target: { kind: 'Service' },
      patch: '---\napiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    test-label: test-value\n',
    },
    { target: { kind: 'Service' }, patch: 'apiVersion: v1\nkind: Service\nspec:\n  selector:\n' },
    {
      target: { kind: 'Service' },
      patch: 'apiVersion: v1\nkind: Service\nspec:\n  selector:\n    test-label: test-value\n',
    },
    {
      target: { kind: 'Service', name: 'capi-webhook-service', namespace: 'capi-system' },
      patch: 'spec:\n  ports:\n  - port: 7777\n    targetPort: webhook-server\n',
    },
  ];
  const jsonPatchVariant: Patch[] = [
    {
      target: { group: 'rbac.authorization.k8s.io', kind: 'ClusterRoleBinding' },
      patch: `- op: add\n  path: /subjects/-\n  value: ${JSON.stringify(subject)}\n`,
    },
    {
      target: { kind: 'Service' },
      patch:
        '- {op: add, path: /metadata/labels/test-label, value: test-value}\n- {op: remove, path: /spec/selector}\n- {op: add, path: /spec/selector, value: {test-label: test-value}}\n',
    },
    {
      target: { kind: 'Service', name: 'capi-webhook-service', namespace: 'capi-system' },
      patch:
        '- {op: replace, path: /spec/ports/0/port, value: 7777}\n- {op: replace, path: /spec/ports/0/targetPort, value: webhook-server}\n',
    },
  ];

  it.each([
    { name: 'merge patches', patches: mergeVariant },
    { name: 'RFC 6902 patches', patches: jsonPatchVariant },
  ])('$name', ({ patches }) => {
    const { after } = run(patches);
    expect(at(after, CRB, ['subjects'])).toEqual([
      { kind: 'ServiceAccount', name: 'capi-manager', namespace: 'capi-system' },
      subject,
    ]);
    expect(at(after, SERVICE, ['metadata', 'labels'])).toEqual({
      'cluster.x-k8s.io/provider': 'cluster-api',
      'test-label': 'test-value',
    });
    expect(at(after, SERVICE, ['spec'])).toEqual({
      ports: [{ port: 7777, targetPort: 'webhook-server' }],
      selector: { 'test-label': 'test-value' },
    });
  });

  it('both variants produce identical output', () => {
    expect(run(mergeVariant).after).toEqual(run(jsonPatchVariant).after);
  });
});

interface ErrorCase {
  name: string;
  patches: Patch[];
  field: string;
}

const deployment = (patch: string): Patch => ({ target: { kind: 'Deployment' }, patch });

const errorCases: ErrorCase[] = [
  { name: 'patch text is not YAML', patches: [deployment('spec: [1, 2\n')], field: 'spec.patches[0].patch' },
  {
    name: 'duplicate keys',
    patches: [deployment('spec:\n  replicas: 1\n  replicas: 2\n')],
    field: 'spec.patches[0].patch',
  },
  { name: 'empty patch', patches: [deployment('')], field: 'spec.patches[0].patch' },
  { name: 'only a comment', patches: [deployment('# nothing\n')], field: 'spec.patches[0].patch' },
  {
    name: 'two YAML documents',
    patches: [deployment('spec: {}\n---\nmetadata: {}\n')],
    field: 'spec.patches[0].patch',
  },
  { name: 'a scalar patch', patches: [deployment('hello')], field: 'spec.patches[0].patch' },
  { name: 'an empty operation list', patches: [deployment('[]')], field: 'spec.patches[0].patch' },
  {
    name: 'a number JSON cannot carry',
    patches: [deployment('spec:\n  replicas: .inf\n')],
    field: 'spec.patches[0].patch',
  },
  {
    name: 'patch is not a string',
    patches: [{ target: { kind: 'Deployment' }, patch: undefined as unknown as string }],
    field: 'spec.patches[0].patch',
  },
  {
    name: 'an operation that is not a mapping',
    patches: [deployment('- {op: add, path: /a, value: 1}\n- 5\n')],
    field: 'spec.patches[0].patch[1]',
  },
  {
    name: 'unknown op',
    patches: [deployment('- {op: merge, path: /spec, value: {}}')],
    field: 'spec.patches[0].patch[0]',
  },
  { name: 'no op', patches: [deployment('- {path: /spec, value: {}}')], field: 'spec.patches[0].patch[0]' },
  { name: 'no path', patches: [deployment('- {op: remove}')], field: 'spec.patches[0].patch[0]' },
  {
    name: 'add without value',
    patches: [deployment('- {op: add, path: /spec/paused}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'move without from',
    patches: [deployment('- {op: move, path: /spec/x}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'path without leading slash',
    patches: [deployment('- {op: replace, path: spec/replicas, value: 2}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'bad ~ escape',
    patches: [deployment('- {op: add, path: /metadata/labels/a~2, value: x}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'add below a missing parent',
    patches: [
      deployment(
        '- {op: add, path: /metadata/labels/x, value: y}\n- {op: add, path: /metadata/annotations/x, value: y}',
      ),
    ],
    field: 'spec.patches[0].patch[1]',
  },
  {
    name: 'remove of a missing path',
    patches: [deployment('- {op: remove, path: /spec/paused}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'replace of a missing path',
    patches: [deployment('- {op: replace, path: /spec/paused, value: true}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'failing test',
    patches: [deployment('- {op: test, path: /spec/replicas, value: 5}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'test for null on an existing value',
    patches: [deployment('- {op: test, path: /spec/replicas, value: null}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'array index past the end',
    patches: [deployment('- {op: add, path: /spec/template/spec/containers/0/args/9, value: x}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'array index with a leading zero',
    patches: [deployment('- {op: replace, path: /spec/template/spec/containers/00/name, value: x}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'negative index past the start',
    patches: [deployment('- {op: remove, path: /spec/template/spec/tolerations/-3}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'path through a scalar',
    patches: [deployment('- {op: add, path: /spec/replicas/x, value: 1}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'move into its own child',
    patches: [deployment('- {op: move, from: /spec/template, path: /spec/template/inner}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'move from a missing path',
    patches: [deployment('- {op: move, from: /spec/nothing, path: /spec/x}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'remove the whole document',
    patches: [deployment('- {op: remove, path: ""}')],
    field: 'spec.patches[0].patch[0]',
  },
  {
    name: 'replace the document with a list',
    patches: [deployment('- {op: replace, path: "", value: [1]}')],
    field: 'spec.patches[0].patch',
  },
  {
    name: 'target kind matches nothing (typo)',
    patches: [{ target: { kind: 'Deploymnet' }, patch: 'spec: {}' }],
    field: 'spec.patches[0]',
  },
  {
    name: 'target version written as apiVersion',
    patches: [{ target: { version: 'apps/v1', kind: 'Deployment' }, patch: 'spec: {}' }],
    field: 'spec.patches[0]',
  },
  {
    name: 'target name in the wrong namespace',
    patches: [
      { target: { kind: 'Deployment', name: 'capi-controller-manager', namespace: 'default' }, patch: 'spec: {}' },
    ],
    field: 'spec.patches[0]',
  },
  {
    name: 'labelSelector matches nothing',
    patches: [{ target: { labelSelector: 'cluster.x-k8s.io/provider=infrastructure-aws' }, patch: 'spec: {}' }],
    field: 'spec.patches[0]',
  },
  {
    name: 'bad labelSelector',
    patches: [{ target: { labelSelector: 'a in b' }, patch: 'spec: {}' }],
    field: 'spec.patches[0].target.labelSelector',
  },
  {
    name: 'merge patch with kind and no target re-kinds every object',
    patches: [{ patch: 'apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    a: b\n' }],
    field: 'spec.patches[0].patch',
  },
  {
    name: 'RFC 6902 rename',
    patches: [deployment('- {op: replace, path: /metadata/name, value: other}')],
    field: 'spec.patches[0].patch',
  },
  {
    name: 'RFC 6902 namespace change',
    patches: [deployment('- {op: add, path: /metadata/namespace, value: other}')],
    field: 'spec.patches[0].patch',
  },
  { name: 'merge patch deleting kind', patches: [deployment('kind: null')], field: 'spec.patches[0].patch' },
  {
    name: 'merge patch giving a cluster-scoped object a namespace',
    patches: [{ target: { kind: 'ClusterRole' }, patch: 'metadata:\n  namespace: capi-system\n' }],
    field: 'spec.patches[0].patch',
  },
  {
    name: 'the second patch fails',
    patches: [deployment('spec:\n  replicas: 2\n'), deployment('- {op: remove, path: /spec/paused}')],
    field: 'spec.patches[1].patch[0]',
  },
];

describe('applyProviderPatches errors', () => {
  it.each(errorCases)('$name', ({ patches, field }) => {
    const e = errorOf(patches);
    expect(e.code).toBe('patch');
    expect(e.diagnostics[0]).toMatchObject({ severity: 'error', code: 'patch', field, object: ctx.providerRef });
  });

  it('names the operation index, its path, the object and the target in the message', () => {
    const e = errorOf([
      deployment('- {op: add, path: /spec/replicas, value: 2}\n- {op: add, path: /metadata/annotations/x, value: y}'),
    ]);
    const { message } = e.diagnostics[0] as { message: string };
    for (const part of ['spec.patches[0]', 'operation 1', '/metadata/annotations/x', DEPLOYMENT, 'kind: Deployment'])
      expect(message).toContain(part);
  });

  it('a target that matches nothing gets a hint listing the kinds and the objects of the wanted kind', () => {
    const e = errorOf([{ target: { kind: 'Deployment', name: 'capi-manager' }, patch: 'spec: {}' }]);
    const { hint } = e.diagnostics[0] as { hint: string };
    expect(hint).toContain('Deployment (apps/v1)');
    expect(hint).toContain(DEPLOYMENT);
  });

  it('reports every malformed operation of a patch at once', () => {
    const e = errorOf([deployment('- {op: add, path: /a}\n- {op: frob, path: /b}\n- {op: remove, path: /c}\n- 1\n')]);
    expect(e.diagnostics.map((d) => d.field)).toEqual([
      'spec.patches[0].patch[0]',
      'spec.patches[0].patch[1]',
      'spec.patches[0].patch[3]',
    ]);
  });
});

describe('applyProviderPatches contract', () => {
  it('no patches returns a new array with the same objects', () => {
    const objects = loadCoreComponents();
    const result = applyProviderPatches(objects, [], ctx);
    expect(result).not.toBe(objects);
    result.forEach((o, i) => expect(o).toBe(objects[i]));
  });

  it('shares every subtree a patch did not touch', () => {
    const { before, after } = run([deployment('spec:\n  replicas: 3\n')]);
    const was = findObject(before, DEPLOYMENT);
    const now = findObject(after, DEPLOYMENT);
    expect(now.metadata).toBe(was.metadata);
    expect(getIn(now, ['spec', 'template'])).toBe(getIn(was, ['spec', 'template']));
  });

  it('a patch key __proto__ becomes data, never a prototype', () => {
    const { after } = run([deployment('metadata:\n  annotations:\n    __proto__:\n      polluted: "yes"\n')]);
    const annotations = getIn(findObject(after, DEPLOYMENT), ['metadata', 'annotations']) as Record<string, unknown>;
    expect(Object.getPrototypeOf(annotations)).toBe(Object.prototype);
    expect(Object.keys(annotations)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
