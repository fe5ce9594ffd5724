/**
 * cert-manager in the upgrade plan. It has no contract and no metadata.yaml; `clusterctl upgrade
 * plan` checks it first ("Checking cert-manager version...") against the version clusterctl is
 * configured with (its built-in default unless `cert-manager.version` is set), which here is
 * `certManager.version` in capi-render.yaml or an overlay. The row says what the source offers
 * beyond that: the newest patch of the locked minor and the newest release. Pure.
 */
import semver from 'semver';
import { parseVersion } from '../declarations/versions.js';
import { versionsOf, type ListingProvenance, type VersionListing } from './upgrade-info.js';

/** What the planner knows about an environment's cert-manager. */
export interface CertManagerListing {
  /** The locked version. */
  version: string;
  /** `certManager.version` as written (empty: clusterctl's default). */
  requested: string;
  /** clusterctl's built-in default version. */
  clusterctlDefault: string;
  /** Every version the source lists (just the locked one when the source cannot list). */
  available: readonly string[];
  listing: VersionListing;
}

/** cert-manager's row of an environment's plan. Versions are tags; null means none newer. */
export interface CertManagerPlanRow {
  version: string;
  /** `certManager.version` as written; empty when clusterctl's default applies. */
  requested: string;
  clusterctlDefault: string;
  /** Newest stable patch of the same major.minor above `version`. */
  latestPatch: string | null;
  /** Newest stable release above `version`. */
  newest: string | null;
  versions: ListingProvenance;
}

/** Plans cert-manager from its source's versions. */
export function planCertManager(l: CertManagerListing): CertManagerPlanRow {
  const current = parseVersion(l.version);
  const newer = current
    ? l.available
        .map((tag) => ({ tag, v: parseVersion(tag) }))
        .filter(
          (x): x is { tag: string; v: semver.SemVer } =>
            x.v !== null && x.v.prerelease.length === 0 && semver.compare(x.v, current) > 0,
        )
        .sort((a, b) => semver.compare(a.v, b.v) || (a.tag < b.tag ? -1 : a.tag > b.tag ? 1 : 0))
    : [];
  const patches = newer.filter((x) => x.v.major === current!.major && x.v.minor === current!.minor);
  return {
    version: l.version,
    requested: l.requested,
    clusterctlDefault: l.clusterctlDefault,
    latestPatch: patches.at(-1)?.tag ?? null,
    newest: newer.at(-1)?.tag ?? null,
    versions: versionsOf(l.listing),
  };
}
