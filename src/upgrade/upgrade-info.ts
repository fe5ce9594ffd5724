/**
 * What one provider can be upgraded to, by clusterctl's rules (cmd/clusterctl/client/cluster/
 * upgrader_info.go getUpgradeInfo, getLatestNextVersion; upgrader.go doUpgrade's skip rule):
 * release series come from the metadata.yaml of the provider's *newest* release (pre-releases
 * included in "newest"), every release newer than the current one must belong to a series, and the
 * next version for a set of contracts is the highest stable release whose series maps to one of
 * them. Pure: the versions and metadata are passed in.
 */
import semver from 'semver';
import { error, peerWording, type Diagnostic } from '../errors.js';
import { releaseSeriesFor, type ReleaseMetadata } from '../source/metadata.js';
import { parseVersion } from '../declarations/versions.js';
import type { ProviderKind } from '../declarations/provider-kinds.js';

/** A provider as the planner sees it: identity, the locked version and what its source offers. */
export interface PlanProvider {
  /** `Kind/namespace/name`. */
  provider: string;
  kind: ProviderKind;
  name: string;
  namespace: string;
  /** clusterctl's manifest label (`cluster-api`, `bootstrap-kubeadm`, …). */
  label: string;
  /** The version the build pins today (from capi-render.lock). */
  version: string;
  /** Every version the source lists (tags as published; unparsable tags are ignored). */
  available: readonly string[];
  /** metadata.yaml of the newest available version. */
  metadata: ReleaseMetadata;
  /** For messages: the source (`GitHub releases of kubernetes-sigs/cluster-api`). */
  sourceDescription: string;
  /** Where `available` came from. Default: read from the source just now. */
  listing?: VersionListing;
}

/**
 * Where a provider's version list came from: read from the source now, saved by the last online run
 * (`plan --offline`; with its fetch time), or nowhere — the source cannot list (GitLab generic
 * packages), so `available` holds only the current version and newer releases are unknown.
 */
export type VersionListing =
  { kind: 'live' } | { kind: 'cached'; fetchedAt: string } | { kind: 'unlisted'; reason: string };

/** Where a plan row's versions came from, as the plan's JSON reports it. */
export interface ListingProvenance {
  source: VersionListing['kind'];
  /** For `cached`: when the list was read online. */
  fetchedAt: string | null;
  /** For `unlisted`: why the source cannot list. */
  note: string | null;
}

/** The provenance of a listing (a missing listing was read just now). */
export function versionsOf(listing: VersionListing | undefined): ListingProvenance {
  switch (listing?.kind) {
    case 'cached':
      return { source: 'cached', fetchedAt: listing.fetchedAt, note: null };
    case 'unlisted':
      return { source: 'unlisted', fetchedAt: null, note: listing.reason };
    default:
      return { source: 'live', fetchedAt: null, note: null };
  }
}

/**
 * clusterctl's name for a provider instance in upgrade messages (`Provider.InstanceName`):
 * `<namespace>/<manifest label>`, e.g. `capi-system/cluster-api` — how clusterctl users know it.
 */
export function instanceName(p: Pick<PlanProvider, 'namespace' | 'label'>): string {
  return `${p.namespace}/${p.label}`;
}

/** A version with its tag as the source spells it. */
export interface TaggedVersion {
  tag: string;
  semver: semver.SemVer;
}

/** The upgrade facts of one provider. */
export interface UpgradeInfo {
  provider: PlanProvider;
  current: TaggedVersion;
  /** Contract of the current version's series (in the newest metadata). */
  currentContract: string;
  /** Every available version above the current one, ascending. */
  next: TaggedVersion[];
}

/**
 * The upgrade facts, or diagnostics when the metadata cannot place the current version or one of
 * the newer versions in a release series (clusterctl refuses to plan then, and so do we).
 */
