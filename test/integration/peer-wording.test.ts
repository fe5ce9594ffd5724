/**
 * Errors users know from clusterctl and the cluster-api-operator (and search the web for) start with
 * the peer's own phrase, quoted, on the first line of capi-render's error — followed by capi-render's
 * location, its own words and a hint. One case per peer message: build errors through the CLI,
 * upgrade-plan errors through the planner (formatted as the CLI prints them).
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { formatDiagnostics } from '../../src/cli/format.js';
import type { Diagnostic, ProviderKind } from 'capi-render';
import { parseMetadata, type ReleaseMetadata } from '../../src/source/metadata.js';
import { planEnvironmentUpgrade } from '../../src/upgrade/plan.js';
import { selectTargets, type UpgradeRequest } from '../../src/upgrade/select-targets.js';
import { upgradeInfo, type PlanProvider } from '../../src/upgrade/upgrade-info.js';
import { runCli } from '../helpers/cli.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { publishOciArtifact } from '../../src/source/oci/oci-publish.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { gitLabUrl, startFakeGitLab, type FakeGitLab, type FakeGitLabOptions } from '../helpers/fake-gitlab.js';
import { fixtureText } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const cr = (kind: string, name: string, namespace: string, version: string, extra = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata:\n  name: ${name}\n  namespace: ${namespace}\nspec:\n  version: ${version}\n${extra}`;
const EVIL = (extra = '') => cr('InfrastructureProvider', 'evil', 'evil-system', 'v1.0.0', extra);
const META = (contract = 'v1beta2', minor = 0) =>
  `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: ${minor}\n  contract: ${contract}\n`;
const NS = 'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: evil-system\n';
const deployment = (image = 'registry.example.com/evil:v1.0.0') =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: evil-controller-manager\nspec:\n  template:\n    spec:\n      containers:\n      - name: manager\n        image: ${image}\n`;
/** The `infrastructure-evil` provider served from a local repository inside the test repository. */
const evil = (files: { components?: string; metadata?: string }) => ({
  ...(files.components !== undefined
    ? { 'artifacts/infrastructure-evil/v1.0.0/infrastructure-components.yaml': files.components }
    : {}),
  ...(files.metadata !== undefined ? { 'artifacts/infrastructure-evil/v1.0.0/metadata.yaml': files.metadata } : {}),
  'providers/evil.yaml': EVIL(),
});
const url = (u: string) => ({ 'providers/evil.yaml': EVIL(`  fetchConfig:\n    url: ${u}\n`) });
const BOOTSTRAP = (version: string) => cr('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', version);
/** `evil` whose CR carries `extra` (spec fields), from components `components` in the local repository. */
const evilWith = (extra: string, components: string, more: Record<string, string> = {}) => ({
  ...evil({ components, metadata: META() }),
  'providers/evil.yaml': EVIL(extra),
  ...more,
});
/** An object of `kind` at `apiVersion` named evil-<suffix>, with optional metadata lines and body. */
const object = (apiVersion: string, kind: string, suffix: string, meta = '', body = '') =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nmetadata:\n  name: evil-${suffix}\n${meta}${body}`;
const webhook = (kind: string, apiVersion = 'admissionregistration.k8s.io/v1', meta = '') =>
  object(
    apiVersion,
    kind,
    'webhook',
    meta,
    'webhooks:\n- name: w.evil.example.com\n  clientConfig:\n    service: {name: evil-webhook, namespace: evil-system}\n',
  );

const CAPI = 'kubernetes-sigs/cluster-api@v1.14.0:cmd/clusterctl/client';
const OPERATOR = 'kubernetes-sigs/cluster-api-operator@v0.28.0:internal/controller';
const OPERATOR_BASELINE = { 'capi-render.yaml': configYaml('  - path: artifacts\nemulate: operator-v0.28\n') };
const metadataWith = (apiVersion: string, kind: string, series: string) =>
  `apiVersion: ${apiVersion}\nkind: ${kind}\nreleaseSeries:${series}\n`;
const SERIES = '\n- major: 1\n  minor: 0\n  contract: v1beta2';
/** The operator's air-gapped format: `evil` from ConfigMaps in its namespace chosen by a selector. */
const SELECTOR = '  fetchConfig:\n    selector:\n      matchLabels:\n        provider.cluster.x-k8s.io/name: evil\n';
const configMap = (name: string, body: string, extra = '') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: evil-system\n  labels:\n    provider.cluster.x-k8s.io/name: evil\n${extra}${body}`;
const fromConfigMaps = (cm: string) => ({ 'providers/evil.yaml': EVIL(SELECTOR), 'providers/evil-v1.yaml': cm });
const META_DATA = `data:\n  metadata: |\n${META().trimEnd().replace(/^/gm, '    ')}\n`;
/** A release served by the fake GitHub with only these assets. */
const githubConfig = (gh: FakeGitHub) =>
  `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\ngithub:\n  apiUrl: ${gh.baseUrl}\n`;

/**
 * One row per peer message: the condition, the peer and its phrase (what the first line must
 * contain), the upstream file it comes from, and how capi-render's CLI is driven into it.
 */
