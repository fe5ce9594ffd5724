/**
 * Findings from the providers' Cluster API contracts (from their metadata.yaml release series),
 * which the objects alone do not show.
 */
import type { ContractChange, Finding } from '../types.js';

/** A `contract-changed` warning for every provider whose known contract differs before and after. */
export function findContractFindings(contracts: readonly ContractChange[]): Finding[] {
  return contracts.flatMap((c) =>
    c.before !== undefined && c.after !== undefined && c.before !== c.after
      ? [
          {
            severity: 'warning' as const,
            code: 'contract-changed' as const,
            env: c.env,
            component: c.provider,
            message: `${c.provider}: contract ${c.before} → ${c.after}`,
            before: c.before,
            after: c.after,
            details: [
              catchesUpWithCore(c)
                ? `The core provider ${c.core!.provider} implements ${c.after} already: ${c.provider} moves to the core's contract, and no other provider has to move with it.`
                : `clusterctl moves all providers to a new contract together: every other provider in ${c.env} needs a release for ${c.after} in the same upgrade.`,
              `Manifests in git that use the ${c.before} API versions (Clusters, templates) keep working only while those versions are served; plan their move to ${c.after}.`,
            ],
          },
        ]
      : [],
  );
}

/**
 * True when a provider other than the core moves to the contract the core implemented before and
 * after: a v1beta2 core accepts v1beta1 providers (clusterctl's compatible contracts), so such a
 * provider can follow on its own, as with Metal3 v1.12 → v1.13 under CAPI v1.12.
 */
function catchesUpWithCore(c: ContractChange): boolean {
  return c.core !== undefined && c.core.before === c.after && c.core.after === c.after;
}
