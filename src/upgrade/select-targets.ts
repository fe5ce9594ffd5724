/**
 * Turns an upgrade request (`--to V`, `--latest-patch`, `--contract C`, optionally limited to some
 * providers) into the exact version each provider of an environment moves to, and checks the result
 * the way clusterctl checks a custom upgrade plan (upgrader.go createCustomPlan, doUpgrade):
 * the target contract is the core provider's (at its target version); every upgraded provider must
 * land on a contract compatible with it (otherwise the core must move first), every provider left
 * alone must already be compatible (otherwise it must be included), and core/kubeadm on ≥ 1.10 may
 * not skip more than 3 minors. Downgrades are refused. Pure; every problem is reported at once.
 */
import semver from 'semver';
import { error, peerWording, type Diagnostic } from '../errors.js';
import { compatibleContracts } from '../source/metadata.js';
import { parseVersion } from '../declarations/versions.js';
import type { EnvironmentProviders } from './collect-versions.js';
import type { EnvironmentUpgradePlan } from './plan.js';
import {
  MAX_MINOR_SKIP,
  contractOf,
  exceedsSkipLimit,
  instanceName,
  latestNextVersion,
  latestPatch,
  upgradeInfo,
  type PlanProvider,
  type UpgradeInfo,
} from './upgrade-info.js';

/** What the user asked for. */
export type UpgradeRequest =
  { kind: 'to'; version: string } | { kind: 'latest-patch' } | { kind: 'contract'; contract: string };

/** One provider moving in one environment. */
export interface UpgradeTarget {
  environment: string;
  provider: string;
  kind: PlanProvider['kind'];
  name: string;
  namespace: string;
  label: string;
  from: string;
  to: string;
  fromContract: string;
  toContract: string;
}

/** The request and the providers it applies to. */
export interface TargetSelection {
  request: UpgradeRequest;
  /** `Kind/name`, `Kind/namespace/name` or a manifest label; empty: every provider. */
  providers: readonly string[];
}

/** The targets of one environment, or the problems that prevent them. */
export interface SelectedTargets {
  targets: UpgradeTarget[];
  /** Selected providers that stay where they are, and why. */
  skipped: { provider: string; reason: string }[];
  problems: Diagnostic[];
}

/** Whether `matcher` names the provider (label, `Kind/name` or `Kind/namespace/name`). */
export function matchesProvider(
  p: Pick<PlanProvider, 'kind' | 'name' | 'namespace' | 'label'>,
  matcher: string,
): boolean {
  return matcher === p.label || matcher === `${p.kind}/${p.name}` || matcher === `${p.kind}/${p.namespace}/${p.name}`;
}

/** Targets for one environment; `supported` are the contracts a build renders. */
export function selectTargets(
  env: EnvironmentProviders,
  plan: EnvironmentUpgradePlan,
  selection: TargetSelection,
  supported: readonly string[],
): SelectedTargets {
  const infos = env.providers.map((p) => upgradeInfo(p).info).filter((i): i is UpgradeInfo => i !== undefined);
  const explicit = selection.providers.length > 0;
  const chosen = infos.filter((i) => !explicit || selection.providers.some((m) => matchesProvider(i.provider, m)));
  const out: SelectedTargets = { targets: [], skipped: [], problems: [] };
  const at = (p: PlanProvider) => ({ object: p.provider, field: 'spec.version' });
  const problem = (message: string, where: { object?: string; hint?: string } = {}) =>
    out.problems.push(error('upgrade', `[${env.environment}] ${message}`, where));
  const moves = new Map<UpgradeInfo, string>();
  const request = selection.request;

  if (request.kind === 'contract') {
    const contractPlan = plan.contracts.find((c) => c.contract === request.contract);
    if (!contractPlan) {
      const own = `contract ${request.contract} is not an upgrade candidate: the core provider ${plan.core.provider} ${plan.core.version} offers ${plan.contracts.map((c) => c.contract).join(', ')}`;
      // clusterctl applies a plan only for the contract it implements itself (upgrader.go ApplyPlan).
      const current = supported[0];
      problem(
        current !== undefined && request.contract !== current
          ? peerWording(
              'clusterctl',
              `current version of clusterctl could only upgrade to ${current} contract, requested ${request.contract}`,
              own,
            )
          : own,
        {
          hint: 'see capi-render plan',
        },
      );
      return out;
    }
    const relevant = contractPlan.blockers.filter(
      (b) => b.provider === undefined || chosen.some((i) => i.provider.provider === b.provider),
    );
    for (const b of relevant)
      problem(b.message, {
        ...(b.provider ? { object: b.provider } : {}),
        hint: b.via
          ? `capi-render upgrade --provider ${labelOf(infos, b.provider)} --to ${b.via}`
          : 'see capi-render plan',
      });
    if (relevant.length > 0) return out;
    for (const info of chosen) {
      const to = contractPlan.steps.find((s) => s.provider === info.provider.provider)?.to;
      if (to) moves.set(info, to);
      else out.skipped.push({ provider: info.provider.provider, reason: `no newer release for ${request.contract}` });
    }
  } else {
    for (const info of chosen) {
      const p = info.provider;
      if (p.listing?.kind === 'unlisted') {
        // Neither the newest patch nor the contract of another version can be known here.
        const reason = `${p.listing.reason}; set spec.version yourself and run capi-render build`;
        if (explicit) problem(`cannot upgrade ${p.provider}: ${reason}`, at(p));
        else out.skipped.push({ provider: p.provider, reason });
        continue;
      }
      if (request.kind === 'latest-patch') {
        const next = latestPatch(info);
        if (next) moves.set(info, next.tag);
        else
          out.skipped.push({
            provider: p.provider,
            reason: `${p.version} is the newest patch of ${info.current.semver.major}.${info.current.semver.minor}`,
          });
        continue;
      }
      const wanted = parseVersion(request.version)!;
      const tag = p.available.find((t) => parseVersion(t)?.compare(wanted) === 0);
      const order = semver.compare(wanted, info.current.semver);
      if (order === 0) out.skipped.push({ provider: p.provider, reason: `already at ${p.version}` });
      else if (tag === undefined) {
        if (explicit) {
          const own = `${p.provider} has no release ${request.version} in ${p.sourceDescription}`;
          // clusterctl looks for the target's release series before the release (upgrader.go getProviderContractByVersion).
          const phrase = `invalid target version: version ${request.version} for the provider ${instanceName(p)} does not match any release series`;
          problem(contractOf(info, request.version) === undefined ? peerWording('clusterctl', phrase, own) : own, {
            ...at(p),
            hint: `newer releases: ${info.next.map((v) => v.tag).join(', ') || 'none'}`,
          });
        } else out.skipped.push({ provider: p.provider, reason: `${p.sourceDescription} has no ${request.version}` });
      } else if (order < 0) {
        problem(`${p.provider} is at ${p.version}; ${tag} would be a downgrade`, {
          ...at(p),
          hint: 'capi-render upgrade only moves forward; edit spec.version yourself if you mean to go back, and review the diff',
        });
      } else moves.set(info, tag);
    }
    if (
      request.kind === 'to' &&
      moves.size === 0 &&
      out.problems.length === 0 &&
      !chosen.some((i) => i.current.semver.compare(parseVersion(request.version)!) === 0)
    ) {
      problem(`no provider${explicit ? ' named by --provider' : ''} has a release ${request.version}`, {
        hint: 'see capi-render plan for the versions each provider offers',
      });
    }
  }
  if (out.problems.length > 0) return out;
  checkConsistency(env.environment, infos, moves, supported, problem);
  if (out.problems.length > 0) return out;
  for (const [info, to] of moves) {
    const p = info.provider;
    out.targets.push({
      environment: env.environment,
      provider: p.provider,
      kind: p.kind,
      name: p.name,
      namespace: p.namespace,
      label: p.label,
      from: p.version,
      to,
      fromContract: info.currentContract,
      toContract: contractOf(info, to)!,
    });
  }
  return out;
}

