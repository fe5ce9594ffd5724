/**
 * Gathers what the planner needs from the providers' sources: every version a source lists and the
 * metadata.yaml of its newest version (clusterctl reads only that one: older metadata cannot know
 * newer series). The sources are the build's own, wrapped by the lock, cache and `--offline` rules,
 * so a local repository plans offline and a remote one names what it would need. Each source is
 * listed once and each metadata file read once per call, however many providers and environments
 * share them (the cluster-api release carries core, kubeadm and CAPD). Under `--offline` a remote
 * source's list comes from the last online run (the plan says when); a source that cannot list
 * (GitLab) is planned from its current release only, and the plan says that newer ones are unknown.
 * cert-manager's release list is read the same way (it has no metadata.yaml).
 */
import semver from 'semver';
import { FetchError, error } from '../errors.js';
import type { EnvironmentResult } from '../render/environment-result.js';
import { METADATA_FILE, parseMetadata, type ReleaseMetadata } from '../source/metadata.js';
import type { ReleaseList, ReleaseSource } from '../source/release-source.js';
import { parseVersion } from '../declarations/versions.js';
import type { CertManagerListing } from './cert-manager-plan.js';
import type { PlanProvider, VersionListing } from './upgrade-info.js';

/** The providers of one environment, ready for planning. */
export interface EnvironmentProviders {
  environment: string;
  providers: PlanProvider[];
  /** Its cert-manager, when the environment installs one. */
  certManager?: CertManagerListing;
}

/** Reads versions and newest metadata for every provider of the rendered environments. */
export async function collectPlanProviders(results: readonly EnvironmentResult[]): Promise<EnvironmentProviders[]> {
  const versions = new Map<string, Promise<ReleaseList>>();
  const metadata = new Map<string, Promise<ReleaseMetadata>>();
  const listed = (source: ReleaseSource): Promise<ReleaseList> => {
    let pending = versions.get(source.id);
    if (!pending) {
      pending = source.listReleases
        ? source.listReleases()
        : source.listVersions().then((list) => ({ versions: list }));
      versions.set(source.id, pending);
    }
    return pending;
  };
  const newestMetadata = async (
    source: ReleaseSource,
    available: readonly string[],
    provider: string,
  ): Promise<ReleaseMetadata> => {
    const newest = newestTag(available);
    if (newest === undefined) {
      throw new FetchError(
        error(
          'version-not-found',
          `failed to get available versions for the ${provider} provider from ${source.description}`,
          { object: provider },
        ),
      );
    }
    const key = `${source.id}\u0000${newest}`;
    let pending = metadata.get(key);
    if (!pending) {
      pending = source
        .readFile(newest, METADATA_FILE)
        .then((a) =>
          parseMetadata(new TextDecoder().decode(a.bytes), `${source.description} ${newest}/${METADATA_FILE}`),
        );
      metadata.set(key, pending);
    }
    return pending;
  };
  const certManagerOf = async (r: EnvironmentResult): Promise<CertManagerListing | undefined> => {
    const cm = r.certManager;
    if (!cm) return undefined;
    const facts = { version: cm.version, requested: cm.requested, clusterctlDefault: cm.defaultVersion };
    if (cm.source.unlisted)
      return { ...facts, available: [cm.version], listing: { kind: 'unlisted', reason: cm.source.unlisted.reason } };
    const list = await listed(cm.source);
    return {
      ...facts,
      available: list.versions,
      listing: list.cachedAt ? { kind: 'cached', fetchedAt: list.cachedAt } : { kind: 'live' },
    };
  };
  return Promise.all(
    results.map(async (r) => ({
      environment: r.environment.name,
      providers: await Promise.all(
        r.providers.map(async (p): Promise<PlanProvider> => {
          const provider = `${p.cr.kind}/${p.cr.namespace}/${p.cr.name}`;
          const identity = {
            provider,
            kind: p.cr.kind,
            name: p.cr.name,
            namespace: p.cr.namespace,
            label: p.label,
            version: p.version,
            sourceDescription: p.source.description,
          };
          if (p.source.unlisted) {
            // Nothing to list: plan from the release the build used, whose metadata it already read.
            const current = parseMetadata(p.files.metadata, `${p.source.description} ${p.version}/${METADATA_FILE}`);
            return {
              ...identity,
              available: [p.version],
              metadata: current,
              listing: { kind: 'unlisted', reason: p.source.unlisted.reason },
            };
          }
          const list = await listed(p.source);
          const listing: VersionListing = list.cachedAt
            ? { kind: 'cached', fetchedAt: list.cachedAt }
            : { kind: 'live' };
          return {
            ...identity,
            available: list.versions,
            metadata: await newestMetadata(p.source, list.versions, provider),
            listing,
          };
        }),
      ),
      // After the providers, so a missing provider list is the error a plan reports first.
      ...(r.certManager ? { certManager: await certManagerOf(r) } : {}),
    })),
  );
}

/** The highest version, pre-releases included (clusterctl compares them all to pick the metadata). */
function newestTag(tags: readonly string[]): string | undefined {
  let best: { tag: string; v: semver.SemVer } | undefined;
  for (const tag of tags) {
    const v = parseVersion(tag);
    if (v && (!best || semver.compareBuild(v, best.v) > 0)) best = { tag, v };
  }
  return best?.tag;
}
