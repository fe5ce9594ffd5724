import { describe, expect, it } from 'vitest';
import { applyGitopsFlavour, type GitopsOptions } from '../../src/gitops/index.js';
import type { KubeObject } from 'capi-render';
import { annotationsOf, nameOf } from '../../src/manifest/object.js';
import type { RenderedEnvironment } from '../../src/plan/output-plan.js';
import { planEnvironment } from '../../src/plan/output-plan.js';
import { parseSourceDocuments } from '../../src/declarations/yaml-document.js';
import { fixtureEnvironment } from '../helpers/gitops-environment.js';

const PRUNE = 'kustomize.toolkit.fluxcd.io/prune';
const KUSTOMIZATIONS = (env: string) => `../gitops/flux/${env}/flux-kustomizations.yaml`;

interface FluxKustomization {
  metadata: { name: string; namespace: string };
  spec: {
    path: string;
    dependsOn?: { name: string; namespace?: string }[];
    wait: boolean;
    prune: boolean;
    timeout: string;
    interval: string;
    sourceRef: Record<string, string>;
  };
}

function kustomizationsOf(env: RenderedEnvironment, options: Partial<GitopsOptions> = {}): FluxKustomization[] {
  const text = applyGitopsFlavour(env, { flavour: 'flux', ...options }).extraFiles.get(KUSTOMIZATIONS(env.name))!;
  return parseSourceDocuments(text, 'k.yaml').map((d) => d.value as unknown as FluxKustomization);
}

/** Kahn's algorithm over dependsOn; returns the names in an order where each comes after its dependencies, or throws on a cycle. */
function topologicalOrder(ks: FluxKustomization[]): string[] {
  const pending = new Map(ks.map((k) => [k.metadata.name, new Set((k.spec.dependsOn ?? []).map((d) => d.name))]));
  const order: string[] = [];
  while (pending.size > 0) {
    const ready = [...pending].filter(([, deps]) => [...deps].every((d) => order.includes(d))).map(([n]) => n);
    if (ready.length === 0) throw new Error(`cycle among ${[...pending.keys()].join(', ')}`);
    for (const n of ready) {
      order.push(n);
      pending.delete(n);
    }
  }
  return order;
}

