/**
 * `capi-render import` edits the user's inputs, so it gets build's hostile-input treatment: what it
 * refuses (unknown providers, files it would overwrite, places it must not write), how it fails
 * (error[write] with the path and the OS reason, nothing half-written: a read-only folder, a full
 * disk, a kill), that Secret values never leave the cluster, and that a 20 MB dump imports fast.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { dumpItems, writeDump } from '../helpers/live-dump-files.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';
import { dropPrivilegesMissing, mountMissing, skipWithout, UNSHARE_MOUNT } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';
import { describeTimes, timeSideBySideUntil, type Timed } from '../helpers/timing.js';

type Obj = Record<string, any>;

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');

const importIn = (repo: string, ...args: string[]) =>
  runCli(['import', ...args, '--repo', repo], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: path.join(repo, '.cache') } });
const leftovers = (dir: string) =>
  existsSync(dir) ? readdirSync(dir).filter((n) => n.includes('.capi-render-import-')) : [];

let clusterctl: Obj[];
let operator: Obj[];
/** The inventory and cert-manager objects of the v1.12.0 clusterctl dump: all import reads. */
let small: Obj[];
beforeAll(() => {
  clusterctl = dumpItems('clusterctl-v1.12.0');
  operator = dumpItems('operator-v1.12.0');
  small = clusterctl.filter(
    (o) => o.kind === 'Provider' || (o.kind === 'Deployment' && o.metadata.namespace === 'cert-manager'),
  );
});

describe('import refuses what it cannot declare exactly', () => {
  it("a provider not in clusterctl's list: names it and the flag that supplies its URL; with --fetch-url it is declared", async () => {
    const repo = makeRepo({});
    const acme = {
      apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
      kind: 'Provider',
      metadata: {
        name: 'infrastructure-acme',
        namespace: 'acme-system',
        labels: { 'clusterctl.cluster.x-k8s.io': '' },
      },
      providerName: 'acme',
      type: 'InfrastructureProvider',
      version: 'v0.3.0',
    };
    const dump = writeDump(repo, 'dump.yaml', [...small, acme]);
    const before = snapshotTree(repo);
    const refused = await importIn(repo, '--from', dump);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `${dump}: error[import]: InfrastructureProvider acme-system/acme (clusterctl inventory Provider acme-system/infrastructure-acme) is not in clusterctl's provider list, so capi-render cannot tell where its releases are`,
    );
    expect(refused.stderr).toContain(
      'hint: pass --fetch-url infrastructure-acme=https://github.com/<owner>/<repo>/releases/v0.3.0/infrastructure-components.yaml, or add {name: acme, type: InfrastructureProvider, url: …} to providers: in capi-render.yaml',
    );
    expect(snapshotTree(repo)).toEqual(before);
    const url = 'https://github.com/acme/cluster-api-provider-acme/releases/v0.3.0/infrastructure-components.yaml';
    const done = await importIn(repo, '--from', dump, '--fetch-url', `infrastructure-acme=${url}`);
    expect(done.code, done.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'providers/infrastructure-acme.yaml'), 'utf8')).toContain(
      `  fetchConfig:\n    url: ${url} # from --fetch-url infrastructure-acme=…\n`,
    );
  });

  it.each([
    [
      'no providers at all',
      (): Obj[] => clusterctl.filter((o) => o.kind === 'Deployment'),
      /error\[import\]: .* holds neither clusterctl's inventory \(Provider objects\) nor the operator's provider CRs/,
    ],
    [
      'no core provider',
      (): Obj[] => small.filter((o) => !(o.kind === 'Provider' && o.type === 'CoreProvider')),
      /error\[import\]: .* has no CoreProvider; an installation has exactly one/,
    ],
  ])('a dump with %s', async (_name, items, message) => {
    const repo = makeRepo({});
    const result = await importIn(repo, '--from', writeDump(repo, 'dump.yaml', items()));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
    expect(existsSync(path.join(repo, 'providers'))).toBe(false);
  });

  it.each([
    ['not YAML', 'items: [\n', /^dump\.yaml:2:1: error\[yaml-syntax\]: dump\.yaml is not valid YAML or JSON/],
    [
      'an item without a name',
      'apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {}\n',
      /^dump\.yaml: error\[live-dump\]: item 1 of document 1 of dump\.yaml is not a Kubernetes object/,
    ],
    ['a folder', undefined, /^dump\.yaml: error\[live-dump\]: cannot read the dump dump\.yaml: it is a folder/],
  ])('a dump that is %s: one located error, nothing written', async (_name, text, message) => {
    const repo = makeRepo({});
    if (text === undefined) mkdirSync(path.join(repo, 'dump.yaml'));
    else writeFileSync(path.join(repo, 'dump.yaml'), text);
    const result = await importIn(repo, '--from', 'dump.yaml');
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(message);
  });

  it('a provider already declared in another file: refused, pointing at the declaration and at --env', async () => {
    const repo = makeRepo({ 'providers/core.yaml': CORE('v1.11.0') });
    const result = await importIn(repo, '--from', writeDump(repo, 'dump.yaml', small));
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      /^providers\/core\.yaml:1:1: error\[import\]: CoreProvider capi-system\/cluster-api is already declared in providers\/core\.yaml\n {2}hint: import into an environment instead \(--env NAME\)/m,
    );
    expect(existsSync(path.join(repo, 'providers/cluster-api.yaml'))).toBe(false);
  });
});

