/**
 * The upgrade plan of one environment, by `clusterctl upgrade plan`'s rules
 * (cmd/clusterctl/client/cluster/upgrader.go Plan, getUpgradePlan): the core provider drives it;
 * the candidate contracts are the contracts of the core's release series at or above its current
 * major.minor; for each candidate contract C every provider's next version is the highest stable
 * release whose series implements a contract compatible with C (v1beta2 admits v1beta1). Where
 * clusterctl silently drops a different-contract plan that some provider cannot follow, this plan
 * keeps it as `blocked` and says which provider lacks a release. The skip rule of `upgrade apply`
 * (core and kubeadm on ≥ 1.10 may move at most 3 minors) is checked here too, with the farthest
 * version that is allowed. Pure.
 */
import type { ImageTagState } from '../images/moved-tags.js';
import { error, peerWording, type Diagnostic } from '../errors.js';
import { compatibleContracts } from '../source/metadata.js';
import {
  MAX_MINOR_SKIP,
  exceedsSkipLimit,
  latestNextVersion,
  latestPatch,
  newestVersion,
  upgradeInfo,
  contractOf,
  instanceName,
  type PlanProvider,
  type ListingProvenance,
  type UpgradeInfo,
  versionsOf,
} from './upgrade-info.js';
import type { CertManagerPlanRow } from './cert-manager-plan.js';

/** Why a contract plan cannot be applied as it is. */
export type PlanBlockerCode = 'no-version' | 'skip-limit' | 'unsupported-contract';

/** One reason a contract plan is blocked. */
export interface PlanBlocker {
  code: PlanBlockerCode;
  /** `Kind/namespace/name`, when one provider is the reason. */
  provider?: string;
  message: string;
  /** For `skip-limit`: the newest version within the limit, to upgrade to first. */
  via?: string;
}

/** One provider's step in a contract plan. */
export interface ContractPlanStep {
  provider: string;
  label: string;
  namespace: string;
  from: string;
  /** null: nothing newer for this contract (already up to date, or no release — see blockers). */
  to: string | null;
  /** The contract of `to` (null with `to`). */
  contract: string | null;
}

/**
 * The plan for one candidate contract. `status`: `up-to-date` (nothing to do), `available`
 * (`capi-render upgrade --contract C` applies it), `blocked` (see `blockers`).
 */
export interface ContractPlan {
  contract: string;
  /** Whether this is the core provider's current contract. */
  current: boolean;
  status: 'up-to-date' | 'available' | 'blocked';
  steps: ContractPlanStep[];
  blockers: PlanBlocker[];
}

/** What one provider could move to. Versions are tags; null means none. */
export interface ProviderPlanRow {
  provider: string;
  kind: string;
  name: string;
  namespace: string;
  label: string;
  /** The locked version. */
  version: string;
  contract: string;
  /** Newest stable patch of the same major.minor. */
  latestPatch: string | null;
  /** Newest version for the core provider's current contract (its step in that contract's plan). */
  sameContract: string | null;
  /** Newest stable release; `coreFirst` when it needs a core provider on a newer contract. */
  newest: { version: string; contract: string; coreFirst: boolean } | null;
  /**
   * Where the versions above came from: `live` (read now), `cached` (the list saved by the last
   * online run, `plan --offline`; `fetchedAt` says when) or `unlisted` (the source cannot list —
   * GitLab — so the columns above cannot show newer releases; `note` says why).
   */
  versions: ListingProvenance;
}

/** The plan of one environment: the core provider, one row per provider, one plan per candidate contract. */
export interface EnvironmentUpgradePlan {
  environment: string;
  core: { provider: string; version: string; contract: string };
  providers: ProviderPlanRow[];
  /** cert-manager (no contract; see cert-manager-plan.ts); null when the environment does not install it. */
  certManager: CertManagerPlanRow | null;
  /** Candidate contracts in name order (as clusterctl lists them). */
  contracts: ContractPlan[];
  /** Every image the environment pinned, with what its tag points to now (images/moved-tags.ts); [] without pinning. */
  images: ImageTagState[];
}

/**
 * Plans one environment. `supported` are the contracts a build accepts (v1beta2 and v1beta1);
 * other candidate contracts are reported as blocked. Returns diagnostics instead of a plan when a
 * provider's metadata cannot place its versions, or when there is not exactly one core provider.
 */
