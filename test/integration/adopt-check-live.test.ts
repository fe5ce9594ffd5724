/**
 * Adoption end to end on the dump fixtures (test/fixtures/live/, built from the real releases):
 * `import` → `build` → `check --live` reports no change for clusterctl installs with default
 * variables, and reports each kind of real difference with its object and field.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { copyDump, dumpItems, findItem, writeDump } from '../helpers/live-dump-files.js';
import { CORE, configYaml, copyExample, makeRepo } from '../helpers/repo.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { suiteTempDir } from '../helpers/tmp.js';

type Obj = Record<string, any>;

/** One cache for the file: the releases are parsed once, not once per test. */
const CACHE = suiteTempDir();
const cli = (repo: string, ...argv: string[]) =>
  runCli([...argv, '--repo', repo], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: CACHE } });

const KUBEADM = (v: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-bootstrap-system\nspec:\n  version: ${v}\n---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ControlPlaneProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-control-plane-system\nspec:\n  version: ${v}\n`;
const DOCKER = (v: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: docker\n  namespace: capd-system\nspec:\n  version: ${v}\n`;

describe('import → build → check --live on a cluster clusterctl installed with default variables', () => {
  it('v1.12.0, v1 List, into providers/: the first sync changes nothing', async () => {
    const repo = makeRepo({});
    const dump = copyDump(repo, 'clusterctl-v1.12.0.list.yaml');
    const imported = await cli(repo, 'import', '--from', dump);
    expect(imported.code, imported.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'providers/cluster-api.yaml'), 'utf8')).toContain(
      'version: v1.12.0 # from the version field of Provider capi-system/cluster-api',
    );
    expect((await cli(repo, 'build')).code).toBe(0);
    const checked = await cli(repo, 'check', '--live', dump);
    expect(checked.stderr).toMatch(/the first sync changes nothing \(131 objects equal the live ones\)/);
    expect(checked.code).toBe(0);
  });

  it("v1.11.0, multi-document stream, as an overlay over a v1.12.0 base: patches, and nothing but capi-render's own annotations change", async () => {
    const repo = makeRepo({
      'capi-render.yaml': configYaml('gitops:\n  flavour: argocd\n'),
      'providers/core.yaml': CORE('v1.12.0'),
      'providers/kubeadm.yaml': KUBEADM('v1.12.0'),
      'providers/docker.yaml': DOCKER('v1.12.0'),
    });
    const dump = copyDump(repo, 'clusterctl-v1.11.0.stream.yaml');
    const imported = await cli(repo, 'import', '--from', dump, '--env', 'mgmt');
    expect(imported.code, imported.stderr).toBe(0);
    const overlay = readFileSync(path.join(repo, 'overlays/mgmt/overlay.yaml'), 'utf8');
    // Differences are patches of spec.version only; the base is referenced, not copied.
    expect(overlay).toContain('resources:\n  - ../../providers\n');
    expect(overlay.match(/^\s+version: v1\.11\.0 # from the version field of Provider /gm)).toHaveLength(4);
    expect(overlay).toContain(
      'version: v1.16.1 # from cert-manager.clusterctl.cluster.x-k8s.io/version on Deployment cert-manager/cert-manager',
    );
    expect(existsSync(path.join(repo, 'overlays/mgmt/providers.yaml'))).toBe(false);
    expect((await cli(repo, 'build', '--env', 'mgmt')).code).toBe(0);
    const checked = await cli(repo, 'check', '--live', dump, '--env', 'mgmt', '--json');
    const report = JSON.parse(checked.stdout);
    expect({
      clean: report.clean,
      created: report.created,
      changed: report.changed,
      notRendered: report.notRendered,
    }).toEqual({ clean: true, created: [], changed: [], notRendered: [] });
    expect(new Set(report.ownMetadataOnly.flatMap((o: Obj) => o.fields.map((f: Obj) => f.path)))).toEqual(
      new Set([
        'metadata.annotations["argocd.argoproj.io/sync-wave"]',
        'metadata.annotations["argocd.argoproj.io/sync-options"]',
      ]),
    );
    expect(checked.code).toBe(0);
  });
});

describe('check --live reports real differences with the object and the field', () => {
  const repo = suiteTempDir();
  let items: Obj[];
  beforeAll(async () => {
    makeRepo(
      {
        'providers/core.yaml': CORE('v1.12.0'),
        'providers/kubeadm.yaml': KUBEADM('v1.12.0'),
        'providers/docker.yaml': DOCKER('v1.12.0'),
      },
      repo,
    );
    items = dumpItems('clusterctl-v1.12.0');
  });
  const check = async (name: string, mutate: (items: Obj[]) => Obj[]) => {
    const file = writeDump(repo, name, mutate(structuredClone(items)));
    const result = await cli(repo, 'check', '--live', file, '--json');
    return { code: result.code, report: JSON.parse(result.stdout) as Obj };
  };

  it('a feature gate changed at install time: the field, the gate and the variable that reproduces it', async () => {
    const { code, report } = await check('gate.yaml', (all) => {
      const args = findItem(all, 'Deployment', 'capi-controller-manager').spec.template.spec.containers[0]
        .args as string[];
      args[3] = args[3]!.replace('MachinePool=true', 'MachinePool=false');
      return all;
    });
    expect(code).toBe(1);
    expect(report.changed).toHaveLength(1);
    const [object] = report.changed;
    expect(object.object).toBe('Deployment.apps/capi-system/capi-controller-manager');
    expect(object.fields).toHaveLength(1);
    expect(object.fields[0]).toMatchObject({
      path: 'spec.template.spec.containers[name=manager].args',
      change: 'changed',
      owners: ['clusterctl (Update)'],
      details: ['feature gate MachinePool: live false, rendered true'],
    });
    expect(object.fields[0].hint).toContain('EXP_MACHINE_POOL=false');
  });

  it('a different image: the field and the images: override that reproduces it', async () => {
    const { code, report } = await check('image.yaml', (all) => {
      const container = findItem(all, 'Deployment', 'capd-controller-manager').spec.template.spec.containers[0];
      container.image = container.image.replace('gcr.io/k8s-staging-cluster-api', 'registry.example.com/mirror');
      return all;
    });
    expect(code).toBe(1);
    expect(report.changed.map((o: Obj) => [o.object, o.fields.map((f: Obj) => f.path)])).toEqual([
      ['Deployment.apps/capd-system/capd-controller-manager', ['spec.template.spec.containers[name=manager].image']],
    ]);
    expect(report.changed[0].fields[0].hint).toBe(
      'images: {infrastructure-docker: {repository: "registry.example.com/mirror"}} in capi-render.yaml reproduces the live image',
    );
  });

  it.each([
    [
      'replicas: the provider CR field, its file and line, and the value that keeps the live one',
      (all: Obj[]) => (findItem(all, 'Deployment', 'capi-controller-manager').spec.replicas = 2),
      'Deployment.apps/capi-system/capi-controller-manager',
      'spec.replicas',
      'input: spec.deployment.replicas of CoreProvider capi-system/cluster-api, at providers/core.yaml:7; 2 keeps the live value',
    ],
    [
      'the service account: the pod field of spec.deployment',
      (all: Obj[]) =>
        (findItem(all, 'Deployment', 'capd-controller-manager').spec.template.spec.serviceAccountName = 'other'),
      'Deployment.apps/capd-system/capd-controller-manager',
      'spec.template.spec.serviceAccountName',
      'input: spec.deployment.serviceAccountName of InfrastructureProvider capd-system/docker, at providers/docker.yaml:7; "other" keeps the live value',
    ],
    [
      "a field no provider setting decides: the CR's manifestPatches",
      (all: Obj[]) => (findItem(all, 'Service', 'capi-webhook-service').spec.ports[0].targetPort = 'other'),
      'Service/capi-system/capi-webhook-service',
      'spec.ports[port=443,protocol=TCP].targetPort',
      'input: spec.manifestPatches of CoreProvider capi-system/cluster-api, at providers/core.yaml:7; no provider setting decides spec.ports[port=443,protocol=TCP].targetPort of Service capi-webhook-service; a patch does',
    ],
  ])('%s', async (_name, mutate, object, field, hint) => {
    const { code, report } = await check('input-hint.yaml', (all) => {
      mutate(all);
      return all;
    });
    expect(code).toBe(1);
    const found = report.changed.find((o: Obj) => o.object === object);
    expect(found?.fields.find((f: Obj) => f.path.startsWith(field))?.hint, JSON.stringify(report.changed)).toBe(hint);
  });

  it('in an environment with an overlay: a field a patch sets points at the patch; one the base sets offers a patch for this environment', async () => {
    const overlay =
      'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\npatches:\n  - patch: |\n      apiVersion: operator.cluster.x-k8s.io/v1alpha2\n      kind: CoreProvider\n      metadata:\n        name: cluster-api\n        namespace: capi-system\n      spec:\n        deployment:\n          replicas: 3\n';
    const env = makeRepo({
      'providers/core.yaml': CORE('v1.12.0'),
      'providers/kubeadm.yaml': KUBEADM('v1.12.0'),
      'providers/docker.yaml': DOCKER('v1.12.0'),
      'overlays/mgmt/overlay.yaml': overlay,
    });
    const all = structuredClone(items);
    findItem(all, 'Deployment', 'capi-controller-manager').spec.replicas = 2;
    findItem(all, 'Deployment', 'capd-controller-manager').spec.template.spec.serviceAccountName = 'other';
    const result = await cli(env, 'check', '--live', writeDump(env, 'dump.yaml', all), '--json');
    const report = JSON.parse(result.stdout);
    const hintOf = (object: string, field: string) =>
      report.changed.find((o: Obj) => o.object === object)?.fields.find((f: Obj) => f.path === field)?.hint;
    expect(hintOf('Deployment.apps/capi-system/capi-controller-manager', 'spec.replicas')).toBe(
      'input: spec.deployment.replicas of CoreProvider capi-system/cluster-api, at overlays/mgmt/overlay.yaml:6; 2 keeps the live value',
    );
    expect(hintOf('Deployment.apps/capd-system/capd-controller-manager', 'spec.template.spec.serviceAccountName')).toBe(
      'input: spec.deployment.serviceAccountName of InfrastructureProvider capd-system/docker, at providers/docker.yaml:7; or a patch in overlays/mgmt/overlay.yaml, for this environment only; "other" keeps the live value',
    );
    // The text report prints the hint under the field.
    const text = await cli(env, 'check', '--live', 'dump.yaml');
    expect(text.stderr).toContain(
      '    spec.replicas: live 2, rendered 3 (owned by clusterctl)\n      hint: input: spec.deployment.replicas of CoreProvider capi-system/cluster-api, at overlays/mgmt/overlay.yaml:6; 2 keeps the live value\n',
    );
  });

  it('an object missing from the cluster would be created', async () => {
    const { code, report } = await check('missing.yaml', (all) =>
      all.filter(
        (o) =>
          !(o.metadata.name === 'capi-webhook-service' && ['Service', 'Endpoints', 'EndpointSlice'].includes(o.kind)) &&
          !o.metadata.name.startsWith('capi-webhook-service-'),
      ),
    );
    expect(code).toBe(1);
    expect(report.created.map((o: Obj) => [o.object, o.file])).toEqual([
      ['Service/capi-system/capi-webhook-service', 'rendered/default/cluster-api/service-capi-webhook-service.yaml'],
    ]);
    expect(report.changed).toEqual([]);
  });

  it("an extra live object with clusterctl's labels is listed first, as not rendered", async () => {
    const leftover: Obj = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: 'capi-leftover',
        namespace: 'capi-system',
        labels: { 'cluster.x-k8s.io/provider': 'cluster-api', 'clusterctl.cluster.x-k8s.io': '' },
      },
      data: { a: 'b' },
    };
    const file = writeDump(
      repo,
      'extra.yaml',
      [...structuredClone(items), leftover].map((o) =>
        o.kind === 'Deployment' && o.metadata.name === 'capi-controller-manager'
          ? { ...o, spec: { ...o.spec, replicas: 2 } }
          : o,
      ),
    );
    const text = await cli(repo, 'check', '--live', file);
    expect(text.code).toBe(1);
    const lines = text.stderr.split('\n');
    expect(lines[0]).toBe(
      `${file}: error[drift]: ConfigMap/capi-system/capi-leftover is live with clusterctl's labels but not rendered: a prune by those labels would delete it, and after adoption nothing manages it`,
    );
    expect(text.stderr).toContain('spec.replicas: live 2, rendered 1 (owned by clusterctl)');
    expect(lines.at(-2)).toMatch(
      /the first sync is not a no-op: 1 live object not rendered, 1 to change, 130 unchanged$/,
    );
  });

  it('a dump without a CRD whose objects it holds is incomplete, not a creation', async () => {
    const { code, report } = await check('no-inventory-crd.yaml', (all) =>
      all.filter((o) => o.metadata.name !== 'providers.clusterctl.cluster.x-k8s.io'),
    );
    expect(report.missingFromDump.map((o: Obj) => o.object)).toEqual([
      'CustomResourceDefinition.apiextensions.k8s.io/providers.clusterctl.cluster.x-k8s.io',
    ]);
    expect(report.created).toEqual([]);
    expect(code).toBe(0);
  });

  it('a dump without managedFields: same verdict, and a warning that ownership is unknown', async () => {
    const file = writeDump(
      repo,
      'no-managed-fields.yaml',
      structuredClone(items).map((o) => ({ ...o, metadata: { ...o.metadata, managedFields: undefined } })),
    );
    const result = await cli(repo, 'check', '--live', file);
    expect(result.stderr).toContain('warning[live-dump]');
    expect(result.stderr).toMatch(/changes nothing/);
    expect(result.code).toBe(0);
  });
});

