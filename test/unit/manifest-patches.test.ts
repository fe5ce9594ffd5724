import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { JsonValue, KubeObject } from 'capi-render';
import { getIn } from '../../src/manifest/object.js';
import {
  applyManifestPatches,
  applySpecPatches,
  MANIFEST_PATCH_DEVIATIONS,
} from '../../src/customize/patches/index.js';
import { deepFreeze, findObject, loadCoreComponents, refOf } from '../helpers/core-components.js';
import { thrownBy } from '../helpers/errors.js';

const ctx = { providerRef: 'CoreProvider/capi-system/cluster-api' };
const DEPLOYMENT = 'Deployment/capi-system/capi-controller-manager';
const SERVICE = 'Service/capi-system/capi-webhook-service';
const CRB = 'ClusterRoleBinding/capi-manager-rolebinding';

function run(patches: string[]): { before: KubeObject[]; after: KubeObject[] } {
  const before = loadCoreComponents();
  const snapshot = JSON.stringify(before);
  const after = applyManifestPatches(before, deepFreeze(patches), ctx);
  expect(JSON.stringify(before)).toBe(snapshot);
  return { before, after };
}

interface Case {
  name: string;
  patches: string[];
  changed: (o: KubeObject) => boolean;
  expected: { ref: string; path: (string | number)[]; value: JsonValue | undefined }[];
}

const cases: Case[] = [
  {
    // The operator's TestApplyPatches case, on the fixture's own ClusterRoleBinding and Service.
    name: 'several patches: subjects list replaced, label added, selector removed then re-added, port changed on the named Service',
    patches: [
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nsubjects:\n- kind: ServiceAccount\n  name: capi-manager\n  namespace: capi-system\n- kind: ServiceAccount\n  name: test-service-account\n  namespace: test-namespace\n',
      '---\napiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    test-label: test-value\n',
      'apiVersion: v1\nkind: Service\nspec:\n  selector:\n',
      'apiVersion: v1\nkind: Service\nspec:\n  selector:\n    test-label: test-value\n',
      '---\napiVersion: v1\nkind: Service\nmetadata:\n  name: capi-webhook-service\n  namespace: capi-system\nspec:\n  ports:\n  - port: 7777\n    targetPort: webhook-server\n',
    ],
    changed: (o) => [CRB, SERVICE].includes(refOf(o)),
    expected: [
      { ref: CRB, path: ['subjects', 1, 'name'], value: 'test-service-account' },
      { ref: CRB, path: ['subjects', 0, 'name'], value: 'capi-manager' },
      { ref: SERVICE, path: ['metadata', 'labels', 'test-label'], value: 'test-value' },
      {
        ref: SERVICE,
        path: ['spec'],
        value: { ports: [{ port: 7777, targetPort: 'webhook-server' }], selector: { 'test-label': 'test-value' } },
      },
    ],
  },
  {
    name: 'without apiVersion a patch applies to its kind with any apiVersion (documented; the operator never matches)',
    patches: ['kind: Deployment\nspec:\n  replicas: 3\n'],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [{ ref: DEPLOYMENT, path: ['spec', 'replicas'], value: 3 }],
  },
  {
    name: 'kind alone selects every object of that kind',
    patches: [
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  annotations:\n    reviewed: "true"\n',
    ],
    changed: (o) => o.kind === 'CustomResourceDefinition',
    expected: [
      {
        ref: 'CustomResourceDefinition/machines.cluster.x-k8s.io',
        path: ['metadata', 'annotations', 'reviewed'],
        value: 'true',
      },
    ],
  },
  {
    name: 'metadata.name alone selects a cluster-scoped object',
    patches: [
      'apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: capi-manager-role\n  labels:\n    extra: "1"\n',
    ],
    changed: (o) => refOf(o) === 'ClusterRole/capi-manager-role',
    expected: [{ ref: 'ClusterRole/capi-manager-role', path: ['metadata', 'labels', 'extra'], value: '1' }],
  },
  {
    name: 'a merge patch replaces the containers list whole',
    patches: [
      'apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: example.com/manager:dev\n',
    ],
    changed: (o) => refOf(o) === DEPLOYMENT,
    expected: [
      {
        ref: DEPLOYMENT,
        path: ['spec', 'template', 'spec', 'containers'],
        value: [{ name: 'manager', image: 'example.com/manager:dev' }],
      },
    ],
  },
];

describe('applyManifestPatches on cluster-api v1.12.0 core components', () => {
  it.each(cases)('$name', ({ patches, changed, expected }) => {
    const { before, after } = run(patches);
    after.forEach((object, i) => {
      const original = before[i] as KubeObject;
      if (changed(original)) expect(object, refOf(object)).not.toBe(original);
      else expect(object, refOf(object)).toBe(original);
    });
    for (const { ref, path, value } of expected)
      expect(getIn(findObject(after, ref), path), `${ref} ${path.join('.')}`).toEqual(value);
  });
});

