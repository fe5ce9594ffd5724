/**
 * Errors users know from clusterctl and the cluster-api-operator (and search the web for) start with
 * the peer's own phrase, quoted, on the first line of capi-render's error — followed by capi-render's
 * location, its own words and a hint. One case per peer message: build errors through the CLI,
 * upgrade-plan errors through the planner (formatted as the CLI prints them).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostics } from '../../src/cli/format.js';
import type { Diagnostic } from '../../src/errors.js';
import { parseMetadata, type ReleaseMetadata } from '../../src/source/metadata.js';
import type { ProviderKind } from '../../src/declarations/provider-kinds.js';
import { planEnvironmentUpgrade } from '../../src/upgrade/plan.js';
import { selectTargets, type UpgradeRequest } from '../../src/upgrade/select-targets.js';
import { upgradeInfo, type PlanProvider } from '../../src/upgrade/upgrade-info.js';
import { runCli } from '../helpers/cli.js';
import { fixtureText } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const cr = (kind: string, name: string, namespace: string, version: string, extra = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  version: ${version}\n${extra}`;
const EVIL = (extra = '') => cr('InfrastructureProvider', 'evil', 'evil-system', 'v1.0.0', extra);
const META = (contract = 'v1beta2', minor = 0) => `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: ${minor}\n  contract: ${contract}\n`;
const NS = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: evil-system\n';
const deployment = (image = 'registry.example.com/evil:v1.0.0') =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: evil-controller-manager\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: ${image}\n`;
/** The `infrastructure-evil` provider served from a local repository inside the test repository. */
const evil = (files: { components?: string; metadata?: string }) => ({
  ...(files.components !== undefined ? { 'artifacts/infrastructure-evil/v1.0.0/infrastructure-components.yaml': files.components } : {}),
  ...(files.metadata !== undefined ? { 'artifacts/infrastructure-evil/v1.0.0/metadata.yaml': files.metadata } : {}),
  'providers/evil.yaml': EVIL(),
});
const url = (u: string) => ({ 'providers/evil.yaml': EVIL(`  fetchConfig:\n    url: ${u}\n`) });
const BOOTSTRAP = (version: string) => cr('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', version);

interface BuildCase {
  name: string;
  files: Record<string, string>;
  /** A first build (with these files instead), whose lock the checked build starts from. */
  before?: Record<string, string>;
  /** What the first line of stderr must contain. */
  first: string;
}

