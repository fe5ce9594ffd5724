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
              `clusterctl moves all providers to a new contract together: every other provider in ${c.env} needs a release for ${c.after} in the same upgrade.`,
              `Manifests in git that use the ${c.before} API versions (Clusters, templates) keep working only while those versions are served; plan their move to ${c.after}.`,
            ],
          },
        ]
      : [],
  );
}