export function upgradeInfo(p: PlanProvider): { info?: UpgradeInfo; problems: Diagnostic[] } {
  const current = parseVersion(p.version);
  if (!current)
    return {
      problems: [
        error('upgrade', `${p.provider} is pinned to ${p.version}, which is not a semantic version`, {
          object: p.provider,
        }),
      ],
    };
  const currentSeries = releaseSeriesFor(p.metadata, p.version);
  const seriesList = p.metadata.releaseSeries.map((s) => `${s.major}.${s.minor}→${s.contract}`).join(', ');
  if (!currentSeries) {
    return {
      problems: [
        error(
          'metadata-invalid',
          peerWording(
            'clusterctl',
            `invalid provider metadata: version ${p.version} (the current version) for the provider ${instanceName(p)} does not match any release series`,
            p.provider,
          ),
          {
            object: p.provider,
            hint: `the newest metadata.yaml in ${p.sourceDescription} lists ${seriesList}`,
          },
        ),
      ],
    };
  }
  const problems: Diagnostic[] = [];
  const next: TaggedVersion[] = [];
  for (const tag of p.available) {
    const v = parseVersion(tag);
    if (!v || semver.compare(v, current) <= 0) continue;
    if (!releaseSeriesFor(p.metadata, tag)) {
      problems.push(
        error(
          'metadata-invalid',
          peerWording(
            'clusterctl',
            `invalid provider metadata: version ${tag} (one of the available versions) for the provider ${instanceName(p)} does not match any release series`,
            p.provider,
          ),
          {
            object: p.provider,
            hint: `the newest metadata.yaml in ${p.sourceDescription} lists ${seriesList}; planning needs every newer release in a series, as clusterctl does`,
          },
        ),
      );
      continue;
    }
    next.push({ tag, semver: v });
  }
  if (problems.length > 0) return { problems };
  next.sort((a, b) => semver.compare(a.semver, b.semver) || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0));
  return {
    info: { provider: p, current: { tag: p.version, semver: current }, currentContract: currentSeries.contract, next },
    problems: [],
  };
}

/** The contract of a version by the newest metadata's series; undefined when no series matches. */
export function contractOf(info: UpgradeInfo, version: string): string | undefined {
  return releaseSeriesFor(info.provider.metadata, version)?.contract;
}

/**
 * The highest stable next version whose series implements one of `contracts`
 * (clusterctl getLatestNextVersion); undefined when there is none.
 */
export function latestNextVersion(
  info: UpgradeInfo,
  contracts: readonly string[],
  filter: (v: TaggedVersion) => boolean = () => true,
): TaggedVersion | undefined {
  let best: TaggedVersion | undefined;
  for (const v of info.next) {
    if (v.semver.prerelease.length > 0 || !filter(v)) continue;
    const contract = contractOf(info, v.tag);
    if (contract === undefined || !contracts.includes(contract)) continue;
    if (!best || semver.compare(best.semver, v.semver) < 0) best = v;
  }
  return best;
}

/** The newest stable patch release of the current major.minor above the current version. */
export function latestPatch(info: UpgradeInfo): TaggedVersion | undefined {
  const { major, minor } = info.current.semver;
  const same = info.next.filter(
    (v) => v.semver.prerelease.length === 0 && v.semver.major === major && v.semver.minor === minor,
  );
  return same.at(-1);
}

/** The newest stable release above the current one, whatever its contract. */
export function newestVersion(info: UpgradeInfo): TaggedVersion | undefined {
  return info.next.filter((v) => v.semver.prerelease.length === 0).at(-1);
}

const SKIP_RULE_FROM = new semver.SemVer('1.10.0');
/** How many minor versions an upgrade of core/kubeadm may jump once it is on 1.10 or later. */
export const MAX_MINOR_SKIP = 3;

/**
 * Whether clusterctl's skip rule guards this provider: the core provider, and kubeadm bootstrap and
 * control plane, once their current version is 1.10.0 or newer.
 */
export function skipRuleApplies(p: Pick<PlanProvider, 'kind' | 'name'>, current: semver.SemVer): boolean {
  const guarded =
    p.kind === 'CoreProvider' ||
    ((p.kind === 'BootstrapProvider' || p.kind === 'ControlPlaneProvider') && p.name === 'kubeadm');
  return guarded && semver.compare(current, SKIP_RULE_FROM) >= 0;
}

/**
 * Whether going from `current` to `next` breaks the skip rule: the minor may grow by at most 3.
 * Like clusterctl, only the minor numbers are compared.
 */
export function exceedsSkipLimit(
  p: Pick<PlanProvider, 'kind' | 'name'>,
  current: semver.SemVer,
  next: semver.SemVer,
): boolean {
  return skipRuleApplies(p, current) && next.minor > current.minor + MAX_MINOR_SKIP;
}