describe('import never overwrites without --force, and then atomically', () => {
  it('an existing file stops the whole import; --force replaces it; a second run changes nothing', async () => {
    const repo = makeRepo({ 'providers/cluster-api.yaml': '# mine\n' });
    const dump = writeDump(repo, 'dump.yaml', small);
    const refused = await importIn(repo, '--from', dump);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /^providers\/cluster-api\.yaml: error\[import\]: providers\/cluster-api\.yaml already exists\n {2}hint: pass --force to replace it/m,
    );
    expect(readdirSync(path.join(repo, 'providers'))).toEqual(['cluster-api.yaml']);
    const forced = await importIn(repo, '--from', dump, '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stderr).toContain('replaced providers/cluster-api.yaml');
    expect(readFileSync(path.join(repo, 'providers/cluster-api.yaml'), 'utf8')).toContain('kind: CoreProvider');
    expect(readdirSync(path.join(repo, 'providers')).sort()).toEqual([
      'bootstrap-kubeadm.yaml',
      'cluster-api.yaml',
      'control-plane-kubeadm.yaml',
      'infrastructure-docker.yaml',
    ]);
    const again = await importIn(repo, '--from', dump);
    expect(again.code).toBe(0);
    expect(again.stderr.match(/^unchanged providers\//gm)).toHaveLength(4);
  });

  it("a repository without capi-render.yaml gets one that pins the cluster's cert-manager", async () => {
    const repo = tempDir();
    const result = await importIn(repo, '--from', writeDump(repo, 'dump.yaml', small));
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8')).toBe(
      '# capi-render settings. Written by `capi-render import` from dump.yaml.\n\napiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4 # from cert-manager.clusterctl.cluster.x-k8s.io/version on Deployment cert-manager/cert-manager\n',
    );
  });

  it('--dry-run prints the files and writes nothing', async () => {
    const repo = makeRepo({});
    const dump = writeDump(repo, 'dump.yaml', small);
    const before = snapshotTree(repo);
    const result = await importIn(repo, '--from', dump, '--dry-run');
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /^# providers\/cluster-api\.yaml\n# CoreProvider capi-system\/cluster-api\. Written by `capi-render import`/,
    );
    expect(snapshotTree(repo)).toEqual(before);
  });
});

