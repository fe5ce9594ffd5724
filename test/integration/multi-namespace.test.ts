/** The same provider in several namespaces of one management cluster. */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import type { KubeObject } from 'capi-render';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';

const capd = (namespace: string, version = 'v1.12.0', watch: string | undefined = `tenant-${namespace}`) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: docker\n  namespace: ${namespace}\nspec:\n  version: ${version}\n${watch ? `  manager:\n    cacheNamespace: ${watch}\n` : ''}`;

describe('multi-namespace installs', () => {
  it('renders shared objects once and each instance scoped to its namespace', async () => {
    const repo = makeRepo({
      'providers/core.yaml': CORE(),
      'providers/capd-a.yaml': capd('capd-a'),
      'providers/capd-b.yaml': capd('capd-b'),
    });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    const dir = (c: string) => path.join(repo, 'rendered/default', c);
    const load = (c: string) =>
      readdirSync(dir(c))
        .filter((f) => f !== 'kustomization.yaml')
        .map((f) => jsYaml.load(readFileSync(path.join(dir(c), f), 'utf8')) as KubeObject);
    const first = load('infrastructure-docker');
    const second = load('infrastructure-docker.capd-b');
    expect(first.filter((o) => o.kind === 'CustomResourceDefinition').length).toBe(10);
    expect(
      second.filter((o) =>
        [
          'CustomResourceDefinition',
          'ClusterRole',
          'ValidatingWebhookConfiguration',
          'MutatingWebhookConfiguration',
        ].includes(o.kind),
      ),
    ).toEqual([]);
    expect(
      second.filter((o) => o.kind === 'ClusterRoleBinding').map((o) => (o.metadata as { name: string }).name),
    ).toEqual(['capd-b-capd-manager-rolebinding']);
    expect(second.filter((o) => o.kind === 'Namespace').map((o) => (o.metadata as { name: string }).name)).toEqual([
      'capd-b',
    ]);
    const args = (objs: KubeObject[]) =>
      (
        objs.find((o) => o.kind === 'Deployment') as unknown as {
          spec: { template: { spec: { containers: { args: string[] }[] } } };
        }
      ).spec.template.spec.containers[0]!.args;
    expect(args(first)).toContain('--namespace=tenant-capd-a');
    expect(args(second)).toContain('--namespace=tenant-capd-b');
    // kustomize (Argo CD, Flux) accepts the whole environment: no object is declared twice.
    const built = (
      jsYaml.loadAll(
        execFileSync('kubectl', ['kustomize', path.join(repo, 'rendered/default')], {
          encoding: 'utf8',
          maxBuffer: 256 << 20,
        }),
      ) as KubeObject[]
    ).filter(Boolean);
    expect(
      built
        .filter((o) => o.kind === 'Provider' && o.providerName === 'docker')
        .map((o) => (o.metadata as { namespace: string }).namespace)
        .sort(),
    ).toEqual(['capd-a', 'capd-b']);
  });

  it.each([
    {
      name: 'different versions',
      files: { 'providers/capd-a.yaml': capd('capd-a'), 'providers/capd-b.yaml': capd('capd-b', 'v1.11.0') },
      text: /InfrastructureProvider\/capd-a\/docker is v1\.12\.0 but InfrastructureProvider\/capd-b\/docker is v1\.11\.0/,
    },
    {
      name: 'overlapping watch namespaces',
      files: {
        'providers/capd-a.yaml': capd('capd-a', 'v1.12.0', 'shared'),
        'providers/capd-b.yaml': capd('capd-b', 'v1.12.0', 'shared'),
      },
      text: /both watch namespace shared/,
    },
    {
      name: 'an instance watching everything',
      files: { 'providers/capd-a.yaml': capd('capd-a'), 'providers/capd-b.yaml': capd('capd-b', 'v1.12.0', '') },
      text: /several instances need each to watch only its own namespace/,
    },
  ])('refuses $name', async ({ files, text }) => {
    const repo = makeRepo({ 'providers/core.yaml': CORE(), ...files });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[multi-namespace]');
    expect(r.stderr).toMatch(text);
  });
});

/** k0smotron's bootstrap, control-plane and infrastructure releases (real, built from v2.1.0) all install into `k0smotron`. */
const k0smotron = (kind: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata:\n  name: k0sproject-k0smotron\n  namespace: k0smotron\nspec:\n  version: v2.1.0\n`;
const K0SMOTRON = {
  'providers/core.yaml': CORE(),
  'providers/k0smotron.yaml': ['BootstrapProvider', 'ControlPlaneProvider', 'InfrastructureProvider']
    .map(k0smotron)
    .join('---\n'),
};

describe('several providers in one namespace', () => {
  const namespacesIn = (repo: string, c: string) => {
    const dir = path.join(repo, 'rendered/default', c);
    return readdirSync(dir)
      .filter((f) => f !== 'kustomization.yaml')
      .map((f) => jsYaml.load(readFileSync(path.join(dir, f), 'utf8')) as KubeObject)
      .filter((o) => o.kind === 'Namespace')
      .map((o) => (o.metadata as { name: string }).name);
  };

  it('declares the shared Namespace once, in the first provider in install order, and kustomize builds the environment', async () => {
    const repo = makeRepo(K0SMOTRON);
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    expect(namespacesIn(repo, 'bootstrap-k0sproject-k0smotron')).toEqual(['k0smotron']);
    expect(namespacesIn(repo, 'control-plane-k0sproject-k0smotron')).toEqual([]);
    expect(namespacesIn(repo, 'infrastructure-k0sproject-k0smotron')).toEqual([]);
    const built = (
      jsYaml.loadAll(
        execFileSync('kubectl', ['kustomize', path.join(repo, 'rendered/default')], {
          encoding: 'utf8',
          maxBuffer: 256 << 20,
        }),
      ) as KubeObject[]
    ).filter(Boolean);
    expect(
      built.filter((o) => o.kind === 'Namespace' && (o.metadata as { name: string }).name === 'k0smotron'),
    ).toHaveLength(1);
    expect(
      built.filter((o) => o.kind === 'Deployment' && (o.metadata as { namespace: string }).namespace === 'k0smotron'),
    ).toHaveLength(3);
    expect(
      built
        .filter((o) => o.kind === 'Provider' && (o.metadata as { namespace: string }).namespace === 'k0smotron')
        .map((o) => o.type)
        .sort(),
    ).toEqual(['BootstrapProvider', 'ControlPlaneProvider', 'InfrastructureProvider']);
  });

  it('with Flux, the providers that share the namespace wait for the Kustomization that creates it', async () => {
    const repo = makeRepo({ ...K0SMOTRON, 'capi-render.yaml': configYaml('gitops:\n  flavour: flux\n') });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    const ks = jsYaml.loadAll(
      readFileSync(path.join(repo, 'gitops/flux/default/flux-kustomizations.yaml'), 'utf8'),
    ) as { metadata: { name: string }; spec: { dependsOn?: { name: string }[] } }[];
    const deps = Object.fromEntries(ks.map((k) => [k.metadata.name, (k.spec.dependsOn ?? []).map((d) => d.name)]));
    expect(deps['capi-default-bootstrap-k0sproject-k0smotron']).toEqual([
      'capi-default-cert-manager',
      'capi-default-cluster-api',
    ]);
    for (const c of ['control-plane', 'infrastructure']) {
      expect(deps[`capi-default-${c}-k0sproject-k0smotron`]).toEqual([
        'capi-default-cert-manager',
        'capi-default-cluster-api',
        'capi-default-bootstrap-k0sproject-k0smotron',
      ]);
    }
  });
});