interface PeerRow {
  condition: string;
  /** repo@tag:path of the peer's message. */
  upstream: string;
  /** The command run (in a repository made of `files`). Default: build. */
  argv?: string[];
  files: Record<string, string> | ((servers: Servers) => Record<string, string>);
  /** A first build (with these files instead), whose lock the checked command starts from. */
  before?: Record<string, string>;
  /** Local fake servers the row needs, and what to script on them first. */
  servers?: { github?: (gh: FakeGitHub) => void; gitlab?: FakeGitLabOptions };
  /** What the first line of stderr must contain: `<peer>: "<phrase>` (the phrase may be cut short). */
  first: string;
  /** Where the first line starts. Default: a file the user edits, `providers/…` or `artifacts/…` with line and column. */
  at?: RegExp;
}

interface Servers {
  gh?: FakeGitHub;
  gl?: FakeGitLab;
  /** `host:port` of the real registry the OCI rows push to. */
  registry?: string;
}

const rows: PeerRow[] = [
  // ── preflight ──
  {
    condition: 'a CoreProvider not named cluster-api',
    upstream: `${OPERATOR}/preflight_checks.go`,
    files: { 'providers/core.yaml': CORE().replace('name: cluster-api', 'name: capi') },
    first: 'cluster-api-operator: "Incorrect CoreProvider name: capi. It should be cluster-api"',
  },
  {
    condition: 'two CoreProviders',
    upstream: `${OPERATOR}/preflight_checks.go`,
    files: { 'providers/core2.yaml': CORE('v1.12.0', 'capi-other') },
    first: 'cluster-api-operator: "CoreProvider already exists in the cluster. Only one is allowed."',
  },
  {
    condition: 'fetchConfig with both url and selector',
    upstream: `${OPERATOR}/preflight_checks.go`,
    files: {
      'providers/evil.yaml': EVIL(
        '  fetchConfig:\n    url: https://github.com/o/r/releases/v1.0.0/infrastructure-components.yaml\n    selector:\n      matchLabels: {a: b}\n',
      ),
    },
    first: 'cluster-api-operator: "Only one of Selector and URL must be provided, not both"',
  },
  {
    condition: 'an unknown provider without fetchConfig',
    upstream: `${OPERATOR}/preflight_checks.go`,
    files: { 'providers/evil.yaml': EVIL() },
    first:
      'cluster-api-operator: "Either Selector, OCI URL or provider URL must be provided for a not predefined provider"; InfrastructureProvider/evil-system/evil: it has no spec.fetchConfig',
  },
  {
    condition: 'an unknown provider with an empty fetchConfig.url',
    upstream: `${OPERATOR}/preflight_checks.go`,
    files: { 'providers/evil.yaml': EVIL('  fetchConfig:\n    url: ""\n') },
    first:
      'cluster-api-operator: "Either Selector, OCI URL or provider URL must be provided for a not predefined provider"; InfrastructureProvider/evil-system/evil: its spec.fetchConfig names no source',
  },
  {
    condition: 'a second provider of a kind and name in another namespace (emulate: operator-v0.28)',
    upstream: `${OPERATOR}/preflight_checks.go`,
    files: {
      ...OPERATOR_BASELINE,
      'providers/docker.yaml': `${cr('InfrastructureProvider', 'docker', 'capd-system', 'v1.12.0')}---\n${cr('InfrastructureProvider', 'docker', 'capd-other', 'v1.12.0')}`,
    },
    first:
      'cluster-api-operator: "There is already a InfrastructureProvider with name docker in the cluster. Only one is allowed."',
  },
  {
    condition: 'a second provider of a kind and name in another namespace (the default baseline, clusterctl v1.14)',
    upstream: `${CAPI}/cluster/installer.go`,
    files: {
      'providers/docker.yaml': `${cr('InfrastructureProvider', 'docker', 'capd-system', 'v1.12.0')}---\n${cr('InfrastructureProvider', 'docker', 'capd-other', 'v1.12.0')}`,
    },
    first:
      'clusterctl: "installing provider "infrastructure-docker" can lead to a non functioning management cluster: there is already an instance of the "infrastructure-docker" provider installed in the "capd-other" namespace"',
  },
  {
    condition: 'a minor downgrade against what is committed',
    upstream: `${OPERATOR}/preflight_checks.go`,
    before: { 'providers/core.yaml': CORE('v1.12.0') },
    files: { 'providers/core.yaml': CORE('v1.11.0') },
    first:
      'cluster-api-operator: "Downgrade is not supported for provider cluster-api"; CoreProvider/capi-system/cluster-api: the committed output (rendered/default/cluster-api/provider-cluster-api.yaml) has v1.12.0',
  },
  {
    condition: 'no core provider',
    upstream: `${CAPI}/cluster/installer.go`,
    files: { 'providers/core.yaml': BOOTSTRAP('v1.12.0') },
    first: 'clusterctl: "invalid management cluster: there must be one core provider, found 0"',
  },

  // ── contracts and version selection ──
  {
    condition: 'a contract clusterctl does not accept (the default baseline)',
    upstream: `${CAPI}/cluster/installer.go`,
    files: evil({ components: NS, metadata: META('v1alpha4') }),
    first:
      'clusterctl: "current version of clusterctl is only compatible with providers implementing the v1beta2, v1beta1 contract versions, detected contract version v1alpha4 for provider infrastructure-evil"',
  },
  {
    condition: 'a contract the operator does not accept (emulate: operator-v0.28)',
    upstream: `${OPERATOR}/phase_load.go`,
    files: { ...OPERATOR_BASELINE, ...evil({ components: NS, metadata: META('v1alpha4') }) },
    first:
      'cluster-api-operator: "CAPI operator is only compatible with v1beta2 providers, detected v1alpha4 for provider evil."',
  },
  {
    condition: 'a provider whose contract the core provider does not accept',
    upstream: `${CAPI}/cluster/installer.go`,
    files: { 'providers/core.yaml': CORE('v1.10.4'), 'providers/bootstrap.yaml': BOOTSTRAP('v1.12.0') },
    first:
      'clusterctl: "installing provider "bootstrap-kubeadm" could lead to a non functioning management cluster: the target version for the provider implements the v1beta2 contract version, while the core provider is compatible with v1beta1 contract versions"',
  },
  {
    condition: 'a version no release series covers',
    upstream: `${CAPI}/cluster/installer.go`,
    files: evil({ components: NS, metadata: META('v1beta2', 9) }),
    first:
      'clusterctl: "invalid provider metadata: version v1.0.0 for the provider evil-system/infrastructure-evil does not match any release series"',
  },
  {
    condition: 'spec.version latest where no release has a semantic-version tag',
    upstream: `${CAPI}/repository/repository_versions.go`,
    servers: { gitlab: { extraPackages: [{ name: 'infrastructure-evil', version: 'nightly' }] } },
    files: {
      'providers/evil.yaml': EVIL(
        `  fetchConfig:\n    url: ${gitLabUrl('infrastructure-evil', 'latest', 'infrastructure-components.yaml')}\n`,
      ).replace('version: v1.0.0', 'version: latest'),
    },
    first: 'clusterctl: "failed to find releases tagged with a valid semantic version number"',
  },

  // ── metadata.yaml ──
  {
    condition: 'a release without metadata.yaml',
    upstream: `${CAPI}/repository/metadata_client.go`,
    files: evil({ components: NS }),
    first: 'clusterctl: "failed to read "metadata.yaml" from the repository for provider "infrastructure-evil""',
  },
  {
    condition: 'metadata.yaml of another apiVersion',
    upstream: `${CAPI}/repository/metadata_client.go`,
    files: evil({ components: NS, metadata: metadataWith('clusterctl.cluster.x-k8s.io/v1alpha2', 'Metadata', SERIES) }),
    first:
      'clusterctl: "invalid provider metadata: unexpected apiVersion "clusterctl.cluster.x-k8s.io/v1alpha2" for provider infrastructure-evil (expected "clusterctl.cluster.x-k8s.io/v1alpha3")"',
    at: /^local repository .*: error\[metadata-invalid\]: /,
  },
  {
    condition: 'metadata.yaml of another kind',
    upstream: `${CAPI}/repository/metadata_client.go`,
    files: evil({ components: NS, metadata: metadataWith('clusterctl.cluster.x-k8s.io/v1alpha3', 'Release', SERIES) }),
    first:
      'clusterctl: "invalid provider metadata: unexpected kind "Release" for provider infrastructure-evil (expected "Metadata")"',
    at: /^local repository .*: error\[metadata-invalid\]: /,
  },
  {
    condition: 'metadata.yaml with no release series',
    upstream: `${CAPI}/repository/metadata_client.go`,
    files: evil({ components: NS, metadata: metadataWith('clusterctl.cluster.x-k8s.io/v1alpha3', 'Metadata', ' []') }),
    first:
      'clusterctl: "invalid provider metadata: releaseSeries is empty in metadata.yaml for provider infrastructure-evil"',
    at: /^local repository .*: error\[metadata-invalid\]: /,
  },
  {
    condition: 'metadata.yaml that does not decode',
    upstream: `${CAPI}/repository/metadata_client.go`,
    files: evil({ components: NS, metadata: 'releaseSeries: [\n' }),
    first: 'clusterctl: "error decoding "metadata.yaml" for provider "infrastructure-evil""',
    at: /^local repository .*: error\[metadata-invalid\]: /,
  },

  // ── the operator's ConfigMap source (fetchConfig.selector) ──
  {
    condition: 'a selector no ConfigMap matches',
    upstream: `${OPERATOR}/phase_load.go`,
    files: { 'providers/evil.yaml': EVIL(SELECTOR) },
    first: 'cluster-api-operator: "no ConfigMaps found with selector provider.cluster.x-k8s.io/name=evil"',
  },
  {
    condition: 'a ConfigMap whose name is not a version',
    upstream: `${OPERATOR}/phase_load.go`,
    files: fromConfigMaps(configMap('nightly', META_DATA)),
    first: 'cluster-api-operator: "ConfigMap evil-system/nightly has invalid version:nightly (from the Name)"',
  },
  {
    condition: 'a ConfigMap without metadata',
    upstream: `${OPERATOR}/phase_load.go`,
    files: fromConfigMaps(configMap('v1.0.0', 'data:\n  components: ""\n')),
    first: 'cluster-api-operator: "ConfigMap evil-system/v1.0.0 has no metadata"',
  },
  {
    condition: 'a ConfigMap without components',
    upstream: `${OPERATOR}/phase_load.go`,
    files: fromConfigMaps(configMap('v1.0.0', META_DATA)),
    first: 'cluster-api-operator: "ConfigMap evil-system/v1.0.0 Data has no components"',
  },
  {
    condition: 'a selector whose ConfigMaps lack spec.version',
    upstream: `${OPERATOR}/phase_load.go`,
    files: {
      ...fromConfigMaps(configMap('v1.0.0', `${META_DATA}  components: ""\n`)),
      'providers/evil.yaml': EVIL(SELECTOR).replace('version: v1.0.0', 'version: v1.1.0'),
    },
    first: 'cluster-api-operator: "failed to read "metadata.yaml" from the repository for provider "evil""',
  },
  {
    condition: 'a ConfigMap whose metadata does not decode',
    upstream: `${OPERATOR}/phase_load.go`,
    files: fromConfigMaps(configMap('v1.0.0', 'data:\n  components: ""\n  metadata: "releaseSeries: ["\n')),
    first: 'cluster-api-operator: "error decoding "metadata.yaml" for provider "evil""',
    at: /^ConfigMaps in .*: error\[metadata-invalid\]: /,
  },
  {
    condition: 'a ConfigMap whose metadata has no series for the version',
    upstream: `${OPERATOR}/phase_load.go`,
    files: fromConfigMaps(configMap('v1.0.0', `${META_DATA.replace('minor: 0', 'minor: 9')}  components: ""\n`)),
    first:
      'cluster-api-operator: "invalid provider metadata: version v1.0.0 for the provider evil does not match any release series"',
  },
  {
    condition: 'a compressed ConfigMap without binaryData.components',
    upstream: `${OPERATOR}/phase_load.go`,
    files: fromConfigMaps(
      configMap('v1.0.0', META_DATA, '  annotations:\n    provider.cluster.x-k8s.io/compressed: "true"\n'),
    ),
    first: 'cluster-api-operator: "ConfigMap evil-system/v1.0.0 BinaryData has no components"',
  },
  {
    condition: 'a compressed ConfigMap whose components are not gzip',
    upstream: `${OPERATOR}/phase_load.go`,
    files: fromConfigMaps(
      configMap(
        'v1.0.0',
        `${META_DATA}binaryData:\n  components: bm90IGd6aXA=\n`,
        '  annotations:\n    provider.cluster.x-k8s.io/compressed: "true"\n',
      ),
    ),
    first: 'cluster-api-operator: "cannot decompress data from ConfigMap evil-system/v1.0.0"',
  },

  // ── release files and fetch errors ──
  {
    condition: 'a release without its components file',
    upstream: `${CAPI}/repository/components_client.go`,
    files: evil({ metadata: META() }),
    first:
      'clusterctl: "failed to read "infrastructure-components.yaml" from provider\'s repository "infrastructure-evil""',
  },
  {
    condition: 'an https URL that is neither GitHub nor GitLab',
    upstream: `${CAPI}/repository/client.go`,
    files: url('https://example.com/releases/v1.0.0/infrastructure-components.yaml'),
    first: 'clusterctl: "invalid provider url. Only GitHub and GitLab are supported for "https" schema"',
  },
  {
    condition: 'an http URL',
    upstream: `${CAPI}/repository/client.go`,
    files: url('http://github.com/o/r/releases/v1.0.0/infrastructure-components.yaml'),
    first: 'clusterctl: "invalid provider url. there are no provider implementation for "http" schema"',
  },
  {
    condition: 'a GitHub URL of the wrong form',
    upstream: `${CAPI}/repository/repository_github.go`,
    files: url('https://github.com/kubernetes-sigs'),
    first:
      'clusterctl: "invalid url: a GitHub repository url should be in the form https://github.com/{owner}/{Repository}/releases/{latest|version-tag}/{componentsClient.yaml}"',
  },
  {
    condition: 'a file:// URL too short for the local repository layout',
    upstream: `${CAPI}/repository/repository_local.go`,
    files: url('file:///infrastructure-components.yaml'),
    first:
      'clusterctl: "invalid path: path should be in the form {basepath}/{provider-name}/{version}/{components.yaml}"',
  },
  {
    condition: 'a file:// URL whose version is not semantic',
    upstream: `${CAPI}/repository/repository_local.go`,
    files: url('file:///repo/infrastructure-evil/nightly/infrastructure-components.yaml'),
    first:
      'clusterctl: "invalid version: "nightly". Version must obey the syntax and semantics of the "Semantic Versioning" specification"',
  },
  {
    condition: 'a file:// URL naming another provider',
    upstream: `${CAPI}/repository/repository_local.go`,
    files: url('file:///repo/infrastructure-other/v1.0.0/infrastructure-components.yaml'),
    first:
      'clusterctl: "invalid path: path "file:///repo/infrastructure-other/v1.0.0/infrastructure-components.yaml" must contain provider "infrastructure-evil" in the format {basepath}/{provider-label}/{version}/{components.yaml}"',
  },
  {
    condition: 'a GitHub release that does not exist',
    upstream: `${CAPI}/repository/repository_github.go`,
    servers: { github: () => undefined },
    files: ({ gh }) => ({ 'capi-render.yaml': githubConfig(gh!), 'providers/core.yaml': CORE('v1.99.0') }),
    first: 'clusterctl: "release not found for version v1.99.0"',
  },
  {
    condition: 'a GitHub release without the file',
    upstream: `${CAPI}/repository/repository_github.go`,
    servers: { github: () => undefined },
    files: ({ gh }) => ({
      'capi-render.yaml': githubConfig(gh!),
      'providers/core.yaml': CORE(
        'v1.12.0',
        'capi-system',
        `  fetchConfig:\n    url: https://github.com/kubernetes-sigs/cluster-api/releases/v1.12.0/no-such-components.yaml\n`,
      ),
    }),
    first: 'clusterctl: "failed to get file "no-such-components.yaml" from "v1.12.0" release"',
  },
  {
    condition: 'the GitHub API rate limit',
    upstream: `${CAPI}/repository/repository_github.go`,
    servers: { github: (gh) => gh.failNext('rate-limit', 1000, { resetInSeconds: 3600 }) },
    files: ({ gh }) => ({ 'capi-render.yaml': githubConfig(gh!), 'providers/core.yaml': CORE('v1.12.0') }),
    first:
      'clusterctl: "rate limit for github api has been reached. Please wait one hour or get a personal API token and assign it to the GITHUB_TOKEN environment variable"',
  },
  {
    condition: 'a GitLab URL of the wrong form',
    upstream: `${CAPI}/repository/repository_gitlab.go`,
    files: url(`${gitLabUrl('infrastructure-evil', 'v1.0.0', 'infrastructure-components.yaml')}/extra`),
    first:
      'clusterctl: "invalid url: a GitLab repository url should be in the form https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{defaultVersion}/{componentsPath}"',
  },
  {
    condition: 'GitLab refusing the token (401)',
    upstream: `${CAPI}/repository/repository_gitlab.go`,
    servers: { gitlab: { validTokens: ['glpat-right'] } },
    files: {
      'providers/core.yaml': CORE(
        'v1.12.0',
        'capi-system',
        `  fetchConfig:\n    url: ${gitLabUrl('cluster-api', 'v1.12.0', 'core-components.yaml')}\n`,
      ),
    },
    first: `clusterctl: "failed to get file "metadata.yaml" with version "v1.12.0" from "${gitLabUrl('cluster-api', 'v1.12.0', 'metadata.yaml')}": unauthorized access, please check your credentials"`,
  },
  {
    condition: 'a GitLab package version that does not exist (404)',
    upstream: `${CAPI}/repository/repository_gitlab.go`,
    servers: { gitlab: {} },
    files: {
      'providers/core.yaml': CORE(
        'v1.99.0',
        'capi-system',
        `  fetchConfig:\n    url: ${gitLabUrl('cluster-api', 'v1.12.0', 'core-components.yaml')}\n`,
      ),
    },
    first: `clusterctl: "failed to get file "metadata.yaml" with version "v1.99.0" from "${gitLabUrl('cluster-api', 'v1.99.0', 'metadata.yaml')}", got 404"`,
  },

  // ── variables ──
  {
    condition: 'a variable nobody set',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({
      components: `${NS}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "\${EVIL_B} \${EVIL_A}"}\n`,
      metadata: META(),
    }),
    first: 'clusterctl: "failed to perform variable substitution: value for variables [EVIL_A, EVIL_B] is not set"',
  },
  // NewComponents lists the variables first, and returns envsubst's parse error as it is.
  {
    condition: 'a variable syntax error',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({
      components: `${NS}---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: "\${BA$R}"}\n`,
      metadata: META(),
    }),
    first: 'clusterctl: "missing closing brace"',
  },

  // ── image overrides ──
  {
    condition: 'an image that is not a canonical reference',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({ components: `${NS}---\n${deployment('nginx:1.0')}`, metadata: META() }),
    first:
      'clusterctl: "failed to apply image overrides: failed to fix containers in deployment evil-controller-manager: failed to fix containers: failed to fix image for container manager: couldn\'t parse image name: repository name must be canonical"',
  },

  // ── the components clusterctl refuses ──
  {
    condition: 'components that are not YAML',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({ components: `${NS}---\nkind: [\n`, metadata: META() }),
    first: 'clusterctl: "failed to parse yaml"',
  },
  {
    condition: 'two Namespace objects',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({ components: `${NS}---\n${NS.replace('evil-system', 'other')}`, metadata: META() }),
    first:
      'clusterctl: "failed to detect default target namespace: Invalid manifest. There should be no more than one resource with Kind Namespace in the provider components yaml"',
  },
  {
    condition: 'a cert-manager.io/inject-ca-from that is not namespace/name',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({
      components: `${NS}---\n${webhook('MutatingWebhookConfiguration', undefined, '  annotations:\n    cert-manager.io/inject-ca-from: evil-serving-cert\n')}`,
      metadata: META(),
    }),
    first:
      'clusterctl: "failed to set the TargetNamespace on the components: object MutatingWebhookConfiguration evil-webhook does not have a correct value for cert-manager.io/inject-ca-from"',
  },
  {
    condition: 'a MutatingWebhookConfiguration of an apiVersion clusterctl cannot patch',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({
      components: `${NS}---\n${webhook('MutatingWebhookConfiguration', 'admissionregistration.k8s.io/v2')}`,
      metadata: META(),
    }),
    first:
      'clusterctl: "failed to set the TargetNamespace on the components: failed to patch v2 MutatingWebhookConfiguration"',
  },
  {
    condition: 'a ValidatingWebhookConfiguration of an apiVersion clusterctl cannot patch',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({
      components: `${NS}---\n${webhook('ValidatingWebhookConfiguration', 'admissionregistration.k8s.io/v2')}`,
      metadata: META(),
    }),
    first:
      'clusterctl: "failed to set the TargetNamespace on the components: failed to patch v2 ValidatingWebhookConfiguration"',
  },
  {
    condition: 'a Certificate whose spec.dnsNames is not a list of strings',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({
      components: `${NS}---\n${object('cert-manager.io/v1', 'Certificate', 'serving-cert', '  namespace: evil-system\n', 'spec:\n  dnsNames: evil-webhook.evil-system.svc\n')}`,
      metadata: META(),
    }),
    first:
      'clusterctl: "failed to set the TargetNamespace on the components: failed to get .spec.dnsNames from Certificate evil-system/evil-serving-cert"',
  },
  {
    condition: 'a CustomResourceDefinition of an apiVersion clusterctl cannot patch',
    upstream: `${CAPI}/repository/components.go`,
    files: evil({
      components: `${NS}---\n${object('apiextensions.k8s.io/v2', 'CustomResourceDefinition', 'crd')}`,
      metadata: META(),
    }),
    first:
      'clusterctl: "failed to set the TargetNamespace on the components: failed to patch v2 CustomResourceDefinition"',
  },
  {
    condition: 'a CRD clusterctl would refuse',
    upstream: `${CAPI}/cluster/installer.go`,
    files: evil({
      components: `${NS}---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: evilcluster.infrastructure.cluster.x-k8s.io}\nspec:\n  group: infrastructure.cluster.x-k8s.io\n  names: {kind: EvilCluster, plural: evilcluster}\n  scope: Namespaced\n  versions: []\n`,
      metadata: META(),
    }),
    first:
      'clusterctl: "CRD name "evilcluster.infrastructure.cluster.x-k8s.io" is invalid for a CRD referenced in a core Cluster API CRD,it should be "evilclusters.infrastructure.cluster.x-k8s.io""',
  },

  // ── the operator's customisation and inputs ──
  {
    condition: 'spec.manager for a Deployment without containers',
    upstream: `${OPERATOR}/component_customizer.go`,
    files: evilWith(
      '  manager:\n    featureGates: {Evil: true}\n',
      `${NS}---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: evil-controller-manager\nspec:\n  template:\n    spec:\n      containers: []\n`,
    ),
    first: 'cluster-api-operator: "cannot find "manager" container in deployment "evil-controller-manager""',
  },
  {
    condition: 'spec.deployment.containers naming no container',
    upstream: `${OPERATOR}/component_customizer.go`,
    files: evilWith(
      '  deployment:\n    containers:\n    - name: nope\n      imageUrl: registry.example.com/nope:v1\n',
      `${NS}---\n${deployment()}`,
    ),
    first: 'cluster-api-operator: "cannot find container "nope" in deployment "evil-controller-manager""',
  },
  {
    condition: 'spec.manager.additionalArgs for an argument the manager already has',
    upstream: `${OPERATOR}/component_customizer.go`,
    files: evilWith(
      '  manager:\n    additionalArgs:\n      --evil: "2"\n',
      `${NS}---\n${deployment()}        args: [--evil=1]\n`,
    ),
    first: 'cluster-api-operator: "failed to customize manager container: arg "--evil" already exists"',
  },
  {
    condition: 'a spec.configSecret naming no Secret of the inputs',
    upstream: `${OPERATOR}/preflight_checks.go`,
    files: evilWith('  configSecret:\n    name: evil-creds\n', NS),
    first: 'cluster-api-operator: "failed to get providers secret: secrets "evil-creds" not found"',
  },
  {
    condition: 'a spec.additionalManifests naming no ConfigMap of the inputs',
    upstream: `${OPERATOR}/phase_load.go`,
    files: evilWith('  additionalManifests:\n    name: evil-extra\n', NS),
    first: 'cluster-api-operator: "failed to get ConfigMap evil-system/evil-extra: configmaps "evil-extra" not found"',
  },
  {
    condition: 'a spec.version that is no version at all',
    upstream: `${OPERATOR}/preflight_checks.go`,
    files: { 'providers/evil.yaml': EVIL().replace('version: v1.0.0', 'version: one') },
    first: 'cluster-api-operator: "could not parse "one" as version"',
  },

  // ── upgrade ──
  {
    condition: 'upgrading a provider the installation does not have',
    upstream: `${CAPI}/cluster/upgrader.go`,
    argv: ['upgrade', '--provider', 'infrastructure-nope', '--latest-patch'],
    before: {},
    files: {},
    first:
      'clusterctl: "unable to perform upgrade: the provider infrastructure-nope in not part of the management cluster"',
    at: /^error\[upgrade\]: /,
  },
];

