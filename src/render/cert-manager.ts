/**
 * cert-manager as its own component, the way `clusterctl init` installs it
 * (cmd/clusterctl/client/cluster/cert_manager.go): its release manifest fetched through the same
 * source machinery as providers (a local repository's `cert-manager/<version>/cert-manager.yaml`,
 * else the configured or default GitHub release URL), with no variable substitution and no
 * namespace fix-up (it spans cert-manager and kube-system), clusterctl `images:` overrides for the
 * `cert-manager` component, the labels `clusterctl.cluster.x-k8s.io: ""` and
 * `clusterctl.cluster.x-k8s.io/core: cert-manager`, and the version annotation clusterctl's upgrade
 * logic reads.
 */
import semver from 'semver';
import { SpecError, error, warning, type Diagnostic } from '../errors.js';
import type { CertManagerConfig, LocalRepositoryConfig } from '../config/config-types.js';
import { setIn, type KubeObject } from '../manifest/object.js';
import { canonicalJson } from '../manifest/canonical-json.js';
import { addLabels, CLUSTERCTL_CORE_LABEL, CLUSTERCTL_LABEL } from '../process/common-labels.js';
import { cleanObjects } from '../process/clean-objects.js';
import { applyImageOverrides, imageOrigins, listImages, type ImageOverrides } from '../process/image-overrides.js';
import { parseVersionRequest } from '../resolve/select-version.js';
import { findLocalRepository, type LocalSearch } from '../source/local-repository.js';
import { parseVersion } from '../declarations/versions.js';
import type { LockedProvider } from '../lock/lock-types.js';
import type { RenderedComponent } from '../plan/output-plan.js';
import type { FetchedArtifact } from '../source/artifact-store.js';
import { pinSource } from '../source/pinned-source.js';
import { usableLockEntry } from '../lock/lock-evidence.js';
import { locateConfigSetting } from '../config/load-config.js';
import type { ProviderSource } from '../source/provider-source.js';
import type { ReleaseSource } from '../source/release-source.js';
import type { RenderSession } from './session.js';
import { baselineOf } from '../baseline/baseline.js';

/** clusterctl v1.14.0's CertManagerDefaultVersion (the default baseline's; see baseline.ts for the operator's). */
export const CERT_MANAGER_DEFAULT_VERSION = 'v1.21.1';
export const CERT_MANAGER_COMPONENT = 'cert-manager';
export const CERT_MANAGER_VERSION_ANNOTATION = 'cert-manager.clusterctl.cluster.x-k8s.io/version';
const DEFAULT_URL = 'https://github.com/cert-manager/cert-manager/releases/latest/cert-manager.yaml';
const ASSET = 'cert-manager.yaml';
/** How the lock names it among the providers of an environment. */
export const CERT_MANAGER_LOCK_NAME = 'cert-manager';

export interface RenderedCertManager {
  component: RenderedComponent;
  /** Each workload image as rendered → the images of the release that `images:` turned into it. */
  releasedImages: Map<string, string[]>;
  lock: LockedProvider;
  artifact: { file: string; url: string; sha256: string; text: string };
  sourceId: string;
  version: string;
  /** `certManager.version` as written; empty when clusterctl's default applies. */
  requested: string;
  /** That default: CertManagerDefaultVersion of the emulated clusterctl (v1.21.1 for v1.14.0, v1.20.3 for v1.12.10). */
  defaultVersion: string;
  /** The source it came from, wrapped by the build's lock, cache and offline rules (so `plan` can list its releases). */
  source: ReleaseSource;
}

/**
 * The parts of the build cert-manager's render reads: the settings it is compared with, where the
 * repository is, the lock it started from, and the build's source, store and parse caches.
 */
export type CertManagerDeps = Pick<
  RenderSession,
  | 'repoRoot'
  | 'config'
  | 'catalog'
  | 'pin'
  | 'lock'
  | 'lockEvidence'
  | 'store'
  | 'parser'
  | 'certManager'
  | 'fillingRepository'
>;

