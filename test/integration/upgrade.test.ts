/**
 * `capi-render upgrade` end to end over the real release fixtures (a clusterctl local repository):
 * the edited files (every other byte untouched), the lock, rendered/, and the safety report.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { startFakeGitHub } from '../helpers/fake-github.js';
import { parseLock } from 'capi-render';
import { runCli } from '../helpers/cli.js';
import { copyExample, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const CORE_FILE = (version: string) => `# The Cluster API core provider.
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  # renovate: datasource=github-releases depName=kubernetes-sigs/cluster-api
  version: ${version} # moved by capi-render upgrade
`;

const KUBEADM_FILE = (version: string) => `# kubeadm bootstrap and control plane, released with the core provider.
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: BootstrapProvider
metadata:
  name: kubeadm
  namespace: capi-kubeadm-bootstrap-system
spec:
  # renovate: datasource=github-releases depName=kubernetes-sigs/cluster-api
  version: "${version}"

---
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: ControlPlaneProvider
metadata:
  name: kubeadm
  namespace: capi-kubeadm-control-plane-system
spec:
  manager:
    verbosity: 2   # keep this comment
  version: '${version}'
`;

const cli = (repo: string, ...argv: string[]) => runCli(argv, { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
const read = (repo: string, file: string) => readFileSync(path.join(repo, file), 'utf8');
const lockVersions = (repo: string, env = 'default') =>
  Object.fromEntries(
    parseLock(read(repo, 'capi-render.lock'))
      .environments.find((e) => e.name === env)!
      .providers.filter((p) => p.provider !== 'cert-manager')
      .map((p) => [p.provider, `${p.version} ${p.contract}`]),
  );

/** Lines that differ (0-based index, new text); asserting on it proves every other line is byte-identical. */
function changedLines(before: string, after: string): [number, string][] {
  const a = before.split('\n');
  const b = after.split('\n');
  expect(b.length).toBe(a.length);
  return b.flatMap((line, i) => (line === a[i] ? [] : [[i, line] as [number, string]]));
}

/** Finding codes printed by the text report (`[code]` at the end of a finding's first line). */
function findingCodes(stdout: string): Set<string> {
  return new Set([...stdout.matchAll(/^(?:DANGER |WARNING|INFO   ) .* \[([a-z-]+)\]$/gm)].map((m) => m[1]!));
}

async function builtRepo(version: string): Promise<string> {
  const repo = makeRepo({ 'providers/core.yaml': CORE_FILE(version), 'providers/kubeadm.yaml': KUBEADM_FILE(version) });
  const r = await cli(repo, 'build');
  expect(r.code, r.stderr).toBe(0);
  return repo;
}

