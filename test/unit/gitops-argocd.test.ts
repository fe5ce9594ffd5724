import { describe, expect, it } from 'vitest';
import type { KubeObject, RenderError } from 'capi-render';
import { SpecError } from '../../src/errors.js';
import {
  applyGitopsFlavour,
  ARGOCD_WAVES,
  lastAppliedSize,
  SSA_SIZE_THRESHOLD,
  type GitopsOptions,
} from '../../src/gitops/index.js';
import { annotationsOf, nameOf } from '../../src/manifest/object.js';
import type { RenderedEnvironment } from '../../src/plan/output-plan.js';
import { fixtureEnvironment } from '../helpers/gitops-environment.js';
import { deepFreeze } from '../helpers/core-components.js';
import { consumerSchemaProblems } from '../helpers/consumer-schemas.js';

const WAVE = 'argocd.argoproj.io/sync-wave';
const SYNC = 'argocd.argoproj.io/sync-options';
const all = (env: RenderedEnvironment) => env.components.flatMap((c) => c.objects);
const argocd = (env: RenderedEnvironment, extra: Partial<GitopsOptions> = {}) =>
  applyGitopsFlavour(env, { flavour: 'argocd', ...extra });

describe('Argo CD flavour on the real v1.12.0 providers and cert-manager v1.19.4', () => {
  const input = fixtureEnvironment('mgmt', { certManager: true });
  const { environment, warnings } = argocd(input);

  it('puts the component wave on every object, as a quoted integer', () => {
    const expected: Record<string, string> = {
      'cert-manager': '-30',
      'cluster-api': '-20',
      'bootstrap-kubeadm': '-10',
      'control-plane-kubeadm': '-10',
      'infrastructure-docker': '-10',
    };
    expect(environment.components.map((c) => c.name)).toEqual(Object.keys(expected));
    for (const component of environment.components) {
      expect(component.objects.length).toBeGreaterThan(5);
      for (const o of component.objects)
        expect(annotationsOf(o)[WAVE], `${component.name} ${o.kind}/${nameOf(o)}`).toBe(expected[component.name]);
    }
    expect(ARGOCD_WAVES).toEqual({ 'cert-manager': '-30', core: '-20', provider: '-10' });
  });

  it('gives every CRD ServerSideApply and prune/delete protection, and every Namespace the protection', () => {
    const crds = all(environment).filter((o) => o.kind === 'CustomResourceDefinition');
    expect(crds.length).toBe(all(input).filter((o) => o.kind === 'CustomResourceDefinition').length);
    expect(crds.length).toBeGreaterThan(30);
    for (const crd of crds)
      expect(annotationsOf(crd)[SYNC], nameOf(crd)).toBe('Delete=false,Prune=false,ServerSideApply=true');
    const namespaces = all(environment).filter((o) => o.kind === 'Namespace');
    expect(namespaces.map(nameOf)).toEqual([
      'cert-manager',
      'capi-system',
      'capi-kubeadm-bootstrap-system',
      'capi-kubeadm-control-plane-system',
      'capd-system',
    ]);
    for (const ns of namespaces) expect(annotationsOf(ns)[SYNC]).toBe('Delete=false,Prune=false');
  });

  it('leaves sync-options off every other real object (none is near the size limit)', () => {
    const others = all(environment).filter((o) => o.kind !== 'CustomResourceDefinition' && o.kind !== 'Namespace');
    for (const o of others) expect(annotationsOf(o)[SYNC], `${o.kind}/${nameOf(o)}`).toBeUndefined();
    expect(Math.max(...others.map(lastAppliedSize))).toBeLessThan(10_000);
  });

  it('measures the largest real CRDs; kubeadmcontrolplanes alone exceeds the 262144-byte limit', () => {
    // Sizes of the objects as the pipeline hands them over (clusterctl labels, no status).
    const sizes = new Map(all(input).map((o) => [nameOf(o), lastAppliedSize(o)]));
    const largest = [...sizes]
      .filter(([n]) => n.includes('.'))
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8);
    expect(largest).toEqual([
      ['kubeadmcontrolplanes.controlplane.cluster.x-k8s.io', 266942],
      ['kubeadmconfigs.bootstrap.cluster.x-k8s.io', 217013],
      ['kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io', 203300],
      ['clusterclasses.cluster.x-k8s.io', 196909],
      ['kubeadmcontrolplanetemplates.controlplane.cluster.x-k8s.io', 193843],
      ['clusterissuers.cert-manager.io', 141502],
      ['issuers.cert-manager.io', 141382],
      ['clusters.cluster.x-k8s.io', 140352],
    ]);
    expect(SSA_SIZE_THRESHOLD).toBe(196608);
    expect(largest.filter(([, size]) => size >= SSA_SIZE_THRESHOLD).map(([n]) => n)).toEqual([
      'kubeadmcontrolplanes.controlplane.cluster.x-k8s.io',
      'kubeadmconfigs.bootstrap.cluster.x-k8s.io',
      'kubeadmconfigtemplates.bootstrap.cluster.x-k8s.io',
      'clusterclasses.cluster.x-k8s.io',
    ]);
  });

  it('copies objects only along metadata.annotations and never mutates the (frozen) input', () => {
    const before = input.components[1]!.objects.find((o) => nameOf(o) === 'clusters.cluster.x-k8s.io')!;
    const after = environment.components[1]!.objects.find((o) => nameOf(o) === 'clusters.cluster.x-k8s.io')!;
    expect(after).not.toBe(before);
    expect(after.spec).toBe(before.spec);
    expect(annotationsOf(before)[WAVE]).toBeUndefined();
  });

  it('raises no warning on the real artifacts', () => {
    expect(warnings).toEqual([]);
  });

  it('is deterministic and shares results through a memo', () => {
    const memo = new WeakMap();
    const a = applyGitopsFlavour(input, { flavour: 'argocd' }, { memo });
    const b = applyGitopsFlavour({ ...input, name: 'other' }, { flavour: 'argocd' }, { memo });
    a.environment.components.forEach((c, i) =>
      c.objects.forEach((o, j) => expect(b.environment.components[i]!.objects[j]).toBe(o)),
    );
    expect(JSON.stringify(argocd(input).environment)).toBe(JSON.stringify(environment));
  });
});