/** Runs one row: its servers, its repository, the command; then checks the error's first line. */
async function checkRow(row: PeerRow, servers: Servers = {}): Promise<void> {
  if (row.servers?.github) {
    servers.gh = await startFakeGitHub();
    onTestFinished(() => servers.gh!.close().catch(() => undefined));
    row.servers.github(servers.gh);
  }
  if (row.servers?.gitlab) {
    servers.gl = await startFakeGitLab(row.servers.gitlab);
    onTestFinished(() => servers.gl!.close().catch(() => undefined));
  }
  const files = typeof row.files === 'function' ? row.files(servers) : row.files;
  // artifacts/ exists also where a row carries no artifact (a repositories: path must exist).
  const base = {
    'capi-render.yaml': configYaml('  - path: artifacts\n'),
    'artifacts/.gitkeep': '',
    'providers/core.yaml': CORE(),
  };
  const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
  const options = { env, ...(servers.gl ? { fetch: servers.gl.fetch } : {}) };
  const repo = makeRepo({ ...base, ...(row.before ?? files) });
  if (row.before) {
    const first = await runCli(['build'], { cwd: repo, ...options });
    expect(first.code, first.stderr).toBe(0);
    for (const [rel, text] of Object.entries(files)) writeFileSync(path.join(repo, rel), text);
  }
  const r = await runCli(row.argv ?? ['build'], { cwd: repo, ...options });
  expect(r.code).toBe(1);
  // Progress lines (what was fetched) may come first; the error's first line is what users read.
  const line = r.stderr.split('\n').find((l) => l.includes('error['))!;
  expect(line).toContain(row.first);
  // Location first (file:line:col) where the mistake is in a file the user edits.
  expect(line).toMatch(row.at ?? /^(providers|artifacts)\/[\w./-]+\.yaml(:\d+(:\d+)?)?: error\[[a-z-]+\]: /);
  // House style: how to fix it follows.
  expect(r.stderr).toMatch(/\n\s*hint: \S/);
}

