/**
 * Adoption against an outside reference: what a real `clusterctl init --infrastructure docker`
 * (clusterctl v1.12.3, kind, CLUSTER_TOPOLOGY=true) left in a cluster, as its user printed it
 * (test/fixtures/live/real/, provenance in its PROVENANCE.md). The other dumps under
 * test/fixtures/live/ are capi-render's own render put through a simulated API server; these are
 * not. The release has no artifacts here, but the sources of every manifest (config/ trees of
 * core, kubeadm and CAPD) are unchanged from the v1.12.0 tag to v1.12.3, so a v1.12.0 render with
 * the same variables must name the same objects, and differ in versions and image tags only.
 */
import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { fixtureText } from '../helpers/fixtures.js';
import { dumpItems, writeDump } from '../helpers/live-dump-files.js';
import { outputOf, tableRows, transcriptBlocks, type TranscriptBlock } from '../helpers/kubectl-transcript.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';

type Obj = Record<string, any>;

const PROVIDERS = 'live/real/clusterctl-v1.12.3-docker.providers.yaml';
const TRANSCRIPT = 'live/real/clusterctl-v1.12.3-docker.transcript.txt';
const CACHE = suiteTempDir();
const cli = (repo: string, ...argv: string[]) =>
  runCli([...argv, '--repo', repo], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: CACHE } });

const KUBEADM = `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-bootstrap-system\nspec:\n  version: v1.12.0\n---\napiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ControlPlaneProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-control-plane-system\nspec:\n  version: v1.12.0\n`;
const DOCKER = `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: docker\n  namespace: capd-system\nspec:\n  version: v1.12.0\n`;

/** The same installation at v1.12.0: core, kubeadm ×2, docker, CLUSTER_TOPOLOGY=true as the user exported it. */
const REPO = suiteTempDir();
let rendered: Obj[];
let blocks: TranscriptBlock[];
let inventory: Obj[];
let simulated: Obj[];
beforeAll(async () => {
  makeRepo(
    {
      'capi-render.yaml': configYaml('variables:\n  CLUSTER_TOPOLOGY: "true"\n'),
      'providers/core.yaml': CORE('v1.12.0'),
      'providers/kubeadm.yaml': KUBEADM,
      'providers/docker.yaml': DOCKER,
    },
    REPO,
  );
  const built = await cli(REPO, 'build', '--stdout');
  expect(built.code, built.stderr).toBe(0);
  rendered = (jsYaml.loadAll(built.stdout) as Obj[]).filter(Boolean);
  blocks = transcriptBlocks(TRANSCRIPT);
  inventory = jsYaml.loadAll(fixtureText(PROVIDERS)) as Obj[];
  simulated = dumpItems('clusterctl-v1.12.0');
}, 120_000);

const kindOf = (objects: Obj[], kind: string) => objects.filter((o) => o.kind === kind);
const ref = (o: Obj) => `${o.metadata.namespace}/${o.metadata.name}`;
const sorted = (values: Iterable<string>) => [...values].sort();

