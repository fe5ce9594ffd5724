/** cert-manager as its own component, rendered the way clusterctl init installs it. */
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { type KubeObject, render } from 'capi-render';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';

describe('cert-manager component', () => {
  it('renders cert-manager first, labelled and annotated like clusterctl, leaving its namespaces alone', async () => {
    const repo = makeRepo({ 'providers/core.yaml': CORE() });
    const result = await render({ repoRoot: repo });
    const env = result.environments[0]!;
    expect(env.environment.components.map((c) => c.name)).toEqual(['cert-manager', 'cluster-api']);
    const objects = env.environment.components[0]!.objects as KubeObject[];
    expect(objects.length).toBe(49);
    for (const o of objects) {
      const meta = o.metadata as {
        labels: Record<string, string>;
        annotations: Record<string, string>;
        namespace?: string;
      };
      expect(meta.labels['clusterctl.cluster.x-k8s.io/core']).toBe('cert-manager');
      expect(meta.labels['clusterctl.cluster.x-k8s.io']).toBe('');
      expect(meta.annotations['cert-manager.clusterctl.cluster.x-k8s.io/version']).toBe('v1.19.4');
    }
    const namespaces = [
      ...new Set(objects.map((o) => (o.metadata as { namespace?: string }).namespace).filter(Boolean)),
    ].sort();
    expect(namespaces).toEqual(['cert-manager', 'kube-system']);
    expect(result.files.get('default/kustomization.yaml')).toContain('resources:\n- cert-manager\n- cluster-api\n');
    expect(result.lock.environments[0]!.providers.find((p) => p.provider === 'cert-manager')).toMatchObject({
      version: 'v1.19.4',
      requested: 'v1.19.4',
    });
  });

  it('keeps its version fixed in the lock while providers move', async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml().replace('version: v1.19.4', 'version: ~1.16'),
      'providers/core.yaml': CORE('v1.11.0'),
    });
    const result = await render({ repoRoot: repo });
    expect(result.environments[0]!.certManager!.version).toBe('v1.16.1');
  });

  it('bring-your-own: install: false renders no cert-manager and warns that providers need its CRDs', async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml().replace('version: v1.19.4', 'install: false'),
      'providers/core.yaml': CORE(),
    });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/warning\[preflight\].*cert-manager\.io CRDs that cluster-api use/);
    expect(existsSync(path.join(repo, 'rendered/default/cert-manager'))).toBe(false);
    expect(readFileSync(path.join(repo, 'rendered/default/kustomization.yaml'), 'utf8')).not.toContain('cert-manager');
    const all = readFileSync(path.join(repo, 'capi-render.lock'), 'utf8');
    expect(jsYaml.load(all)).not.toMatchObject({
      environments: [{ providers: expect.arrayContaining([expect.objectContaining({ provider: 'cert-manager' })]) }],
    });
  });
});
