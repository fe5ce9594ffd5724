/**
 * The baseline end to end (capi-render.yaml `emulate:`): the same repository built as clusterctl
 * v1.14 and as cluster-api-operator v0.28 (clusterctl v1.12.10), on the real core v1.12.0 and
 * cert-manager fixtures. Per-item checks are in test/unit/upstream-baseline.test.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { render, RenderError, SpecError } from 'capi-render';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { dumpItems, writeDump } from '../helpers/live-dump-files.js';

const OPERATOR = 'emulate: operator-v0.28\n';
const INVENTORY_CRD = /customresourcedefinition-providers\.clusterctl\.cluster\.x-k8s\.io\.yaml$/;

async function failure(repo: string): Promise<RenderError> {
  try {
    await render({ repoRoot: repo });
  } catch (e) {
    if (e instanceof RenderError) return e;
    throw e;
  }
  throw new Error('expected the build to fail');
}

describe('emulate: which peer is reproduced', () => {
  it('renders the same objects under both baselines but for the inventory CRD clusterctl v1.12.10 ships, and the lock records which', async () => {
    const clusterctl = await render({ repoRoot: makeRepo({ 'providers/core.yaml': CORE() }) });
    const operator = await render({
      repoRoot: makeRepo({ 'capi-render.yaml': configYaml(OPERATOR), 'providers/core.yaml': CORE() }),
    });
    expect(clusterctl.lock.emulates).toEqual({
      clusterctl: 'v1.14.0',
      contract: 'v1beta2',
      operatorApi: 'operator.cluster.x-k8s.io/v1alpha2',
    });
    expect(operator.lock.emulates).toEqual({
      clusterctl: 'v1.12.10',
      operator: 'v0.28.0',
      contract: 'v1beta2',
      operatorApi: 'operator.cluster.x-k8s.io/v1alpha2',
    });
    const differing = [...clusterctl.files.keys()].filter((f) => clusterctl.files.get(f) !== operator.files.get(f));
    expect(differing).toHaveLength(1);
    expect(differing[0]).toMatch(INVENTORY_CRD);
    const annotation = (text: string) =>
      (jsYaml.load(text) as { metadata: { annotations: Record<string, string> } }).metadata.annotations[
        'controller-gen.kubebuilder.io/version'
      ];
    expect([
      annotation(String(clusterctl.files.get(differing[0]!))),
      annotation(String(operator.files.get(differing[0]!))),
    ]).toEqual(['v0.21.0', 'v0.19.0']);
    expect([...operator.files.keys()].sort()).toEqual([...clusterctl.files.keys()].sort());
  });

  it("asks for the baseline's cert-manager default when certManager.version is unset", async () => {
    // The fixture repository holds cert-manager v1.13.2–v1.19.4, so either default is missing: the error names the version asked for.
    const noVersion = (extra: string) => configYaml(extra).replace('certManager:\n  version: v1.19.4\n', '');
    const newest = await failure(makeRepo({ 'capi-render.yaml': noVersion(''), 'providers/core.yaml': CORE() }));
    const operator = await failure(
      makeRepo({ 'capi-render.yaml': noVersion(OPERATOR), 'providers/core.yaml': CORE() }),
    );
    expect(newest.diagnostics.map((d) => d.message).join('\n')).toContain('v1.21.1');
    expect(operator.diagnostics.map((d) => d.message).join('\n')).toContain('v1.20.3');
    expect(operator.diagnostics.map((d) => d.message).join('\n')).not.toContain('v1.21.1');
  });

  it('certManager.externallyProvisioned (clusterctl v1.14, #13739) renders no cert-manager; the operator baseline refuses it', async () => {
    const setting = (extra: string) =>
      configYaml(extra).replace('  version: v1.19.4\n', '  externallyProvisioned: true\n');
    const r = await render({ repoRoot: makeRepo({ 'capi-render.yaml': setting(''), 'providers/core.yaml': CORE() }) });
    expect(r.environments[0]!.environment.components.map((c) => c.name)).toEqual(['cluster-api']);
    expect(r.lock.environments[0]!.providers.map((p) => p.provider)).not.toContain('cert-manager');
    const e = await failure(makeRepo({ 'capi-render.yaml': setting(OPERATOR), 'providers/core.yaml': CORE() }));
    expect(e).toBeInstanceOf(SpecError);
    expect(e.diagnostics[0]).toMatchObject({
      code: 'config',
      file: 'capi-render.yaml',
      line: 4,
      field: 'certManager.externallyProvisioned',
      message: expect.stringContaining("clusterctl v1.14's setting (cluster-api #13739)"),
    });
    expect(e.diagnostics[0]!.hint).toContain('certManager.install: false');
    // Set per environment, the error names the overlay.
    const overlay =
      'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\ncertManager:\n  externallyProvisioned: true\n';
    const inOverlay = await failure(
      makeRepo({
        'capi-render.yaml': configYaml(OPERATOR),
        'providers/core.yaml': CORE(),
        'overlays/mgmt/overlay.yaml': overlay,
      }),
    );
    expect(inOverlay.diagnostics[0]).toMatchObject({
      code: 'config',
      file: 'overlays/mgmt/overlay.yaml',
      field: 'certManager.externallyProvisioned',
    });
  });

  it('images.<x>.name renames under clusterctl v1.14 (#13014) and is an error under the operator, whose clusterctl v1.12.10 would drop it', async () => {
    const images = 'images:\n  cluster-api:\n    name: mirrored-cluster-api-controller\n';
    const r = await render({
      repoRoot: makeRepo({ 'capi-render.yaml': configYaml(images), 'providers/core.yaml': CORE() }),
    });
    const deployment = [...r.files.entries()].find(([f]) =>
      /cluster-api\/deployment-capi-controller-manager\.yaml$/.test(f),
    )![1];
    expect(String(deployment)).toContain('image: registry.k8s.io/cluster-api/mirrored-cluster-api-controller:v1.12.0');
    const e = await failure(
      makeRepo({ 'capi-render.yaml': configYaml(OPERATOR + images), 'providers/core.yaml': CORE() }),
    );
    expect(e.diagnostics).toEqual([
      expect.objectContaining({
        code: 'image',
        file: 'capi-render.yaml',
        field: 'images.cluster-api.name',
        message: expect.stringContaining('cluster-api #13014'),
      }),
    ]);
  });

  it("import compares the cluster's cert-manager with the baseline's default", async () => {
    const small = dumpItems('clusterctl-v1.12.0').filter(
      (o) => o.kind === 'Provider' || (o.kind === 'Deployment' && o.metadata.namespace === 'cert-manager'),
    );
    const warningOf = async (extra: string) => {
      const repo = makeRepo({
        'capi-render.yaml': configYaml(extra).replace('certManager:\n  version: v1.19.4\n', ''),
      });
      const r = await runCli(['import', '--from', writeDump(repo, 'dump.yaml', small), '--repo', repo], {
        cwd: repo,
        env: { CAPI_RENDER_CACHE_DIR: path.join(repo, '.cache') },
      });
      expect(r.code, r.stderr).toBe(0);
      return r.stderr;
    };
    expect(await warningOf('')).toContain(
      'the cluster runs cert-manager v1.19.4 (cert-manager.clusterctl.cluster.x-k8s.io/version on Deployment cert-manager/cert-manager); capi-render.yaml renders the default v1.21.1',
    );
    expect(await warningOf(OPERATOR)).toContain('capi-render.yaml renders the default v1.20.3');
  });

  it('changing the baseline re-renders a built repository and the lock says so; check then passes', async () => {
    const repo = makeRepo({ 'providers/core.yaml': CORE() });
    expect((await runCli(['build'], { cwd: repo })).code).toBe(0);
    const config = path.join(repo, 'capi-render.yaml');
    writeFileSync(config, configYaml(OPERATOR));
    const stale = await runCli(['check'], { cwd: repo });
    expect(stale.code).toBe(1);
    expect(stale.stdout + stale.stderr).toContain(
      'emulates clusterctl v1.14.0 → cluster-api-operator v0.28.0 (clusterctl v1.12.10) (capi-render.yaml emulate:)',
    );
    const build = await runCli(['build'], { cwd: repo });
    expect(build.code, build.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toContain(
      'emulates:\n  contract: v1beta2\n  clusterctl: v1.12.10\n  operator: v0.28.0\n',
    );
    const check = await runCli(['check'], { cwd: repo });
    expect(check.code, check.stderr + check.stdout).toBe(0);
  });
});