const errorCases: { name: string; patches: string[]; field: string }[] = [
  {
    name: 'apiVersion given but different (the operator would patch anyway)',
    patches: ['apiVersion: apps/v1beta1\nkind: Deployment\nspec:\n  replicas: 2\n'],
    field: 'spec.manifestPatches[0]',
  },
  {
    name: 'namespace given but different (the operator ignores it)',
    patches: [
      'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: capi-controller-manager\n  namespace: default\nspec:\n  replicas: 2\n',
    ],
    field: 'spec.manifestPatches[0]',
  },
  {
    name: 'name matches nothing',
    patches: ['apiVersion: v1\nkind: Service\nmetadata:\n  name: capi-webhook\n'],
    field: 'spec.manifestPatches[0]',
  },
  {
    name: 'kind matches nothing',
    patches: ['apiVersion: v1\nkind: ConfigMap\ndata: {}\n'],
    field: 'spec.manifestPatches[0]',
  },
  { name: 'no kind', patches: ['apiVersion: v1\nmetadata:\n  labels:\n    a: b\n'], field: 'spec.manifestPatches[0]' },
  { name: 'apiVersion is not a string', patches: ['apiVersion: 1\nkind: Service\n'], field: 'spec.manifestPatches[0]' },
  {
    name: 'metadata.name is not a string',
    patches: ['kind: Service\nmetadata:\n  name: [a]\n'],
    field: 'spec.manifestPatches[0]',
  },
  {
    name: 'an RFC 6902 list',
    patches: ['- {op: add, path: /spec/replicas, value: 2}\n'],
    field: 'spec.manifestPatches[0]',
  },
  { name: 'not YAML', patches: ['kind: Service\nspec: {a: 1\n'], field: 'spec.manifestPatches[0]' },
  { name: 'two documents', patches: ['kind: Service\n---\nkind: Deployment\n'], field: 'spec.manifestPatches[0]' },
  { name: 'empty', patches: [''], field: 'spec.manifestPatches[0]' },
  {
    name: 'deleting metadata changes the identity',
    patches: ['apiVersion: v1\nkind: Service\nmetadata: null\n'],
    field: 'spec.manifestPatches[0]',
  },
  {
    name: 'the second patch fails',
    patches: ['kind: Service\nmetadata:\n  labels:\n    a: b\n', 'kind: Servic\n'],
    field: 'spec.manifestPatches[1]',
  },
];

describe('applyManifestPatches errors', () => {
  it.each(errorCases)('$name', ({ patches, field }) => {
    const e = thrownBy(SpecError, () => run(patches));
    expect(e.code).toBe('patch');
    expect(e.diagnostics[0]).toMatchObject({ code: 'patch', field, object: ctx.providerRef });
  });

  it('a patch that matches nothing lists the objects of its kind in the hint', () => {
    const e = thrownBy(SpecError, () => run(['apiVersion: v1\nkind: Service\nmetadata:\n  name: capi-webhook\n']));
    expect(e.diagnostics[0]?.hint).toContain(SERVICE);
  });
});

describe('applySpecPatches', () => {
  const objects = loadCoreComponents();
  const patch = { target: { kind: 'Service' }, patch: 'metadata:\n  labels:\n    a: b\n' };
  const manifestPatch = 'apiVersion: v1\nkind: Service\nmetadata:\n  labels:\n    a: b\n';

  it.each([
    { name: 'both set', spec: { patches: [patch], manifestPatches: [manifestPatch] } },
    {
      name: 'both set, patches empty (the CRD CEL rule rejects it)',
      spec: { patches: [], manifestPatches: [manifestPatch] },
    },
    { name: 'both set, manifestPatches empty', spec: { patches: [patch], manifestPatches: [] } },
  ])('$name is a patch error', ({ spec }) => {
    const e = thrownBy(SpecError, () => applySpecPatches(objects, spec, ctx));
    expect(e.code).toBe('patch');
    expect(e.diagnostics[0]).toMatchObject({ field: 'spec.patches', object: ctx.providerRef });
  });

  it('uses the operator wording for both set', () => {
    const e = thrownBy(SpecError, () =>
      applySpecPatches(objects, { patches: [patch], manifestPatches: [manifestPatch] }, ctx),
    );
    expect(e.message).toContain("cannot use both 'patches' and 'manifestPatches'; please choose one");
  });

  it.each([
    { name: 'patches', spec: { patches: [patch] } },
    { name: 'manifestPatches', spec: { manifestPatches: [manifestPatch] } },
  ])('applies $name alone', ({ spec }) => {
    const result = applySpecPatches(objects, spec, ctx);
    expect(getIn(findObject(result, SERVICE), ['metadata', 'labels', 'a'])).toBe('b');
  });

  it.each([{ spec: {} }, { spec: { patches: [] } }, { spec: { manifestPatches: [] } }])(
    'leaves objects alone with $spec',
    ({ spec }) => {
      const result = applySpecPatches(objects, spec, ctx);
      result.forEach((o, i) => expect(o).toBe(objects[i]));
    },
  );
});

describe('MANIFEST_PATCH_DEVIATIONS', () => {
  it('lists each deviation with every field filled in', () => {
    expect(MANIFEST_PATCH_DEVIATIONS.length).toBeGreaterThanOrEqual(6);
    for (const d of MANIFEST_PATCH_DEVIATIONS) {
      for (const field of [d.field, d.operatorBehaviour, d.capiRenderBehaviour, d.why])
        expect(field.trim().length).toBeGreaterThan(10);
      expect(d.field).toMatch(/^spec\.(patches|manifestPatches)/);
    }
  });
});
