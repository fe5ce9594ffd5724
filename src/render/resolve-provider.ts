/**
 * Resolves one provider: its source (wrapped by the lock and cache), its exact version — from the
 * source itself, the lock when it still satisfies the spec, or version selection — and the release's
 * metadata and components.
 */
import { FetchError, RenderError, SpecError, error, peerWording, type Diagnostic, type Peer } from '../errors.js';
import type { LockedProvider } from '../lock/lock-types.js';
import { parseVersionRequest, selectVersion } from '../resolve/select-version.js';
import {
  METADATA_FILE,
  compatibleContracts,
  parseMetadata,
  releaseSeriesFor,
  type ReleaseSeries,
} from '../source/metadata.js';
import { ref } from '../declarations/preflight.js';
import type { ProviderCR } from '../declarations/provider-spec.js';
import type { ArtifactStore, FetchedArtifact } from '../source/artifact-store.js';
import { pinSource, type PinContext } from '../source/pinned-source.js';
import { providerSource, type ProviderSource, type SourceContext } from '../source/provider-source.js';
import { CLUSTERCTL_CONTRACT } from '../resolve/select-version.js';
import { parseVersion } from '../declarations/versions.js';
import { manifestLabel } from '../declarations/provider-kinds.js';
import { usableLockEntry, versionAllowed, type LockContradictionRule } from '../lock/lock-evidence.js';
import type { CommittedEnvironment } from '../plan/committed-output.js';
import { siteOnRead } from './site-on-read.js';

export interface ResolvedArtifacts {
  cr: ProviderCR;
  providerSource: ProviderSource;
  version: string;
  series: ReleaseSeries;
  metadataFile: FetchedArtifact;
  components: FetchedArtifact;
}

/**
 * What resolving one provider reads, and nothing more of the build: the values are handed over by
 * the environment's render, so this stage never sees the run's options or its whole session.
 */
export interface ResolveContext {
  /** Lock, cache and offline rules wrapped around the provider's source. */
  pin: PinContext;
  /** The build's release files, each read once. */
  store: ArtifactStore;
  /** This environment's providers in the lock the build started from. */
  locked: readonly LockedProvider[];
  /** The lock's text (for line numbers) and what to do with an entry the inputs contradict. */
  lockEvidence: { text: string | undefined; rule: LockContradictionRule };
  /** Accept a lower minor version than the installed one. */
  allowDowngrade: boolean;
  /**
   * The environment's committed output (what Argo CD / Flux applies), undefined when it has none.
   * The downgrade refusal compares with the versions installed there; only an environment with no
   * committed output (never built, or rendered by a plugin) is compared with the lock instead.
   */
  committed: CommittedEnvironment | undefined;
  sourceCtx: SourceContext;
  env: string;
  /** The core provider's contract, once known (undefined while resolving the core provider itself). */
  coreContract: string | undefined;
  /** Where the CR's spec.version is, for diagnostics (may be a getter that finds it on first read). */
  at: { file: string; line: number; col: number };
  /** Receives what the build says about the lock (an entry re-resolved because the inputs contradict it). */
  note: (d: Diagnostic) => void;
}

const SUPPORTED = compatibleContracts(CLUSTERCTL_CONTRACT);

export async function resolveProvider(cr: ProviderCR, ctx: ResolveContext): Promise<ResolvedArtifacts> {
  const found = providerSource(cr, ctx.sourceCtx);
  const pinned: ProviderSource = { ...found, source: pinSource(found.source, ctx.pin, found.localSearch) };
  const requested = cr.spec.version ?? '';
  const locked = ctx.locked.find((p) => p.provider === ref(cr));
  const reusable = usableLockEntry(locked, requested, pinned.source.id, {
    env: ctx.env,
    site: () => ({ what: `spec.version ${requested === '' ? '(empty)' : requested}`, ...ctx.at }),
    lockText: ctx.lockEvidence.text,
    rule: ctx.lockEvidence.rule,
    note: ctx.note,
  });
  const label = manifestLabel(cr.kind, cr.name);
  const where: ProviderSite = siteOnRead(() => ({ ...ctx.at, object: ref(cr) }), ['file', 'line', 'col', 'object']);
  // ConfigMaps chosen by a selector are a source only the operator reads: its words, naming the CR (phase_load.go).
  const fromConfigMaps = cr.spec.fetchConfig?.selector != null;
  const seriesOf = async (version: string) => {
    const file = await readReleaseFile(
      ctx.store,
      pinned,
      version,
      METADATA_FILE,
      fromConfigMaps
        ? {
            peer: 'cluster-api-operator',
            phrase: `failed to read "${METADATA_FILE}" from the repository for provider "${cr.name}"`,
          }
        : {
            peer: 'clusterctl',
            phrase: `failed to read "${METADATA_FILE}" from the repository for provider "${label}"`,
          },
      where,
    );
    const metadata = parseMetadata(
      file.text,
      `${pinned.source.description} ${version}/${METADATA_FILE}`,
      label,
      fromConfigMaps ? { peer: 'cluster-api-operator', provider: cr.name } : undefined,
    );
    return { file, metadata, series: releaseSeriesFor(metadata, version) };
  };
  const allowed = ctx.coreContract ? compatibleContracts(ctx.coreContract) : SUPPORTED;
  const version: string =
    pinned.pinnedVersion ??
    (requested === '' ? pinned.defaultVersion : undefined) ??
    // The lock's version is reused only where the spec allows it (lock-evidence.ts).
    (reusable
      ? reusable.version
      : await locatedAt(where, () =>
          selectVersion(pinned.source, parseVersionRequest(requested)!, {
            latestRule: pinned.latestRule,
            providerRef: ref(cr),
            contract: ctx.coreContract ?? CLUSTERCTL_CONTRACT,
            accept: async (candidate) => {
              const { series } = await seriesOf(candidate);
              if (!series) return { ok: false, why: 'its metadata.yaml has no release series for it' };
              return allowed.includes(series.contract)
                ? { ok: true, why: '' }
                : { ok: false, why: `contract ${series.contract}, needs ${allowed.join(' or ')}` };
            },
          }),
        ));
  refuseDowngrade(cr, version, installedVersion(cr, locked, ctx), ctx);
  const { file: metadataFile, metadata, series } = await seriesOf(version);
  if (!series) {
    const phrase = `invalid provider metadata: version ${version} for the provider ${fromConfigMaps ? cr.name : `${cr.namespace}/${label}`} does not match any release series`;
    throw new SpecError(
      error('contract', peerWording(fromConfigMaps ? 'cluster-api-operator' : 'clusterctl', phrase, ref(cr)), {
        ...ctx.at,
        object: ref(cr),
        hint: `${METADATA_FILE} of ${version} lists ${metadata.releaseSeries.map((s) => `${s.major}.${s.minor}→${s.contract}`).join(', ')}; the release tag lacks an updated ${METADATA_FILE}, or the source is not this provider's`,
      }),
    );
  }
  const components = await readReleaseFile(
    ctx.store,
    pinned,
    version,
    pinned.componentsFile,
    { peer: 'clusterctl', phrase: `failed to read "${pinned.componentsFile}" from provider's repository "${label}"` },
    where,
  );
  return { cr, providerSource: pinned, version, series, metadataFile, components };
}