/** cert-manager as its own component, as `clusterctl init` installs it; undefined when not installed (bring your own). */
export async function renderCertManager(
  settings: CertManagerConfig,
  env: string,
  images: ImageOverrides,
  session: CertManagerDeps,
  lockCtx: { note: (d: Diagnostic) => void; overlayFile?: string | undefined },
): Promise<RenderedCertManager | undefined> {
  const baseline = baselineOf(session.config.emulate);
  // The setting's place: the overlay when it sets a value capi-render.yaml does not, else capi-render.yaml.
  const fromOverlay =
    lockCtx.overlayFile !== undefined &&
    session.config.certManager.externallyProvisioned !== settings.externallyProvisioned;
  const site = () =>
    fromOverlay
      ? { file: lockCtx.overlayFile! }
      : locateConfigSetting(session.repoRoot, ['certManager', 'externallyProvisioned']);
  if (!rendersCertManager(settings, baseline, site)) return undefined;
  const defaultVersion = baseline.certManagerDefaultVersion;
  const requested = settings.version ?? defaultVersion;
  const located = certManagerSource(settings, {
    repoRoot: session.repoRoot,
    repositories: session.config.repositories,
    fillingRepository: session.fillingRepository,
    catalog: session.catalog,
  });
  const source = pinSource(located.source, session.pin, located.localSearch);
  const locked = session.lock.environments
    .find((e) => e.name === env)
    ?.providers.find((p) => p.provider === CERT_MANAGER_LOCK_NAME);
  // The lock stores certManager.version as written: '' stands for the baseline's default, an exact
  // version. Made under another baseline (emulates:), that default was another one: resolve afresh.
  const lockedBaseline = session.lock.emulates?.clusterctl ?? baselineOf(undefined).clusterctl;
  const recorded =
    locked && locked.requested === '' && settings.version === undefined && lockedBaseline === baseline.clusterctl
      ? { ...locked, requested }
      : locked;
  const reusable = usableLockEntry(recorded, requested, source.id, {
    env,
    site: () => ({
      what: `certManager.version ${settings.version ?? `(unset: the default of ${baseline.title}, ${defaultVersion})`}`,
      ...(lockCtx.overlayFile && session.config.certManager.version !== settings.version
        ? { file: lockCtx.overlayFile }
        : locateConfigSetting(session.repoRoot, ['certManager', 'version'])),
    }),
    lockText: session.lockEvidence.text,
    rule: session.lockEvidence.rule,
    note: lockCtx.note,
  });
  const version = reusable
    ? reusable.version
    : await resolveCertManagerVersion(requested, source, located.defaultVersion);
  const artifact: FetchedArtifact = await session.store.read(source, version, located.componentsFile);
  const where = `${source.description} ${version}/${located.componentsFile}`;
  // Environments with the same artifact and image overrides share one set of objects.
  const key = canonicalJson({ sha256: artifact.sha256, version, images });
  let processed = session.certManager.get(key);
  if (!processed) {
    // cert-manager is installed as published (clusterctl substitutes no variables in it), so its
    // text holds no secret value and its parse may be cached.
    const parsed = session.parser.parseText(artifact.text, where).map((r) => r.object);
    processed = {
      objects: processCertManager(parsed, version, images, where),
      releasedImages: imageOrigins(listImages(parsed), CERT_MANAGER_COMPONENT, images),
    };
    session.certManager.set(key, processed);
  }
  return {
    component: { name: CERT_MANAGER_COMPONENT, objects: [...processed.objects] },
    releasedImages: processed.releasedImages,
    lock: {
      provider: CERT_MANAGER_LOCK_NAME,
      requested: settings.version ?? '',
      version,
      contract: '',
      source: source.id,
      variables: [],
    },
    artifact: { file: located.componentsFile, url: artifact.url, sha256: artifact.sha256, text: artifact.text },
    sourceId: source.id,
    version,
    requested: settings.version ?? '',
    defaultVersion,
    source,
  };
}

/**
 * Whether cert-manager is rendered: not with `install: false`, nor with clusterctl v1.14's
 * `externallyProvisioned: true` (cluster-api #13739: cert-manager comes from elsewhere and clusterctl
 * only waits for it). The operator's clusterctl v1.12.10 has no such setting, so under that baseline
 * it is refused rather than silently meaning something it cannot mean there.
 */
function rendersCertManager(
  settings: CertManagerConfig,
  baseline: ReturnType<typeof baselineOf>,
  site: () => { file: string; line?: number; col?: number },
): boolean {
  if (settings.externallyProvisioned !== undefined && !baseline.certManagerExternallyProvisioned) {
    throw new SpecError(
      error(
        'config',
        `certManager.externallyProvisioned is clusterctl v1.14's setting (cluster-api #13739); ${baseline.title} has no such setting`,
        {
          ...site(),
          field: 'certManager.externallyProvisioned',
          hint: 'write certManager.install: false instead (the same: cert-manager is not rendered), or set emulate: clusterctl-v1.14',
        },
      ),
    );
  }
  if (settings.externallyProvisioned === true && settings.install === true) {
    throw new SpecError(
      error(
        'config',
        'certManager.externallyProvisioned: true and install: true contradict each other (an externally provisioned cert-manager is not installed)',
        {
          ...site(),
          field: 'certManager.externallyProvisioned',
          hint: 'keep one of them',
        },
      ),
    );
  }
  return settings.install !== false && settings.externallyProvisioned !== true;
}