describe('the real inventory (four clusterctl Provider objects, kubectl get -o yaml)', () => {
  it("agrees with the same cluster's kubectl get providers table (the fixture is one installation)", () => {
    const table = tableRows(outputOf(blocks, 'kubectl get providers.clusterctl.cluster.x-k8s.io -A'), 'AGE').map(
      ([ns, name, , type, provider, version]) => `${ns}/${name} ${type} ${provider} ${version}`,
    );
    expect(sorted(table)).toEqual(sorted(inventory.map((p) => `${ref(p)} ${p.type} ${p.providerName} ${p.version}`)));
  });

  it('import declares exactly those four providers at v1.12.3, and says the dump has no clusterctl cert-manager', async () => {
    const repo = makeRepo({});
    const dump = path.join(repo, 'cluster.yaml');
    writeFileSync(dump, fixtureText(PROVIDERS));
    const imported = await cli(repo, 'import', '--from', dump);
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.stderr.split('\n').filter((l) => l.startsWith('found '))).toEqual([
      'found CoreProvider capi-system/cluster-api v1.12.3 (clusterctl inventory Provider capi-system/cluster-api)',
      'found BootstrapProvider capi-kubeadm-bootstrap-system/kubeadm v1.12.3 (clusterctl inventory Provider capi-kubeadm-bootstrap-system/bootstrap-kubeadm)',
      'found ControlPlaneProvider capi-kubeadm-control-plane-system/kubeadm v1.12.3 (clusterctl inventory Provider capi-kubeadm-control-plane-system/control-plane-kubeadm)',
      'found InfrastructureProvider capd-system/docker v1.12.3 (clusterctl inventory Provider capd-system/infrastructure-docker)',
    ]);
    // The dump holds the inventory only, so cert-manager cannot be told apart from one managed elsewhere.
    expect(imported.stderr).toContain(
      'no cert-manager installed by clusterctl in the dump: if cert-manager is managed elsewhere, set certManager: {install: false}',
    );
    for (const p of inventory) {
      const declared = jsYaml.load(
        readFileSync(path.join(repo, 'providers', `${p.metadata.name}.yaml`), 'utf8'),
      ) as Obj;
      expect({
        kind: declared.kind,
        name: declared.metadata.name,
        namespace: declared.metadata.namespace,
        spec: declared.spec,
      }).toEqual({
        kind: p.type,
        name: p.providerName,
        namespace: p.metadata.namespace,
        spec: { version: 'v1.12.3' },
      });
    }
  });

  it("check --live: capi-render's Provider objects equal clusterctl's in name, namespace, labels, providerName and type; only the version differs", async () => {
    const dump = path.join(tempDir(), 'cluster.yaml');
    writeFileSync(dump, fixtureText(PROVIDERS));
    const checked = await cli(REPO, 'check', '--live', dump, '--json');
    expect(checked.code).toBe(1);
    const report = JSON.parse(checked.stdout) as Obj;
    expect(report.changed.map((o: Obj) => ({ object: o.object, fields: o.fields }))).toEqual(
      inventory.map((p) => ({
        object: `Provider.clusterctl.cluster.x-k8s.io/${ref(p)}`,
        // The hint names the input that decides it: the provider CR's spec.version.
        fields: [
          {
            path: 'version',
            change: 'changed',
            live: 'v1.12.3',
            rendered: 'v1.12.0',
            hint: expect.stringMatching(
              /^input: spec\.version of \w+Provider [\w-]+\/[\w-]+, at providers\/[\w.-]+:\d+(; .*)?; "v1\.12\.3" keeps the live value$/,
            ),
          },
        ],
      })),
    );
    expect(report.ownMetadataOnly).toEqual([]);
    expect(report.unchanged).toBe(0);
    expect(report.notRendered).toEqual([]);
    // The inventory CRD is rendered and exists (its objects are live) but was not dumped.
    expect(report.missingFromDump.map((o: Obj) => o.object)).toEqual([
      'CustomResourceDefinition.apiextensions.k8s.io/providers.clusterctl.cluster.x-k8s.io',
    ]);
    expect(report.created).toHaveLength(rendered.length - inventory.length - 1);
    // kubectl get without --show-managed-fields: ownership cannot be judged, and the report says so.
    expect(report.ownershipKnown).toBe(false);
    expect(checked.stderr).toContain(
      'has no managedFields (kubectl get hides them unless --show-managed-fields is given)',
    );
  });
});

/**
 * What the transcript shows, and how to read the same thing from a list of objects. `renderOnly`:
 * the simulated dump (clusterctl-v1.12.0) was made with clusterctl's default variables, not the
 * user's CLUSTER_TOPOLOGY=true; `dumpOnly`: objects controllers create, which no render holds.
 */