const configMap = (name: string, data: string, annotations?: Record<string, string>): KubeObject =>
  deepFreeze({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name, namespace: 'capi-system', ...(annotations ? { annotations } : {}) },
    data: { blob: data },
  });
const crd = (annotations?: Record<string, string>): KubeObject =>
  deepFreeze({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com', ...(annotations ? { annotations } : {}) },
    spec: { group: 'example.com' },
  });
const single = (object: KubeObject, component = 'infrastructure-x'): RenderedEnvironment => ({
  name: 'e',
  components: [{ name: component, objects: [object] }],
});

describe('Argo CD sync options', () => {
  // A ConfigMap of n bytes of data is ~ n + 300 bytes of last-applied JSON.
  const cases: {
    name: string;
    object: KubeObject;
    protect?: GitopsOptions['protect'];
    expected: Record<string, string | undefined>;
    warnings?: number;
  }[] = [
    {
      name: 'a small ConfigMap gets only the wave',
      object: configMap('small', 'x'),
      expected: { [SYNC]: undefined, [WAVE]: '-10' },
    },
    {
      name: 'a ConfigMap just under the threshold stays client-side',
      object: configMap('big', 'x'.repeat(SSA_SIZE_THRESHOLD - 400)),
      expected: { [SYNC]: undefined },
    },
    {
      name: 'a ConfigMap over the threshold gets ServerSideApply',
      object: configMap('huge', 'x'.repeat(SSA_SIZE_THRESHOLD)),
      expected: { [SYNC]: 'ServerSideApply=true' },
    },
    {
      name: 'CRD options merge into an existing list, sorted and deduplicated',
      object: crd({ [SYNC]: 'SkipDryRunOnMissingResource=true, ServerSideApply=true' }),
      expected: { [SYNC]: 'Delete=false,Prune=false,ServerSideApply=true,SkipDryRunOnMissingResource=true' },
    },
    {
      name: 'an explicit opt-out already on the object wins, with a warning',
      object: crd({ [SYNC]: 'ServerSideApply=false' }),
      expected: { [SYNC]: 'Delete=false,Prune=false,ServerSideApply=false' },
      warnings: 1,
    },
    {
      name: 'without CRD protection a CRD gets only ServerSideApply',
      object: crd(),
      protect: { crds: false },
      expected: { [SYNC]: 'ServerSideApply=true' },
    },
    { name: 'an existing wave is kept', object: configMap('waved', 'x', { [WAVE]: '5' }), expected: { [WAVE]: '5' } },
    {
      name: 'without Namespace protection a Namespace gets no sync options',
      object: deepFreeze({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capx-system' } }),
      protect: { namespaces: false },
      expected: { [SYNC]: undefined, [WAVE]: '-10' },
    },
  ];
  it.each(cases)('$name', ({ object, protect, expected, warnings }) => {
    const result = applyGitopsFlavour(single(object), { flavour: 'argocd', ...(protect ? { protect } : {}) });
    const annotations = annotationsOf(result.environment.components[0]!.objects[0]!);
    for (const [key, value] of Object.entries(expected)) expect(annotations[key], key).toBe(value);
    expect(result.warnings.map((w) => w.code)).toEqual(Array(warnings ?? 0).fill('gitops'));
  });
});

describe('lastAppliedSize', () => {
  const base = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' } };
  const KEY = 'kubectl.kubernetes.io/last-applied-configuration'.length + 1; // key + json.Encoder's newline
  const cases: { name: string; object: KubeObject; expected: number }[] = [
    {
      name: 'compact JSON plus the annotation key and newline',
      object: base,
      expected: JSON.stringify(base).length + KEY,
    },
    {
      name: 'Go escapes <, > and & as \\u003c (6 bytes)',
      object: { ...base, data: { x: '<&>' } },
      expected: JSON.stringify({ ...base, data: { x: '<&>' } }).length + 15 + KEY,
    },
    {
      name: 'UTF-8 bytes, not UTF-16 units',
      object: { ...base, data: { x: 'é€' } },
      expected: JSON.stringify({ ...base, data: { x: 'é€' } }).length + 3 + KEY,
    },
    {
      name: 'other annotations count twice (in the JSON and as themselves); an old last-applied is left out',
      object: {
        ...base,
        metadata: {
          name: 'a',
          annotations: { k: 'vv', 'kubectl.kubernetes.io/last-applied-configuration': '{"big":1}' },
        },
      },
      expected: JSON.stringify({ ...base, metadata: { name: 'a', annotations: { k: 'vv' } } }).length + KEY + 3,
    },
  ];
  it.each(cases)('$name', ({ object, expected }) => expect(lastAppliedSize(object)).toBe(expected));
});

describe('Argo CD Application and ApplicationSet', () => {
  const env = fixtureEnvironment('Prod_EU', { certManager: true });
  const options: GitopsOptions = {
    flavour: 'argocd',
    argocd: {
      application: true,
      applicationSet: true,
      repoURL: 'https://git.example.com/mgmt.git',
      pathPrefix: './clusters/rendered/',
    },
  };

  it('renders the Application outside the output folder (the ApplicationSet is a fleet file) and warns that both are asked for', () => {
    const result = applyGitopsFlavour(env, options);
    expect([...result.extraFiles.keys()]).toEqual(['../gitops/argocd/applications/Prod_EU.yaml']);
    expect(result.warnings.map((w) => w.code)).toEqual(['gitops']);
  });

  it('the Application parses and carries the sync and diff options the rendered objects need', async () => {
    const { parseSourceDocuments } = await import('../../src/declarations/yaml-document.js');
    const text = applyGitopsFlavour(env, options).extraFiles.get('../gitops/argocd/applications/Prod_EU.yaml')!;
    const [doc] = parseSourceDocuments(text, 'app.yaml');
    const app = doc!.value as any;
    expect(app).toMatchObject({
      apiVersion: 'argoproj.io/v1alpha1',
      kind: 'Application',
      metadata: {
        name: 'capi-prod-eu',
        namespace: 'argocd',
        annotations: {
          'argocd.argoproj.io/manifest-generate-paths': '.',
          'argocd.argoproj.io/compare-options': 'ServerSideDiff=true',
        },
      },
      spec: {
        project: 'default',
        source: {
          repoURL: 'https://git.example.com/mgmt.git',
          targetRevision: 'HEAD',
          path: 'clusters/rendered/Prod_EU',
        },
        destination: { server: 'https://kubernetes.default.svc' },
        syncPolicy: { syncOptions: ['ServerSideApply=true', 'PruneLast=true', 'RespectIgnoreDifferences=true'] },
      },
    });
    expect(consumerSchemaProblems(app)).toEqual([]);
    expect(app.spec.ignoreDifferences).toEqual([
      {
        group: 'apiextensions.k8s.io',
        kind: 'CustomResourceDefinition',
        jsonPointers: ['/spec/conversion/webhook/clientConfig/caBundle'],
      },
      {
        group: 'admissionregistration.k8s.io',
        kind: 'MutatingWebhookConfiguration',
        jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle'],
      },
      {
        group: 'admissionregistration.k8s.io',
        kind: 'ValidatingWebhookConfiguration',
        jqPathExpressions: ['.webhooks[]?.clientConfig.caBundle'],
      },
      {
        group: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name: 'capi-aggregated-manager-role',
        jsonPointers: ['/rules'],
      },
    ]);
  });

  it('emits nothing unless asked, and needs repoURL when asked', () => {
    expect(applyGitopsFlavour(env, { flavour: 'argocd' }).extraFiles.size).toBe(0);
    const attempt = () => applyGitopsFlavour(env, { flavour: 'argocd', argocd: { application: true } });
    expect(attempt).toThrow(SpecError);
    expect(codeOf(attempt)).toBe('config');
  });
});

describe('Argo CD templates: user overrides and broken templates', () => {
  const env = fixtureEnvironment('mgmt');
  const USER = '/repo/templates';
  const withTemplate = (text: string) => ({
    read: (file: string) => (file === `${USER}/argocd/application.yaml.hbs` ? text : readBundled(file)),
  });
  const options: GitopsOptions = {
    flavour: 'argocd',
    templatesDir: USER,
    labels: { region: 'eu-west-1' },
    argocd: { application: true, repoURL: 'https://git.example.com/x.git' },
  };

  it('a user template of the same name wins over the bundled one and sees the environment labels', () => {
    const template = [
      'apiVersion: argoproj.io/v1alpha1',
      'kind: Application',
      'metadata:',
      '  name: {{application.name}}-{{environment.labels.region}}',
      '  namespace: {{quote argocd.namespace}}',
      'spec:',
      '  components: {{json components}}',
      '',
    ].join('\n');
    const text = applyGitopsFlavour(env, options, withTemplate(template)).extraFiles.get(
      '../gitops/argocd/applications/mgmt.yaml',
    )!;
    expect(text).toContain('name: capi-mgmt-eu-west-1\n');
    expect(text).toContain("- name: cluster-api\n    role: core\n    wave: '-20'\n");
  });

  const broken: { name: string; template: string }[] = [
    { name: 'a Handlebars syntax error', template: 'kind: {{#if}}\n' },
    {
      name: 'an unknown field (strict mode)',
      template: 'apiVersion: v1\nkind: X\nmetadata:\n  name: {{quote nope.name}}\n',
    },
    { name: 'an unknown helper', template: 'apiVersion: v1\nkind: X\nmetadata:\n  name: {{shout application.name}}\n' },
    { name: 'output that is not YAML', template: 'apiVersion: v1\nkind: [X\nmetadata: {name: a}\n' },
    { name: 'a document without a kind', template: 'apiVersion: v1\nmetadata:\n  name: {{quote application.name}}\n' },
    { name: 'quote given a map', template: 'apiVersion: v1\nkind: X\nmetadata:\n  name: {{quote argocd}}\n' },
  ];
  it.each(broken)('$name → SpecError "template" naming the template file', ({ template }) => {
    const attempt = () => applyGitopsFlavour(env, options, withTemplate(template));
    expect(attempt).toThrow(SpecError);
    const e = thrownBy(Error, attempt) as RenderError;
    expect(e.diagnostics.map((d) => d.code)).toEqual(e.diagnostics.map(() => 'template'));
    expect(e.diagnostics[0]!.file).toBe(`${USER}/argocd/application.yaml.hbs`);
  });

  it('a missing bundled template → "template"', () => {
    expect(codeOf(() => applyGitopsFlavour(env, options, { read: () => undefined }))).toBe('template');
  });
});

import { readFileSync } from 'node:fs';
import { thrownBy } from '../helpers/errors.js';
function readBundled(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
function codeOf(fn: () => unknown): string {
  return (thrownBy(Error, fn) as RenderError).code;
}