function processCertManager(
  parsed: KubeObject[],
  version: string,
  images: ImageOverrides,
  where: string,
): KubeObject[] {
  const objects = applyImageOverrides(parsed, CERT_MANAGER_COMPONENT, images, 'strict');
  let resources = objects.map((object, document) => ({ object, origin: { source: where, document } }));
  resources = addLabels(resources, { [CLUSTERCTL_LABEL]: '', [CLUSTERCTL_CORE_LABEL]: 'cert-manager' });
  return cleanObjects(resources).map((r) =>
    setIn<KubeObject>(r.object, ['metadata', 'annotations', CERT_MANAGER_VERSION_ANNOTATION], version),
  );
}

function certManagerSource(
  settings: CertManagerConfig,
  where: {
    repoRoot: string;
    repositories: readonly LocalRepositoryConfig[];
    fillingRepository?: string | undefined;
    catalog: RenderSession['catalog'];
  },
): ProviderSource {
  const at = {
    label: CERT_MANAGER_COMPONENT,
    ref: 'certManager',
    file: 'capi-render.yaml',
    line: 1,
    field: 'certManager.url',
  };
  let localSearch: LocalSearch | undefined;
  if (!settings.url) {
    // Like clusterctl's overrides folder: a local repository with cert-manager/ wins over GitHub.
    const local = findLocalRepository(
      where.repoRoot,
      where.repositories,
      CERT_MANAGER_COMPONENT,
      where.fillingRepository,
    );
    if ('source' in local) return { source: local.source, componentsFile: ASSET, latestRule: 'operator' };
    localSearch = local.search;
  }
  const fromUrl = where.catalog.sourceForUrl?.(settings.url ?? DEFAULT_URL, at);
  if (!fromUrl)
    throw new SpecError(
      error('source-not-found', 'no source for cert-manager', { file: 'capi-render.yaml', field: 'certManager' }),
    );
  return localSearch ? { ...fromUrl, localSearch } : fromUrl;
}

/** Exact, a range (highest stable match) or `latest` (highest stable release); cert-manager has no metadata.yaml. */
async function resolveCertManagerVersion(
  requested: string,
  source: ProviderSource['source'],
  defaultVersion: string | undefined,
): Promise<string> {
  const request = parseVersionRequest(requested);
  if (!request) {
    throw new SpecError(
      error('config', `certManager.version "${requested}" is not a version or range`, {
        file: 'capi-render.yaml',
        field: 'certManager.version',
      }),
    );
  }
  if (request.kind === 'exact') return request.version;
  if (request.kind === 'latest' && defaultVersion) return defaultVersion;
  const versions = (await source.listVersions()).filter((v) => parseVersion(v));
  const candidates = versions.filter((v) => {
    const parsed = parseVersion(v)!;
    return request.kind === 'range' ? semver.satisfies(parsed, request.range) : parsed.prerelease.length === 0;
  });
  const best = candidates.sort((a, b) => semver.rcompare(parseVersion(a)!, parseVersion(b)!))[0];
  if (!best) {
    throw new SpecError(
      error('version-not-found', `no cert-manager release in ${source.description} satisfies ${requested}`, {
        file: 'capi-render.yaml',
        field: 'certManager.version',
      }),
    );
  }
  return best;
}

/** With cert-manager not rendered, warn when the providers ship cert-manager objects that need its CRDs. */
export function bringYourOwnCertManagerWarnings(components: readonly RenderedComponent[]): Diagnostic[] {
  const users = components.filter((c) => c.objects.some((o) => o.apiVersion.startsWith('cert-manager.io/')));
  if (users.length === 0) return [];
  return [
    warning(
      'preflight',
      `certManager.install is false, and nothing in the output provides the cert-manager.io CRDs that ${users.map((c) => c.name).join(', ')} use (Issuer, Certificate)`,
      {
        file: 'capi-render.yaml',
        field: 'certManager.install',
        hint: 'install cert-manager before these components sync (Argo CD wave / Flux dependsOn), or set certManager.install: true',
      },
    ),
  ];
}