const FACTS: {
  what: string;
  live: () => string[];
  from: (objects: Obj[]) => string[];
  renderOnly?: true;
  dumpOnly?: true;
}[] = [
  {
    what: "the provider CRDs (kubectl get crd | grep x-k8s): 27 of core, kubeadm and CAPD, and clusterctl's inventory CRD",
    live: () => tableRows(outputOf(blocks, 'kubectl get crd | grep x-k8s')).map(([name]) => name!),
    from: (objects) =>
      kindOf(objects, 'CustomResourceDefinition')
        .map((o) => o.metadata.name)
        .filter((n: string) => n.includes('x-k8s')),
  },
  {
    what: "cert-manager's CRDs (kubectl get crd | grep cert)",
    live: () => tableRows(outputOf(blocks, 'kubectl get crd | grep cert')).map(([name]) => name!),
    from: (objects) =>
      kindOf(objects, 'CustomResourceDefinition')
        .map((o) => o.metadata.name)
        .filter((n: string) => n.includes('cert')),
  },
  {
    what: "the controller Deployments (the pods' names less the ReplicaSet and pod suffixes), cert-manager's included",
    live: () =>
      tableRows(outputOf(blocks, 'k get pods  -A'), 'NAMESPACE')
        .filter(([ns]) => ns !== 'kube-system' && ns !== 'local-path-storage')
        .map(([ns, pod]) => `${ns}/${pod!.split('-').slice(0, -2).join('-')}`),
    from: (objects) => kindOf(objects, 'Deployment').map(ref),
  },
  {
    what: "capi-controller-manager's --feature-gates (kubectl describe)",
    live: () =>
      outputOf(blocks, 'kubectl describe -n capi-system deployment.apps/capi-controller-manager').map((l) => l.trim()),
    from: (objects) =>
      kindOf(objects, 'Deployment')
        .find((o) => ref(o) === 'capi-system/capi-controller-manager')!
        .spec.template.spec.containers[0].args.filter((a: string) => a.startsWith('--feature-gates=')),
    renderOnly: true,
  },
  {
    what: "cert-manager's Deployments, Services with their type and ports, and ServiceAccounts (less the namespace's default one)",
    live: () =>
      certManagerTable()
        .filter(
          ([name]) => /^(deployment\.apps|service|serviceaccount)\//.test(name!) && name !== 'serviceaccount/default',
        )
        .map(([name, type, , , ports]) => (name!.startsWith('service/') ? `${name} ${type} ${ports}` : name!)),
    from: (objects) =>
      objects
        .filter(
          (o) =>
            o.metadata.namespace === 'cert-manager' && ['Deployment', 'Service', 'ServiceAccount'].includes(o.kind),
        )
        .map((o) =>
          o.kind === 'Service'
            ? `service/${o.metadata.name} ${o.spec.type ?? 'ClusterIP'} ${o.spec.ports.map((p: Obj) => `${p.port}/${p.protocol ?? 'TCP'}`).join(',')}`
            : `${o.kind === 'Deployment' ? 'deployment.apps' : 'serviceaccount'}/${o.metadata.name}`,
        ),
  },
  {
    what: "cert-manager's Endpoints (one per selector Service, made by the endpoints controller)",
    live: () =>
      certManagerTable()
        .filter(([name]) => name!.startsWith('endpoints/'))
        .map(([name]) => name!),
    from: (objects) =>
      kindOf(objects, 'Endpoints')
        .filter((o) => o.metadata.namespace === 'cert-manager')
        .map((o) => `endpoints/${o.metadata.name}`),
    dumpOnly: true,
  },
  {
    what: "the providers' self-signed Issuers",
    live: () =>
      tableRows(outputOf(blocks, 'kubectl get issuers.cert-manager.io -A'), 'NAMESPACE').map(
        ([ns, name]) => `${ns}/${name}`,
      ),
    from: (objects) => kindOf(objects, 'Issuer').map(ref),
  },
  {
    what: 'the webhook serving Certificates, with the Secret and Issuer each names',
    live: () =>
      tableRows(outputOf(blocks, 'kubectl get certificates.cert-manager.io -A -owide'), 'NAMESPACE').map(
        ([ns, name, , secret, issuer]) => `${ns}/${name} ${secret} ${issuer}`,
      ),
    from: (objects) =>
      kindOf(objects, 'Certificate').map((o) => `${ref(o)} ${o.spec.secretName} ${o.spec.issuerRef.name}`),
  },
  {
    what: 'the CertificateRequests cert-manager made (<certificate>-1), with their Issuer',
    live: () =>
      tableRows(outputOf(blocks, 'kubectl get certificaterequests.cert-manager.io -A -owide'), 'NAMESPACE').map(
        ([ns, name, , , issuer]) => `${ns}/${name} ${issuer}`,
      ),
    from: (objects) => kindOf(objects, 'CertificateRequest').map((o) => `${ref(o)} ${o.spec.issuerRef.name}`),
    dumpOnly: true,
  },
  {
    what: 'the inventory objects (kubectl get providers -A), less the version',
    live: () =>
      tableRows(outputOf(blocks, 'kubectl get providers.clusterctl.cluster.x-k8s.io -A'), 'AGE').map(
        ([ns, name, , type, provider]) => `${ns}/${name} ${type} ${provider}`,
      ),
    from: (objects) => kindOf(objects, 'Provider').map((o) => `${ref(o)} ${o.type} ${o.providerName}`),
  },
];

const certManagerTable = () =>
  tableRows(outputOf(blocks, 'kubectl get deploy,pod,svc,ep,cm,secret,sa -n cert-manager'), 'Warning:', 'NAME');

describe("the same cluster's kubectl transcript against the v1.12.0 render with the same variables", () => {
  it.each(FACTS.filter((f) => !f.dumpOnly))('$what: the same', ({ live, from }) => {
    const liveValues = live();
    expect(liveValues.length).toBeGreaterThan(0);
    expect(sorted(from(rendered))).toEqual(sorted(liveValues));
  });
});