describe('capi-render upgrade within a contract (v1.11.0 → v1.12.0)', () => {
  it.each([
    { name: '--to v1.12.0', argv: ['--to', 'v1.12.0'] },
    { name: '--contract v1beta2', argv: ['--contract', 'v1beta2'] },
  ])('$name edits the three versions in place, relocks and re-renders', async ({ argv }) => {
    const repo = await builtRepo('v1.11.0');
    const before = snapshotTree(path.join(repo, 'rendered'));
    const r = await cli(repo, 'upgrade', ...argv);
    expect(r.code, r.stderr).toBe(0);
    expect(changedLines(CORE_FILE('v1.11.0'), read(repo, 'providers/core.yaml'))).toEqual([
      [8, '  version: v1.12.0 # moved by capi-render upgrade'],
    ]);
    expect(changedLines(KUBEADM_FILE('v1.11.0'), read(repo, 'providers/kubeadm.yaml'))).toEqual([
      [8, '  version: "v1.12.0"'],
      [19, "  version: 'v1.12.0'"],
    ]);
    expect(lockVersions(repo)).toEqual({
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm': 'v1.12.0 v1beta2',
      'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm': 'v1.12.0 v1beta2',
      'CoreProvider/capi-system/cluster-api': 'v1.12.0 v1beta2',
    });
    const after = snapshotTree(path.join(repo, 'rendered'));
    expect(after['default/cluster-api/deployment-capi-controller-manager.yaml']).not.toBe(
      before['default/cluster-api/deployment-capi-controller-manager.yaml'],
    );
    expect(read(repo, 'rendered/default/cluster-api/deployment-capi-controller-manager.yaml')).toContain(
      'image: registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
    );
    // What src/diff finds in the real v1.11.0 → v1.12.0 manifests.
    expect(findingCodes(r.stdout)).toEqual(
      new Set(['feature-gates-changed', 'rbac-permissions-gained', 'crd-version-added', 'crd-added', 'image-changed']),
    );
    expect(r.stdout).toMatch(/^Findings: 0 dangers, 2 warnings, \d+ info$/m);
    expect(r.stderr).toContain('edited providers/core.yaml:9 (spec.version): v1.11.0 → v1.12.0 (default: cluster-api)');
    // The output is what a plain build of the edited inputs gives.
    const rebuilt = await cli(repo, 'build', '--frozen');
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(after);
  });

  it('works against GitHub releases too (the fake API serving the real releases)', async () => {
    const gh = await startFakeGitHub();
    onTestFinished(() => gh.close().catch(() => undefined));
    const repo = makeRepo({
      'capi-render.yaml': `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\ngithub:\n  apiUrl: ${gh.baseUrl}\n`,
      'providers/core.yaml': CORE_FILE('v1.11.0'),
      'providers/kubeadm.yaml': KUBEADM_FILE('v1.11.0'),
    });
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    const r = await runCli(['upgrade', '--latest-patch'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('nothing to upgrade');
    const moved = await runCli(['upgrade', '--contract', 'v1beta2'], { cwd: repo, env });
    expect(moved.code, moved.stderr).toBe(0);
    expect(Object.values(lockVersions(repo))).toEqual(['v1.12.0 v1beta2', 'v1.12.0 v1beta2', 'v1.12.0 v1beta2']);
    expect(
      parseLock(read(repo, 'capi-render.lock'))
        .environments[0]!.providers.filter((p) => p.provider !== 'cert-manager')
        .map((p) => p.source),
    ).toEqual(Array(3).fill('github:kubernetes-sigs/cluster-api'));
  });

  it('works --offline from a local repository', async () => {
    const repo = await builtRepo('v1.11.0');
    const r = await cli(repo, 'upgrade', '--offline', '--provider', 'CoreProvider/cluster-api', '--to', 'v1.12.0');
    expect(r.code, r.stderr).toBe(0);
    expect(lockVersions(repo)['CoreProvider/capi-system/cluster-api']).toBe('v1.12.0 v1beta2');
  });

  it('nothing to do when everything is current: exit 0, nothing written', async () => {
    const repo = await builtRepo('v1.12.0');
    const before = snapshotTree(repo);
    const r = await cli(repo, 'upgrade', '--latest-patch');
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('nothing to upgrade');
    expect(snapshotTree(repo)).toEqual(before);
  });
});

describe('capi-render upgrade across contracts (v1.10.4, v1beta1 → v1.11.0, v1beta2)', () => {
  it('refuses without --confirm-storage-migration, leaving every file as it was, and prints the steps', async () => {
    const repo = await builtRepo('v1.10.4');
    const before = snapshotTree(repo);
    const r = await cli(repo, 'upgrade', '--to', 'v1.11.0');
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[upgrade]');
    expect(r.stderr).toContain('--confirm-storage-migration');
    expect(r.stdout).toContain('kubectl get crd clusters.cluster.x-k8s.io -o jsonpath=');
    expect(findingCodes(r.stdout)).toContain('crd-version-removed');
    expect(snapshotTree(repo)).toEqual(before);
  });

  it('with --confirm-storage-migration moves the set, relocks to v1beta2 and reports the contract and CRD changes', async () => {
    const repo = await builtRepo('v1.10.4');
    // The real v1.11.0 core components no longer carry the ipaddresses CRD: pruning it would delete
    // every IPAddress, so the removal guard wants a say-so too.
    const before = snapshotTree(repo);
    const guarded = await cli(repo, 'upgrade', '--to', 'v1.11.0', '--confirm-storage-migration');
    expect(guarded.code).toBe(1);
    expect(guarded.stderr).toContain(
      'error[removal]: environment default: CRD ipaddresses.ipam.cluster.x-k8s.io is no longer rendered',
    );
    expect(snapshotTree(repo)).toEqual(before);
    const r = await cli(repo, 'upgrade', '--to', 'v1.11.0', '--confirm-storage-migration', '--allow-removal');
    expect(r.code, r.stderr).toBe(0);
    expect(changedLines(CORE_FILE('v1.10.4'), read(repo, 'providers/core.yaml'))).toEqual([
      [8, '  version: v1.11.0 # moved by capi-render upgrade'],
    ]);
    expect(changedLines(KUBEADM_FILE('v1.10.4'), read(repo, 'providers/kubeadm.yaml'))).toEqual([
      [8, '  version: "v1.11.0"'],
      [19, "  version: 'v1.11.0'"],
    ]);
    expect(Object.values(lockVersions(repo))).toEqual(['v1.11.0 v1beta2', 'v1.11.0 v1beta2', 'v1.11.0 v1beta2']);
    const codes = findingCodes(r.stdout);
    for (const code of ['contract-changed', 'crd-version-removed', 'crd-storage-version-changed', 'image-changed'])
      expect(codes).toContain(code);
    expect(r.stdout).toContain('cluster-api: contract v1beta1 → v1beta2');
    expect(r.stdout).toContain('clusters.cluster.x-k8s.io: storage version v1beta1 → v1beta2');
  });

  it('refuses to move kubeadm to v1beta2 under a v1beta1 core: the core must move first', async () => {
    const repo = await builtRepo('v1.10.4');
    const before = snapshotTree(repo);
    const r = await cli(repo, 'upgrade', '--provider', 'bootstrap-kubeadm', '--to', 'v1.12.0');
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toContain(
      'error[upgrade]: [default] clusterctl: "unable to perform upgrade: the target version for the provider capi-kubeadm-bootstrap-system/bootstrap-kubeadm implements the v1beta2 contract version, while the core provider supports v1beta1 contract versions"; BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm v1.12.0',
    );
    expect(snapshotTree(repo)).toEqual(before);
  });

  it('names an unknown --provider and usage errors exit 2', async () => {
    const repo = await builtRepo('v1.11.0');
    const unknown = await cli(repo, 'upgrade', '--provider', 'infrastructure-aws', '--to', 'v1.12.0');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('error[upgrade]');
    expect((await cli(repo, 'upgrade')).code).toBe(2);
    expect((await cli(repo, 'upgrade', '--to', 'v1.12.0', '--latest-patch')).code).toBe(2);
    expect((await cli(repo, 'upgrade', '--to', 'banana')).code).toBe(2);
  });
});

describe('capi-render upgrade with overlays', () => {
  it('edits the overlay patch that pins prod, not the base the other environment uses', async () => {
    const repo = copyExample();
    expect((await cli(repo, 'build')).code).toBe(0);
    const base = snapshotTree(path.join(repo, 'providers'));
    const overlayBefore = read(repo, 'overlays/prod/overlay.yaml');
    const devBefore = snapshotTree(path.join(repo, 'rendered/dev'));
    const r = await cli(repo, 'upgrade', '--env', 'prod', '--to', 'v1.12.0');
    expect(r.code, r.stderr).toBe(0);
    expect(changedLines(overlayBefore, read(repo, 'overlays/prod/overlay.yaml'))).toEqual([
      [16, '        value: v1.12.0'],
    ]);
    expect(snapshotTree(path.join(repo, 'providers'))).toEqual(base);
    expect(snapshotTree(path.join(repo, 'rendered/dev'))).toEqual(devBefore);
    expect(Object.values(lockVersions(repo, 'prod'))).toEqual([
      'v1.12.0 v1beta2',
      'v1.12.0 v1beta2',
      'v1.12.0 v1beta2',
    ]);
    expect(r.stderr).toContain(
      'edited overlays/prod/overlay.yaml:17 (patches[0], replace /spec/version): v1.11.0 → v1.12.0 (prod: cluster-api, bootstrap-kubeadm, control-plane-kubeadm)',
    );
  });

  it('refuses to move one provider through a patch that pins three', async () => {
    const repo = copyExample();
    expect((await cli(repo, 'build')).code).toBe(0);
    const before = snapshotTree(repo);
    const r = await cli(repo, 'upgrade', '--env', 'prod', '--provider', 'cluster-api', '--to', 'v1.12.0');
    expect(r.code).toBe(1);
    // One error for the shared patch, naming it and every provider it also pins, with both ways out.
    expect(r.stderr.split('\n')[0]).toBe(
      'overlays/prod/overlay.yaml:17: error[upgrade]: overlays/prod/overlay.yaml:17 (patches[0], replace /spec/version) also sets the version of BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm, ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm in prod, which this upgrade does not move to v1.12.0; nothing was changed',
    );
    expect(r.stderr).toContain(
      "hint: move them together: `capi-render upgrade --env prod --to v1.12.0 --provider cluster-api --provider bootstrap-kubeadm --provider control-plane-kubeadm`; or, to move only cluster-api, add a patch after it in overlays/prod/overlay.yaml that sets only cluster-api's /spec/version (e.g. target: {kind: CoreProvider}), then run this command again",
    );
    expect(snapshotTree(repo)).toEqual(before);

    // The second way out, followed: a patch of the core's own after the shared one; now only the core moves.
    const overlay = path.join(repo, 'overlays/prod/overlay.yaml');
    const own =
      '  - target: {kind: CoreProvider}\n    patch: |-\n      - op: replace\n        path: /spec/version\n        value: v1.11.0\n';
    writeFileSync(overlay, readFileSync(overlay, 'utf8').replace('  # HA controllers', `${own}  # HA controllers`));
    expect((await cli(repo, 'build')).code).toBe(0);
    const again = await cli(repo, 'upgrade', '--env', 'prod', '--provider', 'cluster-api', '--to', 'v1.12.0');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain(
      'edited overlays/prod/overlay.yaml:22 (patches[1], replace /spec/version): v1.11.0 → v1.12.0 (prod: cluster-api)',
    );
    expect(lockVersions(repo, 'prod')).toEqual({
      'CoreProvider/capi-system/cluster-api': 'v1.12.0 v1beta2',
      'BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm': 'v1.11.0 v1beta2',
      'ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm': 'v1.11.0 v1beta2',
    });
  });

  it('refuses to edit a base file another environment also takes its version from', async () => {
    const overlay =
      '# an environment\napiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\n';
    const repo = makeRepo({
      'providers/core.yaml': CORE_FILE('v1.11.0'),
      'overlays/dev/overlay.yaml': overlay,
      'overlays/staging/overlay.yaml': overlay,
    });
    expect((await cli(repo, 'build')).code).toBe(0);
    const refused = await cli(repo, 'upgrade', '--env', 'dev', '--to', 'v1.12.0');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'providers/core.yaml:9 (spec.version) also sets the version of CoreProvider/capi-system/cluster-api in staging',
    );
    // Both environments together are fine.
    const both = await cli(repo, 'upgrade', '--env', 'dev', '--env', 'staging', '--to', 'v1.12.0');
    expect(both.code, both.stderr).toBe(0);
    expect(Object.values(lockVersions(repo, 'staging'))).toEqual(['v1.12.0 v1beta2']);
  });

  it('edits strategic-merge patches: one in a patch file, one inline', async () => {
    const overlay = `apiVersion: capi-render/v1alpha1
kind: Overlay
resources:
  - ../../providers
patches:
  # The core provider is pinned in its own file.
  - path: patches/pin-core.yaml
  # kubeadm bootstrap, inline.
  - patch: |
      apiVersion: operator.cluster.x-k8s.io/v1alpha2
      kind: BootstrapProvider
      metadata:
        name: kubeadm
        namespace: capi-kubeadm-bootstrap-system
      spec:
        version: v1.11.0   # prod
`;
    const pin =
      '# prod pin\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: "v1.11.0"\n';
    const kubeadm = KUBEADM_FILE('v1.12.0').split('---')[0]!;
    const repo = makeRepo({
      'providers/core.yaml': CORE_FILE('v1.12.0'),
      'providers/kubeadm.yaml': kubeadm,
      'overlays/prod/overlay.yaml': overlay,
      'overlays/prod/patches/pin-core.yaml': pin,
    });
    expect((await cli(repo, 'build')).code).toBe(0);
    const base = snapshotTree(path.join(repo, 'providers'));
    const r = await cli(repo, 'upgrade', '--to', 'v1.12.0');
    expect(r.code, r.stderr).toBe(0);
    expect(changedLines(pin, read(repo, 'overlays/prod/patches/pin-core.yaml'))).toEqual([[7, '  version: "v1.12.0"']]);
    expect(changedLines(overlay, read(repo, 'overlays/prod/overlay.yaml'))).toEqual([
      [15, '        version: v1.12.0   # prod'],
    ]);
    expect(snapshotTree(path.join(repo, 'providers'))).toEqual(base);
    expect(Object.values(lockVersions(repo, 'prod'))).toEqual(['v1.12.0 v1beta2', 'v1.12.0 v1beta2']);
  });
});
