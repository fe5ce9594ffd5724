/**
 * Versions, GitHub releases, the lock and the cache, end to end through the CLI against a local
 * server that answers like GitHub's REST API and serves the real release artifacts.
 */
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseLock } from 'capi-render';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import { FIXTURES } from '../helpers/fixtures.js';

const provider = (kind: string, name: string, namespace: string, version: string, extra = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  version: "${version}"\n${extra}`;

async function fake(): Promise<FakeGitHub> {
  const gh = await startFakeGitHub();
  onTestFinished(() => gh.close().catch(() => undefined));
  return gh;
}

function githubRepo(
  gh: FakeGitHub,
  versions: { core: string; bootstrap?: string; controlPlane?: string; docker?: string },
): string {
  const files: Record<string, string> = {
    'capi-render.yaml': `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\ngithub:\n  apiUrl: ${gh.baseUrl}\n`,
    'providers/core.yaml': provider('CoreProvider', 'cluster-api', 'capi-system', versions.core),
  };
  if (versions.bootstrap !== undefined)
    files['providers/bootstrap.yaml'] = provider(
      'BootstrapProvider',
      'kubeadm',
      'capi-kubeadm-bootstrap-system',
      versions.bootstrap,
    );
  if (versions.controlPlane !== undefined)
    files['providers/cp.yaml'] = provider(
      'ControlPlaneProvider',
      'kubeadm',
      'capi-kubeadm-control-plane-system',
      versions.controlPlane,
    );
  if (versions.docker !== undefined)
    files['providers/docker.yaml'] = provider('InfrastructureProvider', 'docker', 'capd-system', versions.docker);
  return makeRepo(files);
}

const lockOf = (repo: string) => parseLock(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8'));
const versionsOf = (repo: string) =>
  Object.fromEntries(
    lockOf(repo)
      .environments[0]!.providers.filter((p) => p.provider !== 'cert-manager')
      .map((p) => [p.provider.split('/')[0], p.version]),
  );

describe('resolution against GitHub releases (real metadata.yaml v1.4 … v1.12)', () => {
  it.each([
    {
      name: 'exact versions',
      versions: { core: 'v1.10.4', bootstrap: 'v1.10.4' },
      expected: { CoreProvider: 'v1.10.4', BootstrapProvider: 'v1.10.4' },
    },
    {
      name: 'latest (empty spec.version)',
      versions: { core: '', bootstrap: 'latest', docker: '' },
      expected: { CoreProvider: 'v1.12.0', BootstrapProvider: 'v1.12.0', InfrastructureProvider: 'v1.12.0' },
    },
    {
      name: 'ranges',
      versions: { core: '~1.11', controlPlane: '>=1.10 <1.12' },
      expected: { CoreProvider: 'v1.11.0', ControlPlaneProvider: 'v1.11.0' },
    },
    { name: 'an x-range', versions: { core: '1.8.x' }, expected: { CoreProvider: 'v1.8.0' } },
    // The core provider on v1beta1 (v1.10) makes `latest` aim for the newest v1beta1 series, as
    // clusterctl's latestContractRelease does for an older contract.
    {
      name: 'latest constrained by a v1beta1 core',
      versions: { core: 'v1.10.4', bootstrap: '' },
      expected: { CoreProvider: 'v1.10.4', BootstrapProvider: 'v1.10.4' },
    },
    {
      name: 'a range constrained by the core contract',
      versions: { core: 'v1.10.4', docker: '>=1.10' },
      expected: { CoreProvider: 'v1.10.4', InfrastructureProvider: 'v1.10.4' },
    },
  ])('$name', async ({ versions, expected }) => {
    const gh = await fake();
    const repo = githubRepo(gh, versions);
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code, r.stderr).toBe(0);
    expect(versionsOf(repo)).toEqual(expected);
    const lock = lockOf(repo);
    expect(lock.environments[0]!.providers.find((p) => p.provider.startsWith('CoreProvider'))!.source).toBe(
      'github:kubernetes-sigs/cluster-api',
    );
    for (const a of lock.artifacts)
      expect(a.url).toMatch(
        /^https:\/\/github\.com\/(kubernetes-sigs\/cluster-api|cert-manager\/cert-manager)\/releases\/download\/v[\d.]+\/[a-z-]+\.yaml$/,
      );
  });

  it('an unsatisfiable contract set is one error naming provider, versions and contracts', async () => {
    const gh = await fake();
    const repo = githubRepo(gh, { core: 'v1.10.4', bootstrap: 'v1.12.0' });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[contract]');
    expect(r.stderr).toMatch(
      /BootstrapProvider\/capi-kubeadm-bootstrap-system\/kubeadm v1\.12\.0 implements contract v1beta2.*cluster-api v1\.10\.4 implements v1beta1/,
    );
  });

  it('a range no release fits names what was tried', async () => {
    const gh = await fake();
    const repo = githubRepo(gh, { core: 'v1.10.4', docker: '>=1.11' });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error\[contract\].*v1\.12\.0 \(contract v1beta2, needs v1beta1\); v1\.11\.0 \(contract v1beta2, needs v1beta1\)/,
    );
  });
});

describe('fetchConfig.url forms', () => {
  it.each([
    {
      name: "the operator docs' short form …/releases",
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases',
      version: 'v1.11.0',
      expected: 'v1.11.0',
    },
    {
      name: "clusterctl's full form with a tag (the tag is the default version)",
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases/v1.10.4/core-components.yaml',
      version: '',
      expected: 'v1.10.4',
    },
    {
      name: 'the browser download form',
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.8.0/core-components.yaml',
      version: '',
      expected: 'v1.8.0',
    },
    {
      name: 'a latest URL resolved with clusterctl rules',
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml',
      version: '',
      expected: 'v1.12.0',
    },
  ])('$name', async ({ url, version, expected }) => {
    const gh = await fake();
    const repo = githubRepo(gh, { core: version });
    writeFileSync(
      path.join(repo, 'providers/core.yaml'),
      provider('CoreProvider', 'cluster-api', 'capi-system', version, `  fetchConfig:\n    url: ${url}\n`),
    );
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code, r.stderr).toBe(0);
    expect(versionsOf(repo)).toEqual({ CoreProvider: expected });
  });
});

describe('the lock and the cache', () => {
  it('refuses a minor downgrade against the installed version: the committed output, the lock where nothing is committed (patch downgrades and --allow-downgrade pass)', async () => {
    const gh = await fake();
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    const repo = githubRepo(gh, { core: 'v1.11.0' });
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    writeFileSync(
      path.join(repo, 'providers/core.yaml'),
      provider('CoreProvider', 'cluster-api', 'capi-system', 'v1.10.4'),
    );
    const r = await runCli(['build'], { cwd: repo, env });
    expect(r.code).toBe(1);
    const refusal =
      /error\[preflight\]: cluster-api-operator: "Downgrade is not supported for provider cluster-api"; CoreProvider\/capi-system\/cluster-api: the committed output \(rendered\/default\/cluster-api\/provider-cluster-api\.yaml\) has v1\.11\.0, the spec now resolves to v1\.10\.4/;
    expect(r.stderr).toMatch(refusal);
    // The installed version is read from what is committed, not from a lock field: deleting the
    // environment's lock entry (or the whole lock) does not turn the refusal into a downgrade.
    const lock = readFileSync(path.join(repo, 'capi-render.lock'), 'utf8');
    for (const edited of [
      lock.replace(/environments:\n[\s\S]*?\nartifacts:/, 'environments: []\nartifacts:'),
      undefined,
    ]) {
      if (edited === undefined) rmSync(path.join(repo, 'capi-render.lock'));
      else writeFileSync(path.join(repo, 'capi-render.lock'), edited);
      const again = await runCli(['build'], { cwd: repo, env });
      expect(again.code, again.stderr).toBe(1);
      expect(again.stderr).toMatch(refusal);
    }
    writeFileSync(path.join(repo, 'capi-render.lock'), lock);
    // Where nothing is committed, the lock is the only record of what runs.
    rmSync(path.join(repo, 'rendered'), { recursive: true });
    const fromLock = await runCli(['build'], { cwd: repo, env });
    expect(fromLock.code).toBe(1);
    expect(fromLock.stderr).toMatch(
      /CoreProvider\/capi-system\/cluster-api: capi-render\.lock has v1\.11\.0, the spec now resolves to v1\.10\.4/,
    );
    expect((await runCli(['build', '--allow-downgrade'], { cwd: repo, env })).code).toBe(0);
  });

  it('is created, reused without network, updated when a spec changes, and enforced by --frozen', async () => {
    const gh = await fake();
    const cache = tempDir();
    const env = { CAPI_RENDER_CACHE_DIR: cache };
    const repo = githubRepo(gh, { core: '~1.11', bootstrap: 'v1.11.0' });
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    const first = readFileSync(path.join(repo, 'capi-render.lock'), 'utf8');
    const rendered = snapshotTree(path.join(repo, 'rendered'));
    const requestsAfterFirst = gh.requests.length;

    // Reuse: nothing changed, so nothing is listed or downloaded — the lock and cache suffice.
    const again = await runCli(['build'], { cwd: repo, env });
    expect(again.code, again.stderr).toBe(0);
    expect(gh.requests.length).toBe(requestsAfterFirst);
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toBe(first);

    // --frozen refuses a spec change and writes nothing.
    writeFileSync(
      path.join(repo, 'providers/core.yaml'),
      provider('CoreProvider', 'cluster-api', 'capi-system', '~1.12'),
    );
    writeFileSync(
      path.join(repo, 'providers/bootstrap.yaml'),
      provider('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', 'v1.12.0'),
    );
    const frozen = await runCli(['build', '--frozen'], { cwd: repo, env });
    expect(frozen.code).toBe(1);
    expect(frozen.stderr).toContain('error[frozen]');
    expect(frozen.stderr).toContain('CoreProvider/capi-system/cluster-api v1.11.0 → v1.12.0');
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toBe(first);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(rendered);

    // Without --frozen the lock follows the spec.
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    expect(versionsOf(repo)).toEqual({ CoreProvider: 'v1.12.0', BootstrapProvider: 'v1.12.0' });
  });

  it('a downloaded artifact whose digest differs from the lock is a hard error', async () => {
    const gh = await fake();
    const repo = githubRepo(gh, { core: 'v1.12.0' });
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } })).code).toBe(0);
    const before = snapshotTree(path.join(repo, 'rendered'));
    // Simulate an upstream re-tag: the lock pinned other bytes than the release now serves.
    const lockPath = path.join(repo, 'capi-render.lock');
    writeFileSync(
      lockPath,
      readFileSync(lockPath, 'utf8').replace(/sha256: c6ffefca[0-9a-f]+/, `sha256: ${'f'.repeat(64)}`),
    );
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[digest-mismatch]');
    expect(r.stderr).toContain('core-components.yaml');
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(before);
  });

  it('--offline builds from the cache with the server gone, and fails naming what a cold cache lacks', async () => {
    const gh = await fake();
    const cache = tempDir();
    const repo = githubRepo(gh, { core: '', docker: 'v1.12.0' });
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    const rendered = snapshotTree(path.join(repo, 'rendered'));
    await gh.close();
    rmSync(path.join(repo, 'rendered'), { recursive: true });
    const offline = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(offline.code, offline.stderr).toBe(0);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(rendered);

    // A no-op build needs nothing at all; a real render with a cold cache needs the network.
    rmSync(path.join(repo, 'rendered'), { recursive: true });
    const cold = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(cold.code).toBe(1);
    expect(cold.stderr).toContain('error[offline]');
    expect(cold.stderr).toMatch(
      /(metadata|core-components)\.yaml of GitHub releases of kubernetes-sigs\/cluster-api v1\.12\.0 is not in the cache/,
    );
  });

  it('persistent rate limiting fails clearly and writes nothing', async () => {
    const gh = await fake();
    const repo = githubRepo(gh, { core: 'v1.12.0' });
    gh.failNext('rate-limit', 1000, { resetInSeconds: 3600 });
    const r = await runCli(['build'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: tempDir(), GITHUB_TOKEN: 'ghp_secret_token_value' },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[rate-limit]');
    expect(r.stderr).toMatch(/GITHUB_TOKEN/);
    expect(r.stderr).not.toContain('ghp_secret_token_value');
    expect(snapshotTree(repo)['capi-render.lock']).toBeUndefined();
    expect(Object.keys(snapshotTree(path.join(repo, 'rendered')))).toEqual([]);
  });

  it('two machines (two cache folders) produce the same lock and output', async () => {
    const gh = await fake();
    const results = [];
    for (let i = 0; i < 2; i++) {
      const repo = githubRepo(gh, { core: '~1.12', bootstrap: '', controlPlane: 'latest', docker: '1.12.x' });
      expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } })).code).toBe(0);
      results.push(snapshotTree(repo));
    }
    const strip = (t: Record<string, string>) =>
      Object.fromEntries(Object.entries(t).filter(([k]) => k === 'capi-render.lock' || k.startsWith('rendered/')));
    expect(strip(results[1]!)).toEqual(strip(results[0]!));
  });
});

describe('mirror', () => {
  it.each(['repository', 'configmaps'])(
    '--format %s round-trips: building from the mirror renders the same objects',
    async (format) => {
      const gh = await fake();
      const repo = githubRepo(gh, {
        core: 'v1.12.0',
        bootstrap: 'v1.12.0',
        controlPlane: 'v1.12.0',
        docker: 'v1.12.0',
      });
      const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
      expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
      const mirror = tempDir();
      const m = await runCli(['mirror', '--to', mirror, '--format', format, '--offline'], { cwd: repo, env });
      expect(m.code, m.stderr).toBe(0);
      await gh.close();

      const files: Record<string, string> = {};
      if (format === 'repository') {
        files['capi-render.yaml'] =
          `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\nrepositories:\n  - path: ${mirror}\n`;
        for (const f of ['core.yaml', 'bootstrap.yaml', 'cp.yaml', 'docker.yaml'])
          files[`providers/${f}`] = readFileSync(path.join(repo, 'providers', f), 'utf8');
      } else {
        // The operator's ConfigMaps carry providers only; cert-manager comes from the bundled local repository.
        files['capi-render.yaml'] =
          `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\nrepositories:\n  - path: ${FIXTURES}repository\n`;
        const selector = (name: string, type: string) =>
          `  fetchConfig:\n    selector:\n      matchLabels:\n        provider.cluster.x-k8s.io/name: ${name}\n        provider.cluster.x-k8s.io/type: ${type}\n`;
        files['providers/core.yaml'] = provider(
          'CoreProvider',
          'cluster-api',
          'capi-system',
          'v1.12.0',
          selector('cluster-api', 'core'),
        );
        files['providers/bootstrap.yaml'] = provider(
          'BootstrapProvider',
          'kubeadm',
          'capi-kubeadm-bootstrap-system',
          'v1.12.0',
          selector('kubeadm', 'bootstrap'),
        );
        files['providers/cp.yaml'] = provider(
          'ControlPlaneProvider',
          'kubeadm',
          'capi-kubeadm-control-plane-system',
          'v1.12.0',
          selector('kubeadm', 'control-plane'),
        );
        files['providers/docker.yaml'] = provider(
          'InfrastructureProvider',
          'docker',
          'capd-system',
          'v1.12.0',
          selector('docker', 'infrastructure'),
        );
        for (const [rel, text] of Object.entries(snapshotTextTree(mirror))) files[`providers/sources/${rel}`] = text;
      }
      const copy = makeRepo(files);
      const b = await runCli(['build', '--offline'], { cwd: copy, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(b.code, b.stderr).toBe(0);
      expect(snapshotTree(path.join(copy, 'rendered'))).toEqual(snapshotTree(path.join(repo, 'rendered')));
    },
  );
});

function snapshotTextTree(dir: string): Record<string, string> {
  return Object.fromEntries(
    Object.keys(snapshotTree(dir)).map((rel) => [rel, readFileSync(path.join(dir, rel), 'utf8')]),
  );
}