describe('import → build → check --live on a cluster the operator installed', () => {
  it("imports the operator CRs, lists the configSecret, and the first sync adds only clusterctl's inventory and namespace labels", async () => {
    const config = `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nrepositories:\n  - path: ${FIXTURES}repository\n`;
    const repo = makeRepo({ 'capi-render.yaml': config });
    const dump = copyDump(repo, 'operator-v1.12.0.stream.yaml');
    const imported = await cli(repo, 'import', '--from', dump);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr).toContain(
      'needs Secret capd-system/capd-variables (spec.configSecret of InfrastructureProvider capd-system/docker) among the inputs: not imported, values never leave the cluster; not in the dump',
    );
    const core = readFileSync(path.join(repo, 'providers/cluster-api.yaml'), 'utf8');
    expect(core).toContain('version: v1.12.0 # from status.installedVersion of CoreProvider capi-system/cluster-api');
    expect(core).not.toMatch(/finalizers|applied-spec-hash|last-applied|status:|uid:|managedFields/);
    // Nor what admission added (the webhook's namespace and empty structs, the CRD's verbosity).
    expect(core).toMatch(/  manager:\n {4}featureGates:\n {6}ClusterTopology: true\n(?! {4})/);
    expect(readFileSync(path.join(repo, 'providers/infrastructure-docker.yaml'), 'utf8')).toMatch(
      /  configSecret:\n {4}name: capd-variables\n(?! {4})/,
    );
    // The user supplies the Secret (capi-render never reads values from the cluster).
    writeFileSync(
      path.join(repo, 'providers/capd-variables.yaml'),
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capd-variables\n  namespace: capd-system\nstringData:\n  EXP_MACHINE_POOL: "false"\n',
    );
    const built = await cli(repo, 'build');
    expect(built.code, built.stderr).toBe(0);
    const checked = await cli(repo, 'check', '--live', dump, '--json');
    const report = JSON.parse(checked.stdout);
    expect(checked.code).toBe(1);
    expect(report.notRendered).toEqual([]);
    expect(report.created.map((o: Obj) => o.object).sort()).toEqual([
      'CustomResourceDefinition.apiextensions.k8s.io/providers.clusterctl.cluster.x-k8s.io',
      'Provider.clusterctl.cluster.x-k8s.io/capd-system/infrastructure-docker',
      'Provider.clusterctl.cluster.x-k8s.io/capi-kubeadm-bootstrap-system/bootstrap-kubeadm',
      'Provider.clusterctl.cluster.x-k8s.io/capi-kubeadm-control-plane-system/control-plane-kubeadm',
      'Provider.clusterctl.cluster.x-k8s.io/capi-system/cluster-api',
    ]);
    // The operator drops the components' Namespaces (the user created them), so their labels are added.
    expect(report.changed.map((o: Obj) => o.object)).toEqual([
      'Namespace/capi-system',
      'Namespace/capi-kubeadm-bootstrap-system',
      'Namespace/capi-kubeadm-control-plane-system',
      'Namespace/capd-system',
    ]);
    for (const o of report.changed) {
      expect(o.fields.map((f: Obj) => f.path)).toContain('metadata.labels["clusterctl.cluster.x-k8s.io"]');
      for (const f of o.fields)
        expect(f).toMatchObject({ path: expect.stringMatching(/^metadata\.labels/), change: 'added' });
    }
  });
});

describe('check --live usage', () => {
  it.each([
    [
      '--json without --live',
      ['check', '--json'],
      /^capi-render check: --json and --field-manager go with --live FILE$/m,
    ],
    [
      'several environments and no --env',
      ['check', '--live', 'cluster.yaml'],
      /^capi-render check: --live compares one environment with one cluster; choose it with --env \(dev, prod\)$/m,
    ],
  ])('%s: exit 2', async (_name, argv, message) => {
    const repo = copyExample();
    const result = await runCli(argv, { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: CACHE } });
    expect(result.stderr).toMatch(message);
    expect(result.code).toBe(2);
  });
});
