/**
 * Chooses the exact version of a provider from what its source offers. `spec.version` may be an
 * exact version (used as is), empty or `latest` (clusterctl's rule; the operator's for ConfigMap
 * sources), or a semver range (a capi-render extension: the highest matching stable release). Never
 * depends on the order the source lists versions in; a source that cannot list its releases
 * ({@link ReleaseSource.unlisted}) takes exact versions only.
 *
 * Design notes: docs/internals.md "resolve/select-version.ts".
 */
import semver from 'semver';
import { FetchError, SpecError, error, peerWording } from '../errors.js';
import { METADATA_FILE, newestSeriesForContract, parseMetadata } from '../source/metadata.js';
import type { ReleaseSource } from '../source/release-source.js';
import { parseVersion } from '../declarations/versions.js';

/** The contract clusterctl v1.12+ implements (internal/contract/version.go). */
export const CLUSTERCTL_CONTRACT = 'v1beta2';

export type VersionRequest = { kind: 'exact'; version: string } | { kind: 'latest' } | { kind: 'range'; range: string };

/** Classifies a spec.version value; null when it is none of the accepted forms. */
export function parseVersionRequest(value: string | undefined): VersionRequest | null {
  if (value === undefined || value === '' || value === 'latest') return { kind: 'latest' };
  if (parseVersion(value)) return { kind: 'exact', version: value };
  const range = semver.validRange(value.replace(/(^|[\s<>=~^])v(?=\d)/g, '$1'));
  // A bare `1.12` is a range to semver; `x`/`*` forms and operators are too. Plain text is not.
  return range ? { kind: 'range', range } : null;
}

export interface SelectionContext {
  /** Which latest rule applies. */
  latestRule: 'clusterctl' | 'operator';
  /** For messages. */
  providerRef: string;
  /** The contract `latest` aims for (clusterctl's latestContractRelease). Default: clusterctl's, v1beta2. */
  contract?: string;
  /**
   * Whether a candidate fits the rest of the installation (its contract against the core provider's).
   * Ranges take the highest accepted match; `latest` must be accepted. Default: everything fits.
   */
  accept?: (version: string) => Promise<{ ok: boolean; why: string }>;
}

/** Resolves a request against a source; throws a FetchError/SpecError naming the provider and what exists. */
export async function selectVersion(
  source: ReleaseSource,
  request: VersionRequest,
  ctx: SelectionContext,
): Promise<string> {
  if (request.kind === 'exact') return request.version;
  if (source.unlisted) {
    const asked = request.kind === 'latest' ? 'latest (or empty)' : request.range;
    throw new SpecError(
      error(
        'versions-unlisted',
        `spec.version ${JSON.stringify(asked)} of ${ctx.providerRef} needs the list of releases, but ${source.unlisted.reason}`,
        {
          object: ctx.providerRef,
          field: 'spec.version',
          hint: "pin an exact spec.version, or leave it empty and put the version in the URL (clusterctl uses the URL's version then); capi-render plan cannot see newer releases of this source either",
        },
      ),
    );
  }
  const versions = (await source.listVersions()).filter((v) => parseVersion(v));
  if (request.kind === 'range') {
    const matching = versions.filter((v) =>
      semver.satisfies(parseVersion(v)!, request.range, { includePrerelease: /-/.test(request.range) }),
    );
    if (matching.length === 0) {
      throw new SpecError(
        error(
          'version-not-found',
          `no release of ${ctx.providerRef} in ${source.description} satisfies ${request.range}`,
          {
            object: ctx.providerRef,
            field: 'spec.version',
            hint: `available: ${summarize(versions)}`,
          },
        ),
      );
    }
    return firstAccepted(byVersionDesc(matching), ctx, `${request.range}`);
  }
  if (versions.length === 0) {
    throw new FetchError(
      error(
        'version-not-found',
        peerWording(
          'clusterctl',
          'failed to find releases tagged with a valid semantic version number',
          `${source.description} has none, so spec.version "latest" (or empty) has nothing to choose from`,
        ),
        {
          object: ctx.providerRef,
          hint: 'publish a release tagged with a semantic version (v1.2.3), or pin spec.version',
        },
      ),
    );
  }
  const latest =
    ctx.latestRule === 'operator'
      ? `v${parseVersion(highest(versions))!.version}`
      : await latestContractRelease(source, versions, ctx);
  return firstAccepted([latest], ctx, 'latest');
}