describe('import --env writes the differences from the base as patches', () => {
  it('a changed spec, a provider the cluster lacks, one only the cluster runs: the overlay composes to exactly the cluster', async () => {
    // The base: core with another feature gate, kubeadm, and an AWS provider the cluster does not run.
    const aws =
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.8.0\n';
    const repo = makeRepo({
      'providers/core.yaml': CORE(
        'v1.12.0',
        'capi-system',
        '  manager:\n    featureGates:\n      MachinePool: false\n',
      ),
      'providers/aws.yaml': aws,
    });
    const operatorCrs = operator.filter((o) => o.apiVersion.startsWith('operator.cluster.x-k8s.io/'));
    const result = await importIn(repo, '--from', writeDump(repo, 'dump.yaml', operatorCrs), '--env', 'mgmt');
    expect(result.code, result.stderr).toBe(0);
    const overlay = readFileSync(path.join(repo, 'overlays/mgmt/overlay.yaml'), 'utf8');
    expect(overlay).toContain(
      '# providers.yaml: providers only this cluster runs (not in providers/)\nresources:\n  - ../../providers\n  - providers.yaml\n',
    );
    // Only what differs: the gate (MachinePool removed, ClusterTopology added); not the version, nor
    // the CRD's default verbosity the cluster shows.
    expect(overlay).toContain(
      '      spec:\n        manager:\n          featureGates:\n            MachinePool: null # from the spec of CoreProvider capi-system/cluster-api\n            ClusterTopology: true # from the spec of CoreProvider capi-system/cluster-api\n',
    );
    expect(overlay).not.toContain('verbosity');
    expect(overlay).toContain(
      '  # InfrastructureProvider capa-system/aws (providers/aws.yaml) is not installed in the cluster\n',
    );
    expect(readFileSync(path.join(repo, 'overlays/mgmt/providers.yaml'), 'utf8').match(/^kind: \w+/gm)).toEqual([
      'kind: BootstrapProvider',
      'kind: ControlPlaneProvider',
      'kind: InfrastructureProvider',
    ]);
    const inputs = await runCli(['inputs', '--env', 'mgmt', '--repo', repo], { cwd: repo });
    expect(inputs.code, inputs.stderr).toBe(0);
    const docs = inputs.stdout
      .split('\n---\n')
      .map((d) => jsYaml.load(d) as Obj)
      .filter((d) => d?.kind?.endsWith('Provider'));
    // The CRs as their author wrote them (kubectl's last-applied copy), without what admission added.
    const expected = operatorCrs.map((o) => {
      const declared = JSON.parse(o.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']);
      return {
        kind: o.kind,
        name: o.metadata.name,
        spec: { ...declared.spec, version: declared.spec.version ?? o.status.installedVersion },
      };
    });
    expect(operatorCrs.find((o) => o.kind === 'CoreProvider')!.spec.manager).toEqual({
      featureGates: { ClusterTopology: true },
      health: {},
      metrics: {},
      verbosity: 1,
      webhook: {},
    });
    expect(
      docs
        .map((d) => ({ kind: d.kind, name: d.metadata.name, spec: d.spec }))
        .sort((a, b) => a.kind.localeCompare(b.kind)),
    ).toEqual(expected.sort((a, b) => a.kind.localeCompare(b.kind)));
  });
});

describe('import --env into a fleet of several Argo CD environments writes what the next build needs', () => {
  // prod already deploys through Argo CD to its own cluster; the imported cluster joins it.
  const fleet = () =>
    makeRepo({
      'capi-render.yaml': configYaml(
        'gitops:\n  flavour: argocd\n  argocd:\n    application: true\n    repoURL: https://git.example.com/capi.git\n',
      ),
      'providers/core.yaml': CORE('v1.12.0'),
      'overlays/prod/overlay.yaml':
        'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\ngitops:\n  argocd:\n    destination:\n      name: mgmt-prod\n',
    });
  const build = (repo: string) =>
    runCli(['build', '--repo', repo], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: path.join(repo, '.cache') } });
  const inventory = () => small.filter((o) => o.kind === 'Provider' && o.type === 'CoreProvider');
  const clusterInfo = (server: string) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'cluster-info', namespace: 'kube-public' },
    data: {
      kubeconfig: `apiVersion: v1\nkind: Config\nclusters:\n- name: ""\n  cluster:\n    certificate-authority-data: LS0t\n    server: ${server}\n`,
    },
  });

  it("the dump shows the cluster's API server (kube-public/cluster-info): import names it, and the build succeeds", async () => {
    const repo = fleet();
    const result = await importIn(
      repo,
      '--from',
      writeDump(repo, 'dump.yaml', [...inventory(), clusterInfo('https://10.0.0.7:6443')]),
      '--env',
      'mgmt',
    );
    expect(result.code, result.stderr).toBe(0);
    const overlay = readFileSync(path.join(repo, 'overlays/mgmt/overlay.yaml'), 'utf8');
    expect(overlay).toContain(
      "gitops:\n  argocd:\n    # This cluster in Argo CD, which deploys several environments (mgmt, prod): its API server, from the kubeconfig in ConfigMap kube-public/cluster-info. Argo CD must know the cluster by this URL (argocd cluster list); else use {name: <the cluster's name in Argo CD>}.\n    destination:\n      server: https://10.0.0.7:6443\n",
    );
    const line = overlay.split('\n').findIndex((l) => l.includes('      server:')) + 1;
    expect(result.stderr).toContain(
      `overlays/mgmt/overlay.yaml:${line}: set gitops.argocd.destination.server to https://10.0.0.7:6443 (from the kubeconfig in ConfigMap kube-public/cluster-info)`,
    );
    const built = await build(repo);
    expect(built.code, built.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'gitops/argocd/applications/mgmt.yaml'), 'utf8')).toContain(
      'server: https://10.0.0.7:6443',
    );
  });

  it('the dump does not show it: a placeholder at a named line; the build fails on that exact key until it is filled in', async () => {
    const repo = fleet();
    const result = await importIn(repo, '--from', writeDump(repo, 'dump.yaml', inventory()), '--env', 'mgmt');
    expect(result.code, result.stderr).toBe(0);
    const overlay = readFileSync(path.join(repo, 'overlays/mgmt/overlay.yaml'), 'utf8');
    expect(overlay).toMatch(
      /  argocd:\n {4}# FILL IN this cluster's destination in Argo CD, which deploys several environments \(mgmt, prod\), each its own management cluster:\n.*\n {4}destination:\n {6}name: ""\n/,
    );
    const line = overlay.split('\n').findIndex((l) => l.includes('      name: ""')) + 1;
    expect(result.stderr).toMatch(
      new RegExp(
        `^overlays/mgmt/overlay\\.yaml:${line}:13: warning\\[import\\]: gitops\\.argocd\\.destination\\.name is an empty placeholder to fill in`,
        'm',
      ),
    );
    expect(result.stderr).toContain(
      `next: fill in gitops.argocd.destination.name at overlays/mgmt/overlay.yaml:${line}, then capi-render build --env mgmt`,
    );
    const refused = await build(repo);
    expect(refused.code).toBe(1);
    // The build's error is at the same line and column, and names the same key.
    expect(refused.stderr).toMatch(
      new RegExp(
        `^overlays/mgmt/overlay\\.yaml:${line}:13: error\\[overlay\\]: gitops\\.argocd\\.destination\\.name `,
        'm',
      ),
    );
    writeFileSync(
      path.join(repo, 'overlays/mgmt/overlay.yaml'),
      overlay.replace('      name: ""\n', '      name: mgmt-eu\n'),
    );
    const built = await build(repo);
    expect(built.code, built.stderr).toBe(0);
  });

  it('a single Argo CD environment keeps the default (the cluster Argo CD runs in): nothing is written', async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml(
        'gitops:\n  flavour: argocd\n  argocd:\n    application: true\n    repoURL: https://git.example.com/capi.git\n',
      ),
      'providers/core.yaml': CORE('v1.12.0'),
    });
    const result = await importIn(
      repo,
      '--from',
      writeDump(repo, 'dump.yaml', [...inventory(), clusterInfo('https://10.0.0.7:6443')]),
      '--env',
      'mgmt',
    );
    expect(result.code, result.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'overlays/mgmt/overlay.yaml'), 'utf8')).not.toContain('gitops');
  });
});

