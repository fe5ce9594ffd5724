/**
 * `capi-render plan` end to end: a repository whose providers come from the fake GitHub API serving
 * the real cluster-api releases v1.4.2 … v1.12.0 (and their metadata.yaml).
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import type { PlanDocument } from '../../src/upgrade/format-plan.js';
import { createReleaseIndexCache } from '../../src/source/release-index-cache.js';

const provider = (kind: string, name: string, namespace: string, version: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  version: ${version}\n`;

async function fake(): Promise<FakeGitHub> {
  const gh = await startFakeGitHub();
  onTestFinished(() => gh.close().catch(() => undefined));
  return gh;
}

function kubeadmRepo(gh: FakeGitHub, version: string): string {
  return makeRepo({
    'capi-render.yaml': `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\ngithub:\n  apiUrl: ${gh.baseUrl}\n`,
    'providers/core.yaml': provider('CoreProvider', 'cluster-api', 'capi-system', version),
    'providers/kubeadm.yaml': `${provider('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', version)}---\n${provider('ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system', version)}`,
  });
}

describe('capi-render plan against GitHub releases', () => {
  it('core and kubeadm on v1.10.4 (v1beta1): up to date for v1beta1, v1.12.0 for v1beta2, kubeadm needs the core first', async () => {
    const gh = await fake();
    const repo = kubeadmRepo(gh, 'v1.10.4');
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    const before = gh.requests.length;
    const r = await runCli(['plan'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      [
        'Environment default: core provider CoreProvider/capi-system/cluster-api v1.10.4 implements v1beta1',
        '',
        'NAME                   NAMESPACE                          VERSION  CONTRACT  LATEST PATCH  SAME CONTRACT  NEWEST',
        'cert-manager           cert-manager                       v1.19.4  -         -             -              -',
        'cluster-api            capi-system                        v1.10.4  v1beta1   -             -              v1.12.0 (v1beta2)',
        'bootstrap-kubeadm      capi-kubeadm-bootstrap-system      v1.10.4  v1beta1   -             -              v1.12.0 (v1beta2, core must move first)',
        'control-plane-kubeadm  capi-kubeadm-control-plane-system  v1.10.4  v1beta1   -             -              v1.12.0 (v1beta2, core must move first)',
        '',
        'Contract v1beta1 (current): up to date',
        '',
        'Contract v1beta2: available',
        '  NAME                   NAMESPACE                          CURRENT  NEXT',
        '  cluster-api            capi-system                        v1.10.4  v1.12.0',
        '  bootstrap-kubeadm      capi-kubeadm-bootstrap-system      v1.10.4  v1.12.0',
        '  control-plane-kubeadm  capi-kubeadm-control-plane-system  v1.10.4  v1.12.0',
        '  apply with: capi-render upgrade --contract v1beta2',
        '',
      ].join('\n'),
    );
    // The three providers share one source: it is listed once, and only the newest release's
    // metadata.yaml is read (clusterctl's getUpgradeInfo); the pinned artifacts come from the cache.
    const during = gh.requests.slice(before);
    // cert-manager's releases are listed too (it has no metadata.yaml to read).
    expect(during.filter((q) => q.route === 'list').map((q) => q.url)).toEqual([
      '/repos/kubernetes-sigs/cluster-api/releases?per_page=100',
      '/repos/cert-manager/cert-manager/releases?per_page=100',
    ]);
    expect(during.filter((q) => q.route === 'release').map((q) => q.url)).toEqual([
      '/repos/kubernetes-sigs/cluster-api/releases/tags/v1.12.0',
    ]);
  });

  it('--json has the documented shape', async () => {
    const gh = await fake();
    const repo = kubeadmRepo(gh, 'v1.10.4');
    const r = await runCli(['plan', '--json'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code, r.stderr).toBe(0);
    const doc = JSON.parse(r.stdout) as PlanDocument;
    expect(Object.keys(doc)).toEqual(['apiVersion', 'kind', 'environments']);
    expect(doc).toMatchObject({ apiVersion: 'capi-render/v1alpha1', kind: 'UpgradePlan' });
    const [env] = doc.environments;
    expect(Object.keys(env!)).toEqual(['environment', 'core', 'providers', 'certManager', 'contracts', 'images']);
    expect(env!.certManager).toEqual({
      version: 'v1.19.4',
      requested: 'v1.19.4',
      clusterctlDefault: 'v1.21.1',
      latestPatch: null,
      newest: null,
      versions: { source: 'live', fetchedAt: null, note: null },
    });
    expect(env!.core).toEqual({
      provider: 'CoreProvider/capi-system/cluster-api',
      version: 'v1.10.4',
      contract: 'v1beta1',
    });
    expect(env!.providers[1]).toEqual({
      provider: 'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm',
      kind: 'BootstrapProvider',
      name: 'kubeadm',
      namespace: 'capi-kubeadm-bootstrap-system',
      label: 'bootstrap-kubeadm',
      version: 'v1.10.4',
      contract: 'v1beta1',
      latestPatch: null,
      sameContract: null,
      newest: { version: 'v1.12.0', contract: 'v1beta2', coreFirst: true },
      versions: { source: 'live', fetchedAt: null, note: null },
    });
    expect(env!.contracts.map((c) => Object.keys(c))).toEqual([
      ['contract', 'current', 'status', 'steps', 'blockers', 'command'],
      ['contract', 'current', 'status', 'steps', 'blockers', 'command'],
    ]);
    expect(env!.contracts.map((c) => [c.contract, c.current, c.status, c.command])).toEqual([
      ['v1beta1', true, 'up-to-date', null],
      ['v1beta2', false, 'available', 'capi-render upgrade --contract v1beta2'],
    ]);
    expect(env!.contracts[1]!.steps[0]).toEqual({
      provider: 'CoreProvider/capi-system/cluster-api',
      label: 'cluster-api',
      namespace: 'capi-system',
      from: 'v1.10.4',
      to: 'v1.12.0',
      contract: 'v1beta2',
    });
  });

  it('v1.11.0 → v1.12.0 within the v1beta2 contract', async () => {
    const gh = await fake();
    const repo = kubeadmRepo(gh, 'v1.11.0');
    const r = await runCli(['plan', '--json'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code, r.stderr).toBe(0);
    const [env] = (JSON.parse(r.stdout) as PlanDocument).environments;
    expect(env!.providers.map((p) => [p.label, p.version, p.contract, p.sameContract])).toEqual([
      ['cluster-api', 'v1.11.0', 'v1beta2', 'v1.12.0'],
      ['bootstrap-kubeadm', 'v1.11.0', 'v1beta2', 'v1.12.0'],
      ['control-plane-kubeadm', 'v1.11.0', 'v1beta2', 'v1.12.0'],
    ]);
    expect(env!.contracts.map((c) => [c.contract, c.status, c.steps.map((s) => s.to)])).toEqual([
      ['v1beta2', 'available', ['v1.12.0', 'v1.12.0', 'v1.12.0']],
    ]);
  });

  it('from v1.7.7 nothing is blocked: clusterctl applies the 3-minor skip rule only from 1.10.0 on', async () => {
    const gh = await fake();
    const repo = kubeadmRepo(gh, 'v1.7.7');
    const r = await runCli(['plan', '--json'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code, r.stderr).toBe(0);
    const [env] = (JSON.parse(r.stdout) as PlanDocument).environments;
    expect(env!.providers.map((p) => p.latestPatch)).toEqual([null, null, null]);
    expect(env!.contracts.map((c) => [c.contract, c.status, c.steps.map((s) => s.to), c.blockers])).toEqual([
      ['v1beta1', 'available', ['v1.10.4', 'v1.10.4', 'v1.10.4'], []],
      ['v1beta2', 'available', ['v1.12.0', 'v1.12.0', 'v1.12.0'], []],
    ]);
  });

  it('--offline without a release list saved by an earlier online run is a clear error', async () => {
    const gh = await fake();
    const repo = kubeadmRepo(gh, 'v1.11.0');
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    // Exact versions: the build pins and caches the artifacts but never lists the releases.
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    const r = await runCli(['plan', '--offline'], { cwd: repo, env });
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toContain(
      'error[offline]: --offline: no release list of GitHub releases of kubernetes-sigs/cluster-api was saved by an earlier online run',
    );
    expect(r.stderr).toContain('hint: run capi-render plan (or build) once online');
  });

  it('--offline plans from the list saved by the last online run and says how old it is', async () => {
    const gh = await fake();
    const repo = kubeadmRepo(gh, 'v1.10.4');
    const cache = tempDir();
    const env = { CAPI_RENDER_CACHE_DIR: cache };
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    const online = await runCli(['plan'], { cwd: repo, env });
    expect(online.code, online.stderr).toBe(0);
    const requests = gh.requests.length;

    const offline = await runCli(['plan', '--offline'], { cwd: repo, env });
    expect(offline.code, offline.stderr).toBe(0);
    expect(gh.requests.length).toBe(requests);
    const notes = offline.stdout.split('\n').filter((l) => l.startsWith('note: '));
    expect(notes).toEqual([
      expect.stringMatching(
        /^note: cluster-api, bootstrap-kubeadm, control-plane-kubeadm: versions as of \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ minutes? old\), the list saved by the last online run \(--offline\)$/,
      ),
      expect.stringMatching(
        /^note: cert-manager: versions as of \d{4}-\d\d-\d\dT[\d:.]+Z \(\d+ minutes? old\), the list saved by the last online run \(--offline\)$/,
      ),
    ]);
    // Oldest list first: the providers' are read before cert-manager's. The same plan as online, plus the notes (and the empty line before them).
    const withoutNotes = offline.stdout.replace(/\n(note: [^\n]*\n)+/, '\n').replace('\n\n\nContract', '\n\nContract');
    expect(withoutNotes).toBe(online.stdout);

    // An older list: the plan dates it.
    const index = createReleaseIndexCache(cache);
    const saved = (await index.getList('github:kubernetes-sigs/cluster-api'))!;
    await index.putList({ ...saved, fetchedAt: new Date(Date.now() - 3 * 24 * 3600_000 - 60_000).toISOString() });
    const old = await runCli(['plan', '--offline', '--json'], { cwd: repo, env });
    expect(old.code, old.stderr).toBe(0);
    const rows = (JSON.parse(old.stdout) as PlanDocument).environments[0]!.providers;
    expect(rows.map((p) => p.versions.source)).toEqual(['cached', 'cached', 'cached']);
    const text = await runCli(['plan', '--offline'], { cwd: repo, env });
    expect(text.stdout).toContain('(3 days old), the list saved by the last online run (--offline)');
  });
});