async function firstAccepted(candidates: readonly string[], ctx: SelectionContext, asked: string): Promise<string> {
  if (!ctx.accept) return candidates[0]!;
  const rejected: string[] = [];
  for (const v of candidates) {
    const verdict = await ctx.accept(v);
    if (verdict.ok) return v;
    rejected.push(`${v} (${verdict.why})`);
  }
  throw new SpecError(
    error(
      'contract',
      `no release of ${ctx.providerRef} for spec.version "${asked}" fits the installation: ${rejected.slice(0, 8).join('; ')}${rejected.length > 8 ? `; … ${rejected.length - 8} more` : ''}`,
      {
        object: ctx.providerRef,
        field: 'spec.version',
        hint: 'choose versions whose metadata.yaml contracts match the core provider (see `capi-render plan`), or move the core provider',
      },
    ),
  );
}

function byVersionDesc(versions: readonly string[]): string[] {
  return [...versions].sort((a, b) => semver.compareBuild(parseVersion(b)!, parseVersion(a)!));
}

async function latestContractRelease(
  source: ReleaseSource,
  versions: string[],
  ctx: SelectionContext,
): Promise<string> {
  const latest = await latestPatchRelease(source, versions, undefined, ctx);
  let metadataText: string;
  try {
    metadataText = new TextDecoder().decode((await source.readFile(latest, METADATA_FILE)).bytes);
  } catch (e) {
    if (e instanceof FetchError && e.code === 'source-not-found') throw e;
    return latest;
  }
  let series;
  try {
    series = newestSeriesForContract(
      parseMetadata(metadataText, `${source.description} ${latest} ${METADATA_FILE}`),
      ctx.contract ?? CLUSTERCTL_CONTRACT,
    );
  } catch {
    return latest;
  }
  if (!series) return latest;
  const v = parseVersion(latest)!;
  if (v.major === series.major && v.minor === series.minor) return latest;
  return latestPatchRelease(source, versions, { major: series.major, minor: series.minor }, ctx);
}

async function latestPatchRelease(
  source: ReleaseSource,
  versions: string[],
  series: { major: number; minor: number } | undefined,
  ctx: SelectionContext,
): Promise<string> {
  const candidates = versions
    .map((v) => parseVersion(v)!)
    .filter((v) => !series || (v.major === series.major && v.minor === series.minor))
    .sort((a, b) => {
      const aPre = a.prerelease.length > 0;
      const bPre = b.prerelease.length > 0;
      if (aPre !== bPre) return aPre ? 1 : -1;
      return semver.rcompare(a, b);
    })
    .slice(0, 5);
  for (const v of candidates) {
    const tag = `v${v.version}`;
    const original = versions.find((x) => parseVersion(x)!.version === v.version) ?? tag;
    try {
      await source.readFile(original, METADATA_FILE);
      return original;
    } catch (e) {
      if (e instanceof FetchError && (e.code === 'source-not-found' || e.code === 'version-not-found')) continue;
      throw e;
    }
  }
  throw new FetchError(
    error(
      'version-not-found',
      `failed to find releases tagged with a valid semantic version number in ${source.description}`,
      {
        object: ctx.providerRef,
        hint: series ? `no usable release in series v${series.major}.${series.minor}` : undefined,
      },
    ),
  );
}

function highest(versions: readonly string[]): string {
  return byVersionDesc(versions)[0]!;
}

function summarize(versions: readonly string[]): string {
  const sorted = [...versions].sort((a, b) => semver.compareBuild(parseVersion(b)!, parseVersion(a)!));
  return sorted.length === 0
    ? 'none'
    : sorted.slice(0, 15).join(', ') + (sorted.length > 15 ? `, … (${sorted.length} in all)` : '');
}