describe("import leaves out what the API server and the operator's webhook defaulted", () => {
  it('the CRs as the webhook returns them (configSecret.namespace, manager.metrics/health/webhook {}, verbosity 1) import to the same files as the CRs without them', async () => {
    const config = configYaml('').replace('certManager:\n  version: v1.19.4\n', 'certManager:\n  install: false\n');
    const crs = operator.filter((o) => o.apiVersion.startsWith('operator.cluster.x-k8s.io/'));
    const bare = crs.map((o) => ({
      ...o,
      spec: { ...o.spec, ...(o.spec.manager ? { manager: { featureGates: o.spec.manager.featureGates } } : {}) },
    }));
    const defaulted = crs.map((o) => {
      const spec = structuredClone(o.spec);
      if (spec.manager) Object.assign(spec.manager, { verbosity: 1, metrics: {}, health: {}, webhook: {} });
      if (spec.configSecret) spec.configSecret.namespace = o.metadata.namespace;
      return { ...o, spec };
    });
    expect(defaulted.some((o) => o.spec.configSecret?.namespace === 'capd-system')).toBe(true);
    const written = async (items: Obj[]) => {
      const repo = makeRepo({ 'capi-render.yaml': config });
      const result = await importIn(repo, '--from', writeDump(repo, 'dump.yaml', items));
      expect(result.code, result.stderr).toBe(0);
      return Object.fromEntries(
        readdirSync(path.join(repo, 'providers')).map((f) => [
          f,
          readFileSync(path.join(repo, 'providers', f), 'utf8'),
        ]),
      );
    };
    const [fromBare, fromDefaulted] = [await written(bare), await written(defaulted)];
    const withoutNote = (files: Record<string, string>) =>
      Object.fromEntries(Object.entries(files).map(([f, t]) => [f, t.replace(/^# left out as the .*\n/m, '')]));
    expect(withoutNote(fromDefaulted)).toEqual(withoutNote(fromBare));
    expect(fromDefaulted['cluster-api.yaml']).toContain(
      "# left out as the operator webhook's and CRD's defaults (they render the same): spec.manager.metrics={}, spec.manager.health={}, spec.manager.webhook={}, spec.manager.verbosity=1\n",
    );
    expect(fromDefaulted['infrastructure-docker.yaml']).toContain('spec.configSecret.namespace="capd-system"');
    expect(fromDefaulted['infrastructure-docker.yaml']).toMatch(/configSecret:\n {4}name: capd-variables\n/);
  });
});

describe('import refuses places it must not write to', () => {
  it.each([
    [
      'providersDir inside the output folder',
      { 'capi-render.yaml': configYaml('providersDir: rendered/providers\n') },
      [],
      1,
      /^capi-render\.yaml:7:15: error\[config\]: providersDir rendered\/providers is inside the outputDir output folder rendered, which builds replace; import writes its files there/,
    ],
    [
      'providersDir outside the repository',
      { 'capi-render.yaml': configYaml('providersDir: ../elsewhere\n') },
      [],
      1,
      /^capi-render\.yaml:7:15: error\[config\]: providersDir \.\.\/elsewhere is outside the repository/,
    ],
    [
      'providersDir in .git',
      { 'capi-render.yaml': configYaml('providersDir: .git/providers\n') },
      [],
      1,
      /error\[config\]: providersDir \.git\/providers is inside the \.git folder/,
    ],
    [
      'an environment name that leaves overlays/',
      {},
      ['--env', '../escape'],
      2,
      /^capi-render import: --env "\.\.\/escape" is not a valid environment name/,
    ],
  ])('%s', async (_name, files, args, code, message) => {
    const repo = makeRepo(files);
    const dump = writeDump(repo, 'dump.yaml', small);
    const before = snapshotTree(repo);
    const result = await importIn(repo, '--from', dump, ...(args as string[]));
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(snapshotTree(repo)).toEqual(before);
  });

  it.each([
    [
      'providers/ is a link to a folder outside the repository',
      'providers',
      [],
      1,
      /error\[config\]: providersDir providers is reached through the symbolic link providers/,
    ],
    [
      'overlays/<env> is a link',
      'overlays/mgmt',
      ['--env', 'mgmt'],
      2,
      /^capi-render import: --env mgmt: overlays\/mgmt is reached through the symbolic link overlays\/mgmt/,
    ],
  ])('%s', async (_name, link, args, code, message) => {
    const repo = makeRepo({});
    const outside = tempDir();
    mkdirSync(path.dirname(path.join(repo, link)), { recursive: true });
    symlinkSync(outside, path.join(repo, link));
    const result = await importIn(repo, '--from', writeDump(repo, 'dump.yaml', small), ...args);
    expect(result.code).toBe(code);
    expect(result.stderr).toMatch(message);
    expect(readdirSync(outside)).toEqual([]);
  });
});

describe('import failures: error[write] with the path and the reason, nothing half-written', () => {
  it.skipIf(skipWithout(dropPrivilegesMissing(), 'the import EACCES test'))(
    'a folder this user may not write (EACCES)',
    () => {
      const repo = makeRepo({});
      mkdirSync(path.join(repo, 'providers'));
      writeDump(repo, 'dump.yaml', small);
      chmodSync(repo, 0o755);
      const r = spawnSync(
        'setpriv',
        ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CLI, 'import', '--from', 'dump.yaml'],
        { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH } },
      );
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(
        /^providers\/cluster-api\.yaml: error\[write\]: cannot write providers\/cluster-api\.yaml: permission denied \(EACCES\)\n {2}hint: check the permissions and free space of that folder; nothing was changed/m,
      );
      expect(readdirSync(path.join(repo, 'providers'))).toEqual([]);
    },
  );

  it.skipIf(skipWithout(mountMissing(), 'the import ENOSPC test'))(
    'a full disk (ENOSPC): the files already placed are taken back',
    () => {
      const repo = makeRepo({});
      mkdirSync(path.join(repo, 'providers'));
      writeDump(repo, 'dump.yaml', small);
      // One 4 KiB page: the first declaration fits, the second does not.
      const script = `mount -t tmpfs -o size=4k tmpfs providers && "${process.execPath}" "${CLI}" import --from dump.yaml; echo "rc=$?"; ls -A providers`;
      const r = spawnSync('unshare', [...UNSHARE_MOUNT, 'sh', '-c', script], {
        cwd: repo,
        encoding: 'utf8',
        env: { PATH: process.env.PATH },
      });
      expect(r.stderr).toMatch(
        /^providers\/[a-z-]+\.yaml: error\[write\]: cannot write providers\/[a-z-]+\.yaml: no space left on device \(ENOSPC\)/m,
      );
      expect(r.stdout.trim()).toBe('rc=1');
    },
  );

  it('killed while placing files: complete files only; the next run removes the staging files and writes the rest', async () => {
    const repo = makeRepo({});
    writeDump(repo, 'dump.yaml', small);
    const killed = spawnSync(process.execPath, [CLI, 'import', '--from', 'dump.yaml'], {
      cwd: repo,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, CAPI_RENDER_TEST_KILL_AT: 'apply:2' },
    });
    expect(killed.signal).toBe('SIGKILL');
    const placed = readdirSync(path.join(repo, 'providers')).filter((n) => !n.startsWith('.'));
    expect(placed).toHaveLength(2);
    for (const f of placed)
      expect(readFileSync(path.join(repo, 'providers', f), 'utf8')).toMatch(
        /^# \w+Provider .*\n[\s\S]*\nspec:\n {2}version: v1\.12\.0 # from the version field of Provider .*\n$/,
      );
    const again = await importIn(repo, '--from', 'dump.yaml');
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr.match(/^unchanged /gm)).toHaveLength(2);
    expect(again.stderr.match(/^wrote /gm)).toHaveLength(2);
    expect(leftovers(path.join(repo, 'providers'))).toEqual([]);
  });
});