describe('Flux Kustomizations for the real v1.12.0 providers', () => {
  const cases: { name: string; certManager: boolean; expected: Record<string, string[]> }[] = [
    {
      name: 'with cert-manager rendered: cert-manager ← core ← providers',
      certManager: true,
      expected: {
        'capi-mgmt-cert-manager': [],
        'capi-mgmt-cluster-api': ['capi-mgmt-cert-manager'],
        'capi-mgmt-bootstrap-kubeadm': ['capi-mgmt-cert-manager', 'capi-mgmt-cluster-api'],
        'capi-mgmt-control-plane-kubeadm': ['capi-mgmt-cert-manager', 'capi-mgmt-cluster-api'],
        'capi-mgmt-infrastructure-docker': ['capi-mgmt-cert-manager', 'capi-mgmt-cluster-api'],
      },
    },
    {
      name: 'without cert-manager: core ← providers',
      certManager: false,
      expected: {
        'capi-mgmt-cluster-api': [],
        'capi-mgmt-bootstrap-kubeadm': ['capi-mgmt-cluster-api'],
        'capi-mgmt-control-plane-kubeadm': ['capi-mgmt-cluster-api'],
        'capi-mgmt-infrastructure-docker': ['capi-mgmt-cluster-api'],
      },
    },
  ];
  it.each(cases)('$name', ({ certManager, expected }) => {
    const env = fixtureEnvironment('mgmt', { certManager });
    const ks = kustomizationsOf(env);
    expect(Object.fromEntries(ks.map((k) => [k.metadata.name, (k.spec.dependsOn ?? []).map((d) => d.name)]))).toEqual(
      expected,
    );
    // Acyclic, and the file lists them in an order Flux can satisfy (the first has no dependency).
    const order = topologicalOrder(ks);
    ks.forEach((k, i) =>
      (k.spec.dependsOn ?? []).forEach((d) => expect(ks.findIndex((x) => x.metadata.name === d.name)).toBeLessThan(i)),
    );
    expect(order[0]).toBe(certManager ? 'capi-mgmt-cert-manager' : 'capi-mgmt-cluster-api');
    for (const [i, k] of ks.entries()) {
      expect(k.spec).toMatchObject({
        path: `./rendered/mgmt/${env.components[i]!.name}`,
        prune: true,
        wait: true,
        timeout: '10m',
        interval: '10m',
        sourceRef: { kind: 'GitRepository', name: 'flux-system' },
      });
      expect(k.metadata.namespace).toBe('flux-system');
    }
  });

  it('applies the options: source, namespace, interval, timeout, path prefix, extra dependencies of the chain root', () => {
    const ks = kustomizationsOf(fixtureEnvironment('mgmt'), {
      flux: {
        sourceRef: { kind: 'OCIRepository', name: 'capi', namespace: 'sources' },
        namespace: 'capi-gitops',
        interval: '1h',
        timeout: '15m',
        pathPrefix: './deploy/out/',
        dependsOn: [{ name: 'cert-manager', namespace: 'infra' }],
      },
    });
    expect(ks[0]).toEqual({
      apiVersion: 'kustomize.toolkit.fluxcd.io/v1',
      kind: 'Kustomization',
      metadata: { name: 'capi-mgmt-cluster-api', namespace: 'capi-gitops' },
      spec: {
        dependsOn: [{ name: 'cert-manager', namespace: 'infra' }],
        interval: '1h',
        path: './deploy/out/mgmt/cluster-api',
        prune: true,
        sourceRef: { kind: 'OCIRepository', name: 'capi', namespace: 'sources' },
        timeout: '15m',
        wait: true,
      },
    });
    expect(ks[1]!.spec.dependsOn).toEqual([{ name: 'capi-mgmt-cluster-api' }]);
  });

  it('turns folder names into valid object names and warns about names Flux cannot use as label values', () => {
    const env: RenderedEnvironment = {
      name: 'EU_West.1',
      components: [
        { name: 'cluster-api', objects: [] },
        { name: `infrastructure-${'x'.repeat(60)}`, objects: [] },
      ],
    };
    const result = applyGitopsFlavour(env, { flavour: 'flux' });
    const ks = parseSourceDocuments(result.extraFiles.get(KUSTOMIZATIONS('EU_West.1'))!, 'k').map(
      (d) => d.value as unknown as FluxKustomization,
    );
    expect(ks[0]!.metadata.name).toBe('capi-eu-west-1-cluster-api');
    expect(ks[0]!.spec.path).toBe('./rendered/EU_West.1/cluster-api');
    expect(result.warnings.map((w) => [w.code, w.object])).toEqual([
      ['gitops', `Kustomization/flux-system/${ks[1]!.metadata.name}`],
    ]);
  });
});

describe('Flux object annotations', () => {
  const input = fixtureEnvironment('mgmt', { certManager: true });
  const { environment, extraFiles, warnings } = applyGitopsFlavour(input, { flavour: 'flux' });
  const objects = environment.components.flatMap((c) => c.objects);

  it('disables pruning of every CRD and Namespace, and adds no Argo CD annotation', () => {
    const crdsAndNamespaces = objects.filter((o) => o.kind === 'CustomResourceDefinition' || o.kind === 'Namespace');
    expect(crdsAndNamespaces.length).toBeGreaterThan(35);
    for (const o of crdsAndNamespaces) expect(annotationsOf(o)[PRUNE], nameOf(o)).toBe('disabled');
    for (const o of objects)
      expect(Object.keys(annotationsOf(o)).filter((k) => k.startsWith('argocd.argoproj.io/'))).toEqual([]);
    expect(warnings).toEqual([]);
  });

  it('keeps every other object by identity', () => {
    input.components.forEach((c, i) =>
      c.objects.forEach((o: KubeObject, j) => {
        if (o.kind !== 'CustomResourceDefinition' && o.kind !== 'Namespace')
          expect(environment.components[i]!.objects[j]).toBe(o);
      }),
    );
  });

  it('without protection, changes nothing at all', () => {
    const result = applyGitopsFlavour(input, { flavour: 'flux', protect: { crds: false, namespaces: false } });
    result.environment.components.forEach((c, i) => expect(c).toBe(input.components[i]));
  });

  it('writes the Kustomizations outside every folder a kustomization.yaml of the output lists', () => {
    expect([...extraFiles.keys()]).toEqual([
      '../gitops/flux/mgmt/flux-kustomizations.yaml',
      '../gitops/flux/mgmt/kustomization.yaml',
    ]);
    expect(extraFiles.get('../gitops/flux/mgmt/kustomization.yaml')).toBe(
      'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- flux-kustomizations.yaml\n',
    );
    const planned = planEnvironment(environment);
    for (const [file, text] of planned)
      if (file.endsWith('kustomization.yaml')) expect(text, file).not.toMatch(/gitops|flux/);
  });
});
