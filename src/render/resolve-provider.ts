/**
 * Resolves one provider: its source (wrapped by the lock and cache), its exact version — from the
 * source itself, the lock when it still satisfies the spec, or version selection — and the release's
 * metadata and components.
 */
import { SpecError, error } from '../errors.js';
import type { LockedProvider } from '../lock/lock-types.js';
import { parseVersionRequest, selectVersion } from '../resolve/select-version.js';
import { METADATA_FILE, compatibleContracts, parseMetadata, releaseSeriesFor, type ReleaseSeries } from '../source/metadata.js';
import { ref } from '../spec/preflight.js';
import type { ProviderCR } from '../spec/provider-spec.js';
import type { FetchedArtifact } from './artifact-store.js';
import { pinSource } from './pinned-source.js';
import { providerSource, type ProviderSource, type SourceContext } from './provider-source.js';
import type { RenderSession } from './session.js';
import { CLUSTERCTL_CONTRACT } from '../resolve/select-version.js';
import { parseVersion } from '../source/versions.js';

export interface ResolvedArtifacts {
  cr: ProviderCR;
  ps: ProviderSource;
  version: string;
  series: ReleaseSeries;
  metadataFile: FetchedArtifact;
  components: FetchedArtifact;
}

export interface ResolveContext {
  session: RenderSession;
  sourceCtx: SourceContext;
  env: string;
  /** The core provider's contract, once known (undefined while resolving the core provider itself). */
  coreContract: string | undefined;
  at: { file: string; line: number; col: number };
}

const SUPPORTED = compatibleContracts(CLUSTERCTL_CONTRACT);

export async function resolveProvider(cr: ProviderCR, ctx: ResolveContext): Promise<ResolvedArtifacts> {
  const { session } = ctx;
  const found = providerSource(cr, ctx.sourceCtx);
  const ps: ProviderSource = { ...found, source: pinSource(found.source, session.pin) };
  const requested = cr.spec.version ?? '';
  const locked = lockedProvider(session, ctx.env, cr);
  const seriesOf = async (version: string) => {
    const file = await session.store.read(ps.source, version, METADATA_FILE);
    const metadata = parseMetadata(file.text, `${ps.source.description} ${version}/${METADATA_FILE}`);
    return { file, metadata, series: releaseSeriesFor(metadata, version) };
  };
  const allowed = ctx.coreContract ? compatibleContracts(ctx.coreContract) : SUPPORTED;
  const version: string =
    ps.pinnedVersion ??
    (requested === '' ? ps.defaultVersion : undefined) ??
    // The lock satisfies the spec when it was resolved from the same request and source.
    (locked && locked.requested === requested && locked.source === ps.source.id
      ? locked.version
      : await selectVersion(ps.source, parseVersionRequest(requested)!, {
          latestRule: ps.latestRule,
          providerRef: ref(cr),
          contract: ctx.coreContract ?? CLUSTERCTL_CONTRACT,
          accept: async (candidate) => {
            const { series } = await seriesOf(candidate);
            if (!series) return { ok: false, why: 'its metadata.yaml has no release series for it' };
            return allowed.includes(series.contract)
              ? { ok: true, why: '' }
              : { ok: false, why: `contract ${series.contract}, needs ${allowed.join(' or ')}` };
          },
        }));
  refuseDowngrade(cr, version, locked, ctx);
  const { file: metadataFile, metadata, series } = await seriesOf(version);
  if (!series) {
    throw new SpecError(
      error('contract', `invalid provider metadata: version ${version} for the provider ${ref(cr)} does not match any release series`, {
        ...ctx.at,
        object: ref(cr),
        hint: `${METADATA_FILE} of ${version} lists ${metadata.releaseSeries.map((s) => `${s.major}.${s.minor}→${s.contract}`).join(', ')}`,
      }),
    );
  }
  const components = await session.store.read(ps.source, version, ps.componentsFile);
  return { cr, ps, version, series, metadataFile, components };
}

/**
 * The operator's preflight rule, against what the lock says is installed: a lower major.minor than
 * the locked version is refused (patch downgrades are allowed), since CRD storage versions and
 * conversion webhooks only move forward.
 */
function refuseDowngrade(cr: ProviderCR, version: string, locked: LockedProvider | undefined, ctx: ResolveContext): void {
  if (!locked || ctx.session.allowDowngrade) return;
  const from = parseVersion(locked.version);
  const to = parseVersion(version);
  if (!from || !to) return;
  if (to.major < from.major || (to.major === from.major && to.minor < from.minor)) {
    throw new SpecError(
      error('preflight', `Downgrade is not supported for provider ${ref(cr)}: capi-render.lock has ${locked.version}, the spec now resolves to ${version}`, {
        ...ctx.at,
        object: ref(cr),
        field: 'spec.version',
        hint: 'downgrading a minor version is refused, as the operator does (CRD storage versions only move forward); pass --allow-downgrade if you have restored the cluster accordingly',
      }),
    );
  }
}

function lockedProvider(session: RenderSession, env: string, cr: ProviderCR): LockedProvider | undefined {
  return session.lock.environments.find((e) => e.name === env)?.providers.find((p) => p.provider === ref(cr));
}