describe('Secrets referenced by configSecret are listed, never imported with values', () => {
  it('keys are listed; no value reaches a file, stdout or stderr', async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml('').replace(
        'certManager:\n  version: v1.19.4\n',
        'certManager:\n  install: false\n',
      ),
    });
    const value = 'sk-live-0123456789-do-not-leak';
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'capd-variables', namespace: 'capd-system' },
      type: 'Opaque',
      data: {
        EXP_MACHINE_POOL: Buffer.from('false').toString('base64'),
        DOCKER_TOKEN: Buffer.from(value).toString('base64'),
      },
    };
    const items = [...operator.filter((o) => o.apiVersion.startsWith('operator.cluster.x-k8s.io/')), secret];
    const result = await importIn(repo, '--from', writeDump(repo, 'dump.yaml', items), '--json');
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).requiredInputs).toEqual([
      {
        kind: 'Secret',
        namespace: 'capd-system',
        name: 'capd-variables',
        usedBy: 'InfrastructureProvider capd-system/docker',
        field: 'spec.configSecret',
        keys: ['DOCKER_TOKEN', 'EXP_MACHINE_POOL'],
      },
    ]);
    const written = Object.keys(snapshotTree(path.join(repo, 'providers'))).map((f) =>
      readFileSync(path.join(repo, 'providers', f), 'utf8'),
    );
    for (const text of [...written, result.stdout, result.stderr]) {
      expect(text).not.toContain(value);
      expect(text).not.toContain(Buffer.from(value).toString('base64'));
    }
  });
});