const buildCases: BuildCase[] = [
  // cluster-api-operator, internal/controller/preflight_checks.go
  { name: 'a CoreProvider not named cluster-api', files: { 'providers/core.yaml': CORE().replace('name: cluster-api', 'name: capi') }, first: 'cluster-api-operator: "Incorrect CoreProvider name: capi. It should be cluster-api"' },
  { name: 'two CoreProviders', files: { 'providers/core2.yaml': CORE('v1.12.0', 'capi-other') }, first: 'cluster-api-operator: "CoreProvider already exists in the cluster. Only one is allowed."' },
  {
    name: 'fetchConfig with both url and selector',
    files: { 'providers/evil.yaml': EVIL('  fetchConfig:\n    url: https://github.com/o/r/releases/v1.0.0/infrastructure-components.yaml\n    selector:\n      matchLabels: {a: b}\n') },
    first: 'cluster-api-operator: "Only one of Selector and URL must be provided, not both"',
  },
  { name: 'an unknown provider without fetchConfig', files: { 'providers/evil.yaml': EVIL() }, first: 'cluster-api-operator: "Either Selector, OCI URL or provider URL must be provided for a not predefined provider"; InfrastructureProvider/evil-system/evil: it has no spec.fetchConfig' },
  { name: 'an unknown provider with an empty fetchConfig.url', files: { 'providers/evil.yaml': EVIL('  fetchConfig:\n    url: ""\n') }, first: 'cluster-api-operator: "Either Selector, OCI URL or provider URL must be provided for a not predefined provider"; InfrastructureProvider/evil-system/evil: its spec.fetchConfig names no source' },
  {
    name: 'a second provider of a kind and name in another namespace',
    files: { 'providers/docker.yaml': `${cr('InfrastructureProvider', 'docker', 'capd-system', 'v1.12.0')}---\n${cr('InfrastructureProvider', 'docker', 'capd-other', 'v1.12.0')}` },
    first: 'cluster-api-operator: "There is already a InfrastructureProvider with name docker in the cluster. Only one is allowed."',
  },
  {
    name: 'a minor downgrade against the lock',
    before: { 'providers/core.yaml': CORE('v1.12.0') },
    files: { 'providers/core.yaml': CORE('v1.11.0') },
    first: 'cluster-api-operator: "Downgrade is not supported for provider cluster-api"; CoreProvider/capi-system/cluster-api: capi-render.lock has v1.12.0',
  },
  // clusterctl, client/cluster/installer.go getProviderContract (the default baseline, emulate: clusterctl-v1.14)
  {
    name: 'a contract clusterctl does not accept',
    files: evil({ components: NS, metadata: META('v1alpha4') }),
    first: 'clusterctl: "current version of clusterctl is only compatible with providers implementing the v1beta2, v1beta1 contract versions, detected contract version v1alpha4 for provider infrastructure-evil"',
  },
  // cluster-api-operator, internal/controller/phase_load.go (emulate: operator-v0.28)
  {
    name: 'a contract the operator does not accept',
    files: { 'capi-render.yaml': configYaml('  - path: artifacts\nemulate: operator-v0.28\n'), ...evil({ components: NS, metadata: META('v1alpha4') }) },
    first: 'cluster-api-operator: "CAPI operator is only compatible with v1beta2 providers, detected v1alpha4 for provider evil."',
  },
  // clusterctl, client/cluster/installer.go
  { name: 'no core provider', files: { 'providers/core.yaml': BOOTSTRAP('v1.12.0') }, first: 'clusterctl: "invalid management cluster: there must be one core provider, found 0"' },
  {
    name: 'a provider whose contract the core provider does not accept',
    files: { 'providers/core.yaml': CORE('v1.10.4'), 'providers/bootstrap.yaml': BOOTSTRAP('v1.12.0') },
    first: 'clusterctl: "installing provider "bootstrap-kubeadm" could lead to a non functioning management cluster: the target version for the provider implements the v1beta2 contract version, while the core provider is compatible with v1beta1 contract versions"',
  },
  { name: 'a version no release series covers', files: evil({ components: NS, metadata: META('v1beta2', 9) }), first: 'clusterctl: "invalid provider metadata: version v1.0.0 for the provider evil-system/infrastructure-evil does not match any release series"' },
  // clusterctl, client/repository/{metadata,components}_client.go
  { name: 'a release without metadata.yaml', files: evil({ components: NS }), first: 'clusterctl: "failed to read "metadata.yaml" from the repository for provider "infrastructure-evil""' },
  { name: 'a release without its components file', files: evil({ metadata: META() }), first: 'clusterctl: "failed to read "infrastructure-components.yaml" from provider\'s repository "infrastructure-evil""' },
  // clusterctl, client/repository/client.go repositoryFactory and repository_github.go
  { name: 'an https URL that is neither GitHub nor GitLab', files: url('https://example.com/releases/v1.0.0/infrastructure-components.yaml'), first: 'clusterctl: "invalid provider url. Only GitHub and GitLab are supported for "https" schema"' },
  { name: 'an http URL', files: url('http://github.com/o/r/releases/v1.0.0/infrastructure-components.yaml'), first: 'clusterctl: "invalid provider url. there are no provider implementation for "http" schema"' },
  { name: 'a GitHub URL of the wrong form', files: url('https://github.com/kubernetes-sigs'), first: 'clusterctl: "invalid url: a GitHub repository url should be in the form https://github.com/{owner}/{Repository}/releases/{latest|version-tag}/{componentsClient.yaml}"' },
  // clusterctl, client/yamlprocessor/simple_processor.go
  { name: 'a variable nobody set', files: evil({ components: `${NS}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "\${EVIL_B} \${EVIL_A}"}\n`, metadata: META() }), first: 'clusterctl: "value for variables [EVIL_A, EVIL_B] is not set"' },
  { name: 'a variable syntax error', files: evil({ components: `${NS}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "\${BA$R}"}\n`, metadata: META() }), first: 'clusterctl: "failed to perform variable substitution: ' },
  // clusterctl, util/container/image.go (through its image overrides)
  { name: 'an image that is not a canonical reference', files: evil({ components: `${NS}---\n${deployment('nginx:1.0')}`, metadata: META() }), first: 'clusterctl: "couldn\'t parse image name: repository name must be canonical"' },
  // clusterctl, client/repository/components.go
  { name: 'two Namespace objects', files: evil({ components: `${NS}---\n${NS.replace('evil-system', 'other')}`, metadata: META() }), first: 'clusterctl: "Invalid manifest. There should be no more than one resource with Kind Namespace in the provider components yaml"' },
  {
    name: 'a CRD clusterctl would refuse',
    files: evil({
      components: `${NS}---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: evilcluster.infrastructure.cluster.x-k8s.io}\nspec:\n  group: infrastructure.cluster.x-k8s.io\n  names: {kind: EvilCluster, plural: evilcluster}\n  scope: Namespaced\n  versions: []\n`,
      metadata: META(),
    }),
    first: 'clusterctl: "CRD name "evilcluster.infrastructure.cluster.x-k8s.io" is invalid for a CRD referenced in a core Cluster API CRD,it should be "evilclusters.infrastructure.cluster.x-k8s.io""',
  },
];