function checkConsistency(
  environment: string,
  infos: readonly UpgradeInfo[],
  moves: ReadonlyMap<UpgradeInfo, string>,
  supported: readonly string[],
  problem: (message: string, where?: { object?: string; hint?: string }) => void,
): void {
  const core = infos.find((i) => i.provider.kind === 'CoreProvider');
  if (!core)
    return problem(peerWording('clusterctl', 'invalid management cluster: there must be one core provider, found 0'));
  const coreTarget = moves.get(core) ?? core.provider.version;
  const targetContract = contractOf(core, coreTarget)!;
  if (!supported.includes(targetContract)) {
    const own = `the core provider ${core.provider.provider} ${coreTarget} implements ${targetContract}, which capi-render does not render (supported: ${supported.join(', ')})`;
    const phrase = `current version of clusterctl could only upgrade the core provider to ${supported[0] ?? ''} contract version, requested ${targetContract}`;
    return problem(peerWording('clusterctl', phrase, own), {
      object: core.provider.provider,
      hint: `choose a core provider release that implements ${supported.join(' or ')} (see capi-render plan)`,
    });
  }
  const allowed = compatibleContracts(targetContract);
  for (const info of infos) {
    const p = info.provider;
    const to = moves.get(info);
    if (to === undefined) {
      if (!allowed.includes(info.currentContract)) {
        const phrase =
          `unable to perform upgrade: the provider ${instanceName(p)} implements the ${info.currentContract} contract version, while the core provider is getting updated to a version ` +
          `that supports ${allowed.join(', ')} contract versions. Please include the ${instanceName(p)} provider in the upgrade`;
        problem(
          peerWording('clusterctl', phrase, `${p.provider} ${p.version}; the core provider moves to ${coreTarget}`),
          {
            object: p.provider,
            hint: `add --provider ${p.label}, or move the whole set with --contract ${targetContract}`,
          },
        );
      }
      continue;
    }
    const contract = contractOf(info, to)!;
    if (!allowed.includes(contract)) {
      const phrase = `unable to perform upgrade: the target version for the provider ${instanceName(p)} implements the ${contract} contract version, while the core provider supports ${allowed.join(', ')} contract versions`;
      problem(
        peerWording(
          'clusterctl',
          phrase,
          `${p.provider} ${to}; the core provider ${core.provider.provider} stays on ${coreTarget} (${targetContract}): the core provider must move first`,
        ),
        {
          object: p.provider,
          hint: `upgrade the core provider too (--provider ${core.provider.label}), or move the whole set: capi-render upgrade --contract ${contract}`,
        },
      );
    }
    const next = parseVersion(to)!;
    if (exceedsSkipLimit(p, info.current.semver, next)) {
      const via = latestNextVersion(info, allowed, (v) => v.semver.minor <= info.current.semver.minor + MAX_MINOR_SKIP);
      problem(
        peerWording(
          'clusterctl',
          `upgrade for ${instanceName(p)} provider can't skip more than ${MAX_MINOR_SKIP} versions`,
          `${p.provider} ${p.version} → ${to}`,
        ),
        {
          object: p.provider,
          hint: via
            ? `upgrade to ${via.tag} first: capi-render upgrade --env ${environment} --provider ${p.label} --to ${via.tag}`
            : 'upgrade through the intermediate minor releases first',
        },
      );
    }
  }
}

function labelOf(infos: readonly UpgradeInfo[], provider: string | undefined): string {
  return infos.find((i) => i.provider.provider === provider)?.provider.label ?? provider ?? '';
}
