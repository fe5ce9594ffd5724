import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { KubeObject } from 'capi-render';
import type { Resource } from '../../src/manifest/resource.js';
import {
  addNamespaceIfMissing,
  fixTargetNamespace,
  inspectTargetNamespace,
} from '../../src/process/target-namespace.js';
import { deepFreeze, fixtureObjects } from '../helpers/fixtures.js';

const asResources = (objects: KubeObject[]): Resource[] =>
  objects.map((object, document) => ({ object, origin: { source: 't', document } }));
const fix = (objects: KubeObject[], target: string) =>
  fixTargetNamespace(asResources(deepFreeze(objects)), target).map((r) => r.object);

describe('fixTargetNamespace on the real cluster-api v1.12.0 components', () => {
  const original = deepFreeze(fixtureObjects('repository/cluster-api/v1.12.0/core-components.yaml'));
  const fixed = fixTargetNamespace(asResources(original), 'platform-capi').map((r) => r.object);
  const find = (kind: string, name: string) =>
    fixed.find((o) => o.kind === kind && (o.metadata as { name: string }).name === name)!;

  it('renames the Namespace and moves every namespaced object', () => {
    expect(fixed.filter((o) => o.kind === 'Namespace').map((o) => (o.metadata as { name: string }).name)).toEqual([
      'platform-capi',
    ]);
    const namespaced = fixed.filter(
      (o) =>
        ![
          'Namespace',
          'CustomResourceDefinition',
          'ClusterRole',
          'ClusterRoleBinding',
          'ValidatingWebhookConfiguration',
          'MutatingWebhookConfiguration',
        ].includes(o.kind),
    );
    expect(namespaced.length).toBeGreaterThan(5);
    for (const o of namespaced)
      expect((o.metadata as { namespace?: string }).namespace, `${o.kind}`).toBe('platform-capi');
  });

  it('leaves cluster-scoped objects without a namespace', () => {
    for (const o of fixed.filter((x) =>
      ['CustomResourceDefinition', 'ClusterRole', 'ClusterRoleBinding'].includes(x.kind),
    )) {
      expect((o.metadata as { namespace?: string }).namespace).toBeUndefined();
    }
  });

  it('rewrites webhook client services and cert-manager inject-ca-from', () => {
    for (const kind of ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration']) {
      const hooks = fixed.filter((o) => o.kind === kind);
      expect(hooks.length).toBe(1);
      const webhooks = hooks[0]!.webhooks as { clientConfig: { service: { namespace: string } } }[];
      expect(webhooks.length).toBeGreaterThan(3);
      for (const w of webhooks) expect(w.clientConfig.service.namespace).toBe('platform-capi');
      expect(
        (hooks[0]!.metadata as { annotations: Record<string, string> }).annotations['cert-manager.io/inject-ca-from'],
      ).toBe('platform-capi/capi-serving-cert');
    }
  });

  it('rewrites CRD conversion webhook services', () => {
    const crd = find('CustomResourceDefinition', 'clusters.cluster.x-k8s.io');
    expect(
      (crd.spec as { conversion: { webhook: { clientConfig: { service: { namespace: string } } } } }).conversion.webhook
        .clientConfig.service.namespace,
    ).toBe('platform-capi');
    expect(
      (crd.metadata as { annotations: Record<string, string> }).annotations['cert-manager.io/inject-ca-from'],
    ).toBe('platform-capi/capi-serving-cert');
  });

  it('rewrites Certificate dnsNames and ClusterRoleBinding subjects', () => {
    const cert = find('Certificate', 'capi-serving-cert');
    expect((cert.spec as { dnsNames: string[] }).dnsNames).toEqual([
      'capi-webhook-service.platform-capi.svc',
      'capi-webhook-service.platform-capi.svc.cluster.local',
    ]);
    const crb = find('ClusterRoleBinding', 'capi-manager-rolebinding');
    expect(crb.subjects).toEqual([{ kind: 'ServiceAccount', name: 'capi-manager', namespace: 'platform-capi' }]);
  });

  it('keeps unchanged objects by identity (structural sharing) and is idempotent', () => {
    const again = fixTargetNamespace(asResources(fixed), 'platform-capi').map((r) => r.object);
    again.forEach((o, i) => expect(o).toBe(fixed[i]));
  });
});

const ns = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

