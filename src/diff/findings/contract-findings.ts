/**
 * Findings from the providers' Cluster API contracts (from their metadata.yaml release series),
 * which the objects alone do not show: a provider whose contract changes, and a provider left on a
 * contract older than its core provider's.
 *
 * Cluster API's rule (internal/contract/version.go GetCompatibleVersions, which clusterctl's
 * installer and upgrade checks use): a core implementing v1beta2 also accepts providers implementing
 * v1beta1, until v1beta1 is end of life; every other pair must match. `compatibleContracts` in
 * source/metadata.ts is that rule.
 */
import { peerWording } from '../../errors.js';
import { compatibleContracts } from '../../source/metadata.js';
import type { ContractChange, Finding } from '../types.js';
import { componentKey, kindOfLabel, type ComponentKind } from './component-kind.js';
import { compareContracts } from './contract-order.js';

/**
 * What Cluster API says of a core contract that still accepts an older one, per `<core>/<provider>`
 * pair, quoted from its book (kubernetes-sigs/cluster-api v1.14.0, book page reference/versions.md,
 * "Cluster API release vs contract versions": the example list and the table of contract versions).
 */
const TEMPORARY_COMPATIBILITY: Readonly<Record<string, { rule: string; status: string }>> = {
  'v1beta2/v1beta1': {
    rule: 'v1beta1 is temporarily compatible with v1beta2',
    status:
      'Deprecated since CAPI v1.11; in v1.16, April 2027 compatibility with the v1beta1 contract will be considered EOL',
  },
};

/** Kinds whose objects report terminal failures to core's Machine controller, which the v1beta1 compatibility no longer acts on. */
const MACHINE_FAILURE_KINDS: ReadonlySet<ComponentKind> = new Set([
  'InfrastructureProvider',
  'BootstrapProvider',
  'ControlPlaneProvider',
]);

/**
 * `contract-changed` for every provider whose known contract differs before and after, and
 * `contract-older-than-core` for every provider that, after a change to it or to the core's contract,
 * implements an older contract than its environment's core provider. `kinds`: the component kinds
 * the objects show (`env\ncomponent`); the manifest label says it otherwise.
 */
export function findContractFindings(
  contracts: readonly ContractChange[],
  kinds: ReadonlyMap<string, ComponentKind> = new Map(),
): Finding[] {
  return contracts.flatMap((c) => {
    const kind = kinds.get(componentKey(c.env, c.provider)) ?? kindOfLabel(c.provider);
    return [...contractChanged(c, kind), ...olderThanCore(c, kind)];
  });
}

function contractChanged(c: ContractChange, kind: ComponentKind | undefined): Finding[] {
  if (c.before === undefined || c.after === undefined || c.before === c.after) return [];
  const details = kind === 'CoreProvider' ? coreMoves(c.env, c.before, c.after) : providerMoves(c, c.after);
  return [
    {
      severity: 'warning',
      code: 'contract-changed',
      env: c.env,
      component: c.provider,
      message: `${c.provider}: contract ${c.before} → ${c.after}`,
      before: c.before,
      after: c.after,
      details,
    },
  ];
}

/** The core provider's move: what happens to the providers it leaves behind, and to Cluster API's own API versions. */
function coreMoves(env: string, before: string, after: string): string[] {
  const compatibility = TEMPORARY_COMPATIBILITY[`${after}/${before}`];
  return [
    compatibleContracts(after).includes(before)
      ? `A core implementing ${after} still accepts providers implementing ${before}${compatibility ? ` (Cluster API: "${compatibility.rule}")` : ''}: those in ${env} that do not move with it keep working, and each is named in a contract-older-than-core finding.`
      : `clusterctl moves all providers to a new contract together: every other provider in ${env} needs a release for ${after} in the same upgrade.`,
    `Manifests in git that use Cluster API's ${before} API versions (Clusters, MachineDeployments, ClusterClasses, templates) keep working only while ${before} is served; plan their move to ${after}.`,
  ];
}

/** Another provider's move, against what the core implements; its own API versions are not its contract. */
function providerMoves(c: ContractChange, after: string): string[] {
  const core = c.core;
  const against =
    core?.after === undefined
      ? `A provider must implement a contract its environment's core provider accepts: check that the core provider of ${c.env} accepts ${after}.`
      : core.before === after && core.after === after
        ? `The core provider ${core.provider} implements ${after} already: ${c.provider} moves to the core's contract, and no other provider has to move with it.`
        : core.after === after
          ? `${c.provider} moves with the core provider ${core.provider}, which implements ${after} after this upgrade.`
          : `The core provider ${core.provider} implements ${core.after} after this upgrade, and accepts providers implementing ${compatibleContracts(core.after).join(', ')}.`;
  return [
    against,
    `The contract names the Cluster API rules ${c.provider} follows, not the API versions of its own kinds: which of those are served or stored is in this report's CRD findings.`,
  ];
}

function olderThanCore(c: ContractChange, kind: ComponentKind | undefined): Finding[] {
  const core = c.core;
  if (!core?.after || !c.after || kind === 'CoreProvider' || compareContracts(c.after, core.after) >= 0) return [];
  const moved = c.before !== c.after || c.from !== c.to || core.before !== core.after;
  if (!moved) return [];
  const accepted = compatibleContracts(core.after);
  // The provider's contract, then the core's: the order says which is which.
  const place = {
    code: 'contract-older-than-core' as const,
    env: c.env,
    component: c.provider,
    subjects: [c.after, core.after],
  };
  const message = `${c.provider} implements contract ${c.after}, older than ${core.after}, the contract of the core provider ${core.provider}`;
  if (!accepted.includes(c.after)) {
    const phrase = `installing provider "${c.provider}" could lead to a non functioning management cluster: the target version for the provider implements the ${c.after} contract version, while the core provider is compatible with ${accepted.join(',')} contract versions`;
    return [
      {
        ...place,
        severity: 'danger',
        message,
        details: [
          peerWording(
            'clusterctl',
            phrase,
            `move ${c.provider} to a release implementing ${accepted.join(' or ')} in the same upgrade`,
          ),
        ],
      },
    ];
  }
  const compatibility = TEMPORARY_COMPATIBILITY[`${core.after}/${c.after}`];
  const details = [
    compatibility
      ? `clusterctl accepts it, by Cluster API's support rule (book, reference/versions.md): "${compatibility.rule}", and ${c.after} is "${compatibility.status}".`
      : `clusterctl accepts it: a core implementing ${core.after} is compatible with ${accepted.join(', ')}.`,
    ...(kind !== undefined && MACHINE_FAILURE_KINDS.has(kind)
      ? [
          `The compatibility has limits: a terminal failure ${c.provider} reports the ${c.after} way (status.failureReason, status.failureMessage) no longer fails the Machine nor triggers MachineHealthCheck remediation under a ${core.after} core (Cluster API's ${core.after} contract pages).`,
        ]
      : []),
    `${c.provider} needs a release implementing ${core.after} before the core moves to a Cluster API release that no longer accepts ${c.after}: \`capi-render plan\` lists each provider's releases per contract.`,
  ];
  return [{ ...place, severity: 'warning', message, details }];
}