describe("what the transcript shows in cert-manager's namespace that no installer applies", () => {
  it("the webhook's CA Secret, kube-root-ca.crt and the default ServiceAccount are made in the cluster, and neither rendered nor in the simulated dump", () => {
    const runtime = certManagerTable()
      .filter(([name]) => /^(secret|configmap|serviceaccount)\//.test(name!))
      .map(([name]) => name!)
      .filter((name) => !name.startsWith('serviceaccount/cert-manager'));
    expect(sorted(runtime)).toEqual([
      'configmap/kube-root-ca.crt',
      'secret/cert-manager-webhook-ca',
      'serviceaccount/default',
    ]);
    const named = (objects: Obj[]) =>
      objects
        .filter((o) => o.metadata.namespace === 'cert-manager')
        .map((o) => `${o.kind.toLowerCase()}/${o.metadata.name}`);
    for (const objects of [rendered, simulated]) for (const name of runtime) expect(named(objects)).not.toContain(name);
  });
});

describe('the same transcript against the simulated dump test/fixtures/live/clusterctl-v1.12.0 (what the other adoption tests read)', () => {
  it.each(FACTS.filter((f) => !f.renderOnly))('$what: the same', ({ live, from }) => {
    const liveValues = live();
    expect(liveValues.length).toBeGreaterThan(0);
    expect(sorted(from(simulated))).toEqual(sorted(liveValues));
  });
});

/**
 * The operator's CRs as a real cluster holds them (cluster-api-operator issue #755, see
 * live/real/PROVENANCE.md): its defaulting webhook sets `configSecret.namespace`, and its Go types
 * write `spec.manager`'s value structs back as `{}`. The simulated operator dump lacks both; put them
 * on it as the webhook would, the import and the first sync must come out the same.
 */
describe("operator CRs with what the operator's defaulting webhook adds", () => {
  const webhookDefaulted = (items: Obj[]) =>
    items.map((o) => {
      if (o.apiVersion !== 'operator.cluster.x-k8s.io/v1alpha2') return o;
      const spec = { ...o.spec };
      if (spec.configSecret && !spec.configSecret.namespace)
        spec.configSecret = { ...spec.configSecret, namespace: o.metadata.namespace };
      if (spec.manager) spec.manager = { ...spec.manager, health: {}, metrics: {}, webhook: {} };
      return { ...o, spec };
    });
  const adopt = async (items: Obj[]) => {
    const config = configYaml().replace('certManager:\n  version: v1.19.4\n', 'certManager:\n  install: false\n');
    const repo = makeRepo({ 'capi-render.yaml': config });
    const dump = writeDump(repo, 'cluster.yaml', items);
    const imported = await cli(repo, 'import', '--from', dump);
    expect(imported.code, imported.stderr).toBe(0);
    writeFileSync(
      path.join(repo, 'providers/capd-variables.yaml'),
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: capd-variables\n  namespace: capd-system\nstringData:\n  EXP_MACHINE_POOL: "false"\n',
    );
    const built = await cli(repo, 'build', '--stdout');
    expect(built.code, built.stderr).toBe(0);
    const checked = await cli(repo, 'check', '--live', dump, '--json');
    const report = JSON.parse(checked.stdout) as Obj;
    return {
      repo,
      output: built.stdout,
      verdict: {
        code: checked.code,
        created: report.created.map((o: Obj) => o.object),
        changed: report.changed.map((o: Obj) => o.object),
        notRendered: report.notRendered,
      },
    };
  };

  it('are imported without those defaults, and render byte for byte what the plain CRs render, with the same first-sync verdict', async () => {
    // The fixture's CRs carry what admission added; `plain` has them as their author wrote them.
    const plain = dumpItems('operator-v1.12.0').map((o) =>
      o.apiVersion === 'operator.cluster.x-k8s.io/v1alpha2'
        ? { ...o, spec: JSON.parse(o.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration']).spec }
        : o,
    );
    const defaulted = webhookDefaulted(plain);
    expect(defaulted).not.toEqual(plain);
    const [before, after] = [await adopt(plain), await adopt(defaulted)];
    const docker = readFileSync(path.join(after.repo, 'providers/infrastructure-docker.yaml'), 'utf8');
    expect(docker).toMatch(/configSecret:\n\s+name: capd-variables\n\s+version: /);
    expect(readFileSync(path.join(after.repo, 'providers/cluster-api.yaml'), 'utf8')).not.toMatch(
      /health: \{\}|metrics: \{\}|webhook: \{\}/,
    );
    expect(after.output).toBe(before.output);
    expect(after.verdict).toEqual(before.verdict);
    expect(after.verdict.changed).toEqual([
      'Namespace/capi-system',
      'Namespace/capi-kubeadm-bootstrap-system',
      'Namespace/capi-kubeadm-control-plane-system',
      'Namespace/capd-system',
    ]);
  });
});