describe.each([
  {
    name: 'RoleBinding subjects with a namespace move, User subjects stay',
    input: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'old' },
      subjects: [
        { kind: 'ServiceAccount', name: 'sa', namespace: 'old' },
        { kind: 'User', name: 'alice' },
      ],
    },
    expected: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'rb', namespace: 'new' },
      subjects: [
        { kind: 'ServiceAccount', name: 'sa', namespace: 'new' },
        { kind: 'User', name: 'alice' },
      ],
    },
  },
  {
    name: 'only the first .<ns>. of a dnsName moves',
    input: {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'c', namespace: 'old' },
      spec: { dnsNames: ['svc.old.old.svc', 'other.example.com'] },
    },
    expected: {
      apiVersion: 'cert-manager.io/v1',
      kind: 'Certificate',
      metadata: { name: 'c', namespace: 'new' },
      spec: { dnsNames: ['svc.new.old.svc', 'other.example.com'] },
    },
  },
  {
    name: 'webhooks with a URL client config are left alone',
    input: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'w' },
      webhooks: [{ name: 'a', clientConfig: { url: 'https://x' } }],
    },
    expected: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'w' },
      webhooks: [{ name: 'a', clientConfig: { url: 'https://x' } }],
    },
  },
  {
    name: 'apiextensions v1beta1 conversion config moves',
    input: {
      apiVersion: 'apiextensions.k8s.io/v1beta1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'x.y' },
      spec: { conversion: { webhookClientConfig: { service: { name: 's', namespace: 'old' } } } },
    },
    expected: {
      apiVersion: 'apiextensions.k8s.io/v1beta1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'x.y' },
      spec: { conversion: { webhookClientConfig: { service: { name: 's', namespace: 'new' } } } },
    },
  },
  {
    name: 'cluster-scoped kinds clusterctl misses (ClusterIssuer) stay cluster-scoped',
    input: { apiVersion: 'cert-manager.io/v1', kind: 'ClusterIssuer', metadata: { name: 'ci' }, spec: {} },
    expected: { apiVersion: 'cert-manager.io/v1', kind: 'ClusterIssuer', metadata: { name: 'ci' }, spec: {} },
  },
  {
    name: 'a namespaced object without namespace gets the target',
    input: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa' } },
    expected: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'sa', namespace: 'new' } },
  },
])('fixTargetNamespace: $name', ({ input, expected }) => {
  it('produces the expected object', () => {
    expect(fix([input as unknown as KubeObject], 'new')).toEqual([expected]);
  });
});

describe.each([
  {
    name: 'webhook configuration with an unsupported apiVersion',
    input: {
      apiVersion: 'admissionregistration.k8s.io/v2',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'w' },
      webhooks: [],
    },
  },
  {
    name: 'CRD with an unsupported apiVersion',
    input: { apiVersion: 'apiextensions.k8s.io/v2', kind: 'CustomResourceDefinition', metadata: { name: 'a.b' } },
  },
  {
    name: 'inject-ca-from without a slash',
    input: {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'a.b', annotations: { 'cert-manager.io/inject-ca-from': 'nocert' } },
    },
  },
  {
    name: 'inject-ca-from with two slashes',
    input: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'ValidatingWebhookConfiguration',
      metadata: { name: 'w', annotations: { 'cert-manager.io/inject-ca-from': 'a/b/c' } },
      webhooks: [],
    },
  },
])('fixTargetNamespace error: $name', ({ input }) => {
  it('throws a namespace SpecError', () => {
    let caught: unknown;
    try {
      fix([input as KubeObject], 'new');
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SpecError);
    expect((caught as SpecError).code).toBe('namespace');
  });
});

describe('inspectTargetNamespace / addNamespaceIfMissing', () => {
  it('finds the single Namespace', () => {
    expect(
      inspectTargetNamespace(
        asResources([ns('a'), { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }]),
        's',
      ),
    ).toBe('a');
    expect(inspectTargetNamespace(asResources([]), 's')).toBe('');
  });
  it('rejects two Namespaces', () => {
    expect(() => inspectTargetNamespace(asResources([ns('a'), ns('b')]), 's')).toThrow(SpecError);
  });
  it('adds a v1 Namespace only when there is none', () => {
    expect(addNamespaceIfMissing(asResources([]), 'x', 's').map((r) => r.object)).toEqual([ns('x')]);
    expect(addNamespaceIfMissing(asResources([ns('a')]), 'x', 's').map((r) => r.object)).toEqual([ns('a')]);
  });
});