describe("peer wording on build: the peer's phrase on the first line", () => {
  it.each(buildCases)('$name', async ({ files, before, first }) => {
    // artifacts/ exists also where a case carries no artifact (a repositories: path must exist).
    const base = { 'capi-render.yaml': configYaml('  - path: artifacts\n'), 'artifacts/.gitkeep': '', 'providers/core.yaml': CORE() };
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    const repo = makeRepo({ ...base, ...(before ?? files) });
    if (before) {
      expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
      for (const [rel, text] of Object.entries(files)) writeFileSync(path.join(repo, rel), text);
    }
    const r = await runCli(['build'], { cwd: repo, env });
    expect(r.code).toBe(1);
    const line = r.stderr.split('\n')[0]!;
    expect(line).toContain(first);
    // Location first (file:line:col) where the mistake is in a file the user edits.
    expect(line).toMatch(/^(providers|artifacts)\/[\w./-]+\.yaml(:\d+(:\d+)?)?: error\[[a-z-]+\]: /);
  });

  it('an empty fetchConfig.url and a missing fetchConfig give the same message', async () => {
    const message = async (extra: string) => {
      const repo = makeRepo({ 'providers/evil.yaml': EVIL(extra) });
      const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      return r.stderr.split('\n')[0]!.replace(/^.*?error\[/, 'error[').replace(/: it has no spec\.fetchConfig|: its spec\.fetchConfig names no source/, ': …');
    };
    expect(await message('  fetchConfig:\n    url: ""\n')).toBe(await message(''));
  });
});

/** Upgrade-plan errors, which name providers as clusterctl does: `<namespace>/<label>`. */
describe('peer wording of upgrade planning: providers named namespace/label', () => {
  const CAPI_METADATA = parseMetadata(fixtureText('repository/cluster-api/v1.12.0/metadata.yaml'), 'v1.12.0 metadata');
  const KINDS: Record<string, [ProviderKind, string, string, string]> = {
    core: ['CoreProvider', 'cluster-api', 'capi-system', 'cluster-api'],
    bootstrap: ['BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', 'bootstrap-kubeadm'],
  };
  const provider = (which: string, version: string, available: readonly string[], metadata: ReleaseMetadata): PlanProvider => {
    const [kind, name, namespace, label] = KINDS[which]!;
    return { provider: `${kind}/${namespace}/${name}`, kind, name, namespace, label, version, available, metadata, sourceDescription: 'fixture releases' };
  };
  const firstLine = (problems: readonly Diagnostic[]) => formatDiagnostics(problems, { color: false }).split('\n')[0]!;
  const select = (set: PlanProvider[], request: UpgradeRequest, providers: string[], supported = ['v1beta2', 'v1beta1']) => {
    const planned = planEnvironmentUpgrade('dev', set, supported);
    return selectTargets({ environment: 'dev', providers: set }, planned.plan!, { request, providers }, supported).problems;
  };
  const future: ReleaseMetadata = {
    releaseSeries: [10, 11, 12, 13, 14].map((minor) => ({ major: 1, minor, contract: minor === 10 ? 'v1beta1' : 'v1beta2' })),
  };
  const old: ReleaseMetadata = { releaseSeries: [{ major: 0, minor: 4, contract: 'v1alpha4' }, { major: 1, minor: 0, contract: 'v1beta1' }] };

  it.each([
    {
      name: 'the 3-minor skip rule',
      problems: () => select([provider('core', 'v1.10.4', ['v1.10.4', 'v1.14.0'], future)], { kind: 'to', version: 'v1.14.0' }, []),
      first: 'clusterctl: "upgrade for capi-system/cluster-api provider can\'t skip more than 3 versions"',
    },
    {
      name: 'a provider left behind on a contract the new core does not accept',
      problems: () =>
        select([provider('core', 'v0.4.0', ['v0.4.0', 'v1.0.0'], old), provider('bootstrap', 'v0.4.0', ['v0.4.0', 'v1.0.0'], old)], { kind: 'to', version: 'v1.0.0' }, ['cluster-api'], ['v1beta1', 'v1alpha4']),
      first:
        'clusterctl: "unable to perform upgrade: the provider capi-kubeadm-bootstrap-system/bootstrap-kubeadm implements the v1alpha4 contract version, while the core provider is getting updated to a version that supports v1beta1 contract versions. Please include the capi-kubeadm-bootstrap-system/bootstrap-kubeadm provider in the upgrade"',
    },
    {
      name: 'a newer release no series covers',
      problems: () => upgradeInfo(provider('core', 'v1.12.0', ['v1.12.0', 'v1.13.0'], CAPI_METADATA)).problems,
      first: 'clusterctl: "invalid provider metadata: version v1.13.0 (one of the available versions) for the provider capi-system/cluster-api does not match any release series"',
    },
    {
      name: 'a current version no series covers',
      problems: () => upgradeInfo(provider('core', 'v2.0.0', ['v2.0.0'], CAPI_METADATA)).problems,
      first: 'clusterctl: "invalid provider metadata: version v2.0.0 (the current version) for the provider capi-system/cluster-api does not match any release series"',
    },
    {
      name: 'no core provider',
      problems: () => planEnvironmentUpgrade('dev', [provider('bootstrap', 'v1.12.0', ['v1.12.0'], CAPI_METADATA)], ['v1beta2']).problems,
      first: 'clusterctl: "invalid management cluster: there must be one core provider, found 0"',
    },
  ])('$name', ({ problems, first }) => {
    const found = problems();
    expect(found.length).toBeGreaterThan(0);
    expect(firstLine(found)).toContain(first);
  });
});