/** Where a provider's resolution problems point: its spec.version in its CR. */
interface ProviderSite {
  file: string;
  line: number;
  col: number;
  object: string;
}

/**
 * Reads one release file through the build's store. Failures point at the provider; a missing
 * release or file also gets the peer's wrapping phrase (clusterctl's `failed to read "metadata.yaml"
 * from the repository for provider "cluster-api"`) in front of the source's own explanation.
 */
async function readReleaseFile(
  store: ArtifactStore,
  providerSource: ProviderSource,
  version: string,
  file: string,
  wording: { peer: Peer; phrase: string },
  where: ProviderSite,
): Promise<FetchedArtifact> {
  try {
    return await store.read(providerSource.source, version, file);
  } catch (e) {
    if (!(e instanceof FetchError)) throw e;
    const missing = e.code === 'source-not-found' || e.code === 'version-not-found';
    // `version: 1.12.0` where the releases are tagged `v1.12.0`: say so (clusterctl's tags keep the v).
    const tagged =
      missing && /^\d/.test(version)
        ? await providerSource.source.listVersions().then(
            (all) => all.includes(`v${version}`),
            () => false,
          )
        : false;
    const suggestion = tagged ? `; did you mean "v${version}"? (the releases are tagged with a leading v)` : '';
    throw located(
      e,
      where,
      (d) => `${missing ? peerWording(wording.peer, wording.phrase, d.message) : d.message}${suggestion}`,
    );
  }
}

/** Runs a version selection, pointing its diagnostics at the provider when they name no file. */
async function locatedAt<T>(where: ProviderSite, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw e instanceof RenderError ? located(e, where) : e;
  }
}

/**
 * The same error with every diagnostic that names no file pointed at the provider. The store shares
 * one failure between environments, so new diagnostics are built; the originals are never edited.
 */
function located(
  e: RenderError,
  where: ProviderSite,
  message: (d: Diagnostic) => string = (d) => d.message,
): RenderError {
  const diagnostics = e.diagnostics.map((d) => ({
    ...d,
    message: message(d),
    ...(d.file ? {} : { file: where.file, line: where.line, col: where.col }),
    object: d.object ?? where.object,
  }));
  return e instanceof FetchError ? new FetchError(diagnostics) : new SpecError(diagnostics);
}

/**
 * What is installed of `cr`, for the downgrade refusal: the version of its inventory object in the
 * committed output; where the environment has no committed output, the lock's entry — but only one
 * its own request allows (an entry edited to contradict it decides nothing; lock-evidence.ts).
 */
function installedVersion(
  cr: ProviderCR,
  locked: LockedProvider | undefined,
  ctx: ResolveContext,
): { version: string; where: string } | undefined {
  if (ctx.committed) {
    const found = ctx.committed.providers.find((p) => p.provider === ref(cr));
    return found ? { version: found.version, where: `the committed output (${found.file}) has` } : undefined;
  }
  if (!locked || !versionAllowed(locked.requested, locked.version)) return undefined;
  return { version: locked.version, where: 'capi-render.lock has' };
}

/**
 * The operator's preflight rule, against what is installed: a lower major.minor than the installed
 * version is refused (patch downgrades are allowed), since CRD storage versions and conversion
 * webhooks only move forward.
 */
function refuseDowngrade(
  cr: ProviderCR,
  version: string,
  installed: { version: string; where: string } | undefined,
  ctx: ResolveContext,
): void {
  if (!installed || ctx.allowDowngrade) return;
  const from = parseVersion(installed.version);
  const to = parseVersion(version);
  if (!from || !to) return;
  if (to.major < from.major || (to.major === from.major && to.minor < from.minor)) {
    throw new SpecError(
      error(
        'preflight',
        peerWording(
          'cluster-api-operator',
          `Downgrade is not supported for provider ${cr.name}`,
          `${ref(cr)}: ${installed.where} ${installed.version}, the spec now resolves to ${version}`,
        ),
        {
          ...ctx.at,
          object: ref(cr),
          field: 'spec.version',
          hint: 'downgrading a minor version is refused, as the operator does (CRD storage versions only move forward); pass --allow-downgrade if you have restored the cluster accordingly',
        },
      ),
    );
  }
}