describe("peer wording through the CLI: the peer's phrase on the first line", () => {
  it.each(rows)('$condition ($upstream)', (row) => checkRow(row));

  it('every row names an upstream file at a tag, and each peer message once', () => {
    for (const row of [...rows, ...ociRows])
      expect(row.upstream).toMatch(/^kubernetes-sigs\/cluster-api(-operator)?@v\d+\.\d+\.\d+:[\w/.-]+\.go$/);
    expect(new Set([...rows, ...ociRows].map((row) => row.first)).size).toBe(rows.length + ociRows.length);
  });

  it('an empty fetchConfig.url and a missing fetchConfig give the same message', async () => {
    const message = async (extra: string) => {
      const repo = makeRepo({ 'providers/evil.yaml': EVIL(extra) });
      const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      return r.stderr
        .split('\n')[0]!
        .replace(/^.*?error\[/, 'error[')
        .replace(/: it has no spec\.fetchConfig|: its spec\.fetchConfig names no source/, ': …');
    };
    expect(await message('  fetchConfig:\n    url: ""\n')).toBe(await message(''));
  });
});

/** Artifacts the OCI rows read through fetchConfig.oci: each lacks one of the two files. */
const ociRows: PeerRow[] = [
  {
    condition: 'an OCI artifact without metadata.yaml',
    upstream: `${OPERATOR}/oci_source.go`,
    files: ({ registry }) => ({
      'providers/evil.yaml': EVIL(`  fetchConfig:\n    oci: http://${registry}/peer/no-metadata:v1.0.0\n`),
    }),
    first:
      'cluster-api-operator: "collected artifact needs to provide metadata as infrastructure-evil-v1.0.0-metadata.yaml or metadata.yaml file"',
  },
  {
    condition: 'an OCI artifact without a components file',
    upstream: `${OPERATOR}/oci_source.go`,
    files: ({ registry }) => ({
      'providers/evil.yaml': EVIL(`  fetchConfig:\n    oci: http://${registry}/peer/no-components:v1.0.0\n`),
    }),
    first:
      'cluster-api-operator: "collected artifact needs to provide components as infrastructure-evil-v1.0.0-components.yaml or infrastructure-components.yaml or components.yaml file"',
  },
];

describe.skipIf(skipWithout(registryUnavailableReason(), 'the OCI rows of the peer-wording table'))(
  'peer wording of OCI sources, against a real registry',
  () => {
    let registry: TestRegistry;
    beforeAll(async () => {
      registry = await startRegistry();
      const file = (name: string, text: string) => ({ name, bytes: new TextEncoder().encode(text) });
      await publishOciArtifact({
        reference: `http://${registry.host}/peer/no-metadata:v1.0.0`,
        files: [file('infrastructure-components.yaml', NS)],
      });
      await publishOciArtifact({
        reference: `http://${registry.host}/peer/no-components:v1.0.0`,
        files: [file('metadata.yaml', META())],
      });
    }, 60_000);
    afterAll(() => registry?.stop());

    it.each(ociRows)('$condition ($upstream)', (row) => checkRow(row, { registry: registry.host }));
  },
);

/**
 * Upgrade-plan errors, which name providers as clusterctl does: `<namespace>/<label>`. These run
 * the planner behind `capi-render plan` / `upgrade` on release data the fixture repositories do not
 * have (1.10 → 1.14, a release newer than its metadata), formatted as the CLI prints them.
 * Upstream: kubernetes-sigs/cluster-api@v1.14.0 cmd/clusterctl/client/cluster/upgrader.go (skip rule,
 * contract of a provider left behind, one core provider) and upgrader_info.go (release series).
 */
describe('peer wording of upgrade planning: providers named namespace/label', () => {
  const CAPI_METADATA = parseMetadata(fixtureText('repository/cluster-api/v1.12.0/metadata.yaml'), 'v1.12.0 metadata');
  const KINDS: Record<string, [ProviderKind, string, string, string]> = {
    core: ['CoreProvider', 'cluster-api', 'capi-system', 'cluster-api'],
    bootstrap: ['BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system', 'bootstrap-kubeadm'],
  };
  const provider = (
    which: string,
    version: string,
    available: readonly string[],
    metadata: ReleaseMetadata,
  ): PlanProvider => {
    const [kind, name, namespace, label] = KINDS[which]!;
    return {
      provider: `${kind}/${namespace}/${name}`,
      kind,
      name,
      namespace,
      label,
      version,
      available,
      metadata,
      sourceDescription: 'fixture releases',
    };
  };
  const firstLine = (problems: readonly Diagnostic[]) => formatDiagnostics(problems, { color: false }).split('\n')[0]!;
  const select = (
    set: PlanProvider[],
    request: UpgradeRequest,
    providers: string[],
    supported = ['v1beta2', 'v1beta1'],
  ) => {
    const planned = planEnvironmentUpgrade('dev', set, supported);
    return selectTargets({ environment: 'dev', providers: set }, planned.plan!, { request, providers }, supported)
      .problems;
  };
  const future: ReleaseMetadata = {
    releaseSeries: [10, 11, 12, 13, 14].map((minor) => ({
      major: 1,
      minor,
      contract: minor === 10 ? 'v1beta1' : 'v1beta2',
    })),
  };
  const old: ReleaseMetadata = {
    releaseSeries: [
      { major: 0, minor: 4, contract: 'v1alpha4' },
      { major: 1, minor: 0, contract: 'v1beta1' },
    ],
  };

  it.each([
    {
      name: 'the 3-minor skip rule',
      problems: () =>
        select([provider('core', 'v1.10.4', ['v1.10.4', 'v1.14.0'], future)], { kind: 'to', version: 'v1.14.0' }, []),
      first: 'clusterctl: "upgrade for capi-system/cluster-api provider can\'t skip more than 3 versions"',
    },
    {
      name: 'a provider left behind on a contract the new core does not accept',
      problems: () =>
        select(
          [
            provider('core', 'v0.4.0', ['v0.4.0', 'v1.0.0'], old),
            provider('bootstrap', 'v0.4.0', ['v0.4.0', 'v1.0.0'], old),
          ],
          { kind: 'to', version: 'v1.0.0' },
          ['cluster-api'],
          ['v1beta1', 'v1alpha4'],
        ),
      first:
        'clusterctl: "unable to perform upgrade: the provider capi-kubeadm-bootstrap-system/bootstrap-kubeadm implements the v1alpha4 contract version, while the core provider is getting updated to a version that supports v1beta1 contract versions. Please include the capi-kubeadm-bootstrap-system/bootstrap-kubeadm provider in the upgrade"',
    },
    {
      name: 'a newer release no series covers',
      problems: () => upgradeInfo(provider('core', 'v1.12.0', ['v1.12.0', 'v1.13.0'], CAPI_METADATA)).problems,
      first:
        'clusterctl: "invalid provider metadata: version v1.13.0 (one of the available versions) for the provider capi-system/cluster-api does not match any release series"',
    },
    {
      name: 'a current version no series covers',
      problems: () => upgradeInfo(provider('core', 'v2.0.0', ['v2.0.0'], CAPI_METADATA)).problems,
      first:
        'clusterctl: "invalid provider metadata: version v2.0.0 (the current version) for the provider capi-system/cluster-api does not match any release series"',
    },
    {
      name: "a contract other than clusterctl's own (--contract)",
      problems: () =>
        select(
          [provider('core', 'v1.12.0', ['v1.12.0'], CAPI_METADATA)],
          { kind: 'contract', contract: 'v1alpha4' },
          [],
        ),
      first: 'clusterctl: "current version of clusterctl could only upgrade to v1beta2 contract, requested v1alpha4"',
    },
    {
      name: 'a core provider target on a contract capi-render does not render',
      problems: () =>
        select(
          [provider('core', 'v1.10.4', ['v1.10.4', 'v1.10.5'], future)],
          { kind: 'to', version: 'v1.10.5' },
          [],
          ['v1beta2'],
        ),
      first:
        'clusterctl: "current version of clusterctl could only upgrade the core provider to v1beta2 contract version, requested v1beta1"',
    },
    {
      name: 'a provider target on a contract the core provider does not support',
      problems: () =>
        select(
          [
            provider('core', 'v0.4.0', ['v0.4.0', 'v1.0.0'], old),
            provider('bootstrap', 'v0.4.0', ['v0.4.0', 'v1.0.0'], old),
          ],
          { kind: 'to', version: 'v1.0.0' },
          ['bootstrap-kubeadm'],
          ['v1beta1', 'v1alpha4'],
        ),
      first:
        'clusterctl: "unable to perform upgrade: the target version for the provider capi-kubeadm-bootstrap-system/bootstrap-kubeadm implements the v1beta1 contract version, while the core provider supports v1alpha4 contract versions"',
    },
    {
      name: 'a target version no release series covers',
      problems: () =>
        select([provider('core', 'v1.12.0', ['v1.12.0'], CAPI_METADATA)], { kind: 'to', version: 'v9.9.9' }, [
          'cluster-api',
        ]),
      first:
        'clusterctl: "invalid target version: version v9.9.9 for the provider capi-system/cluster-api does not match any release series"',
    },
    {
      name: 'no core provider',
      problems: () =>
        planEnvironmentUpgrade('dev', [provider('bootstrap', 'v1.12.0', ['v1.12.0'], CAPI_METADATA)], ['v1beta2'])
          .problems,
      first: 'clusterctl: "invalid management cluster: there must be one core provider, found 0"',
    },
  ])('$name', ({ problems, first }) => {
    const found = problems();
    expect(found.length).toBeGreaterThan(0);
    expect(firstLine(found)).toContain(first);
  });
});