export function planEnvironmentUpgrade(
  environment: string,
  providers: readonly PlanProvider[],
  supported: readonly string[],
): { plan?: EnvironmentUpgradePlan; problems: Diagnostic[] } {
  const cores = providers.filter((p) => p.kind === 'CoreProvider');
  if (cores.length !== 1) {
    return {
      problems: [
        error(
          'upgrade',
          `[${environment}] ${peerWording('clusterctl', `invalid management cluster: there must be one core provider, found ${cores.length}`)}`,
        ),
      ],
    };
  }
  const problems: Diagnostic[] = [];
  const infos: UpgradeInfo[] = [];
  for (const p of providers) {
    const result = upgradeInfo(p);
    problems.push(...result.problems.map((d) => ({ ...d, message: `[${environment}] ${d.message}` })));
    if (result.info) infos.push(result.info);
  }
  if (problems.length > 0) return { problems };
  const core = infos.find((i) => i.provider.kind === 'CoreProvider')!;
  const contracts = candidateContracts(core).map((c) => contractPlan(c, c === core.currentContract, infos, supported));
  const current = contracts.find((c) => c.current);
  const coreAllows = compatibleContracts(core.currentContract);
  const rows = infos.map((info): ProviderPlanRow => {
    const p = info.provider;
    const newest = newestVersion(info);
    const newestContract = newest ? contractOf(info, newest.tag)! : undefined;
    return {
      provider: p.provider,
      kind: p.kind,
      name: p.name,
      namespace: p.namespace,
      label: p.label,
      version: p.version,
      contract: info.currentContract,
      latestPatch: latestPatch(info)?.tag ?? null,
      sameContract: current?.steps.find((s) => s.provider === p.provider)?.to ?? null,
      newest: newest
        ? {
            version: newest.tag,
            contract: newestContract!,
            coreFirst: p.kind !== 'CoreProvider' && !coreAllows.includes(newestContract!),
          }
        : null,
      versions: versionsOf(p.listing),
    };
  });
  return {
    plan: {
      environment,
      core: { provider: core.provider.provider, version: core.provider.version, contract: core.currentContract },
      providers: rows,
      certManager: null,
      contracts,
      images: [],
    },
    problems: [],
  };
}

/** Contracts of the core's release series at or above its current major.minor, sorted (clusterctl getContractsForUpgrade). */
function candidateContracts(core: UpgradeInfo): string[] {
  const { major, minor } = core.current.semver;
  const set = new Set<string>();
  for (const s of core.provider.metadata.releaseSeries) {
    if (s.major > major || (s.major === major && s.minor >= minor)) set.add(s.contract);
  }
  set.add(core.currentContract);
  return [...set].sort();
}

function contractPlan(
  contract: string,
  current: boolean,
  infos: readonly UpgradeInfo[],
  supported: readonly string[],
): ContractPlan {
  const allowed = compatibleContracts(contract);
  const blockers: PlanBlocker[] = [];
  const steps = infos.map((info): ContractPlanStep => {
    const p = info.provider;
    const next = latestNextVersion(info, allowed);
    const step = {
      provider: p.provider,
      label: p.label,
      namespace: p.namespace,
      from: p.version,
      to: next?.tag ?? null,
      contract: next ? contractOf(info, next.tag)! : null,
    };
    if (!next) {
      // clusterctl drops a different-contract plan that any provider cannot follow (all providers
      // change contract together), even when the provider's current release stays compatible.
      if (!current && p.listing?.kind === 'unlisted') {
        blockers.push({
          code: 'no-version',
          provider: p.provider,
          message: `${p.listing.reason}, so whether ${p.provider} has a release implementing ${allowed.join(' or ')} is unknown`,
        });
      } else if (!current) {
        const stays = allowed.includes(info.currentContract)
          ? `; its ${info.currentContract} release stays compatible, so the others can move without it: capi-render upgrade --provider …`
          : '';
        blockers.push({
          code: 'no-version',
          provider: p.provider,
          message: `${p.provider} ${p.version} has no newer release implementing ${allowed.join(' or ')} in ${p.sourceDescription}${stays}`,
        });
      }
      return step;
    }
    if (exceedsSkipLimit(p, info.current.semver, next.semver)) {
      const limit = info.current.semver.minor + MAX_MINOR_SKIP;
      const via = latestNextVersion(info, allowed, (v) => v.semver.minor <= limit);
      blockers.push({
        code: 'skip-limit',
        provider: p.provider,
        message: peerWording(
          'clusterctl',
          `upgrade for ${instanceName(p)} provider can't skip more than ${MAX_MINOR_SKIP} versions`,
          `${p.provider} ${p.version} → ${next.tag}${via ? `; upgrade to ${via.tag} first` : ''}`,
        ),
        ...(via ? { via: via.tag } : {}),
      });
    }
    return step;
  });
  if (!supported.includes(contract)) {
    blockers.unshift({
      code: 'unsupported-contract',
      message: `contract ${contract} is not one capi-render renders (supported: ${supported.join(', ')})`,
    });
  }
  const status = blockers.length > 0 ? 'blocked' : steps.some((s) => s.to !== null) ? 'available' : 'up-to-date';
  return { contract, current, status, steps, blockers };
}