describe('a 20 MB dump', () => {
  it('imports in time linear in its size: 4× the bytes of a 5 MB dump cost under 8× its time (quadratic would be 16×)', async () => {
    const repo = makeRepo({});
    // The v1.12.0 cluster's objects repeated in further namespaces, as on a busy management cluster.
    const copies = clusterctl.filter((o) => o.kind !== 'Provider');
    const dumpOf = (name: string, bytes: number) => {
      const rounds = Math.ceil(bytes / JSON.stringify(copies).length);
      const items: Obj[] = [...clusterctl];
      for (let i = 0; i < rounds; i++)
        for (const o of copies) items.push({ ...o, metadata: { ...o.metadata, name: `${o.metadata.name}-copy${i}` } });
      return writeDump(repo, name, items);
    };
    const [small, large] = [dumpOf('small.yaml', 10.5e6 / 4), dumpOf('big.yaml', 10.5e6)];
    const size = readFileSync(large).length;
    expect(size).toBeGreaterThan(20e6);
    // The same parse and plan without writing, so the one repository serves every sample. Medians of
    // alternating runs: one sample on a loaded runner measured the other workers (2.17 s for 2 s).
    const dryRun = (dump: string) => async () =>
      expect((await importIn(repo, '--from', dump, '--dry-run')).code).toBe(0);
    const ratio = (t: Record<string, Timed>) => {
      const [t5, t20] = Object.values(t).map((one) => one.median) as [number, number];
      return t20 / t5;
    };
    const times = await timeSideBySideUntil(
      {
        [`${(readFileSync(small).length / 1e6).toFixed(1)} MB`]: dryRun(small),
        [`${(size / 1e6).toFixed(1)} MB`]: dryRun(large),
      },
      (t) => ratio(t) < 8,
      3,
    );
    expect(ratio(times), describeTimes(times)).toBeLessThan(8);
    const result = await importIn(repo, '--from', large);
    expect(result.code, result.stderr).toBe(0);
    expect(readdirSync(path.join(repo, 'providers'))).toHaveLength(4);
  });
});
