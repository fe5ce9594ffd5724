/**
 * Contract checks at build time, clusterctl's installer rules (cluster/installer.go Validate) with the
 * operator's acceptance set: every provider's contract (from its own metadata.yaml release series)
 * must be one the operator accepts (v1beta1, v1beta2) and compatible with the core provider's. Both
 * peers accept the same set; the first line quotes the emulated one (installer.go
 * getProviderContract, or the operator's preflight_checks.go).
 */
import { error, peerWording, type Diagnostic } from '../errors.js';
import { compatibleContracts } from '../source/metadata.js';
import { ref } from '../declarations/preflight.js';
import { manifestLabel } from '../declarations/provider-kinds.js';
import type { ProviderCR } from '../declarations/provider-spec.js';
import { CLUSTERCTL_CONTRACT } from './select-version.js';
import { baselineOf, type Baseline } from '../baseline/baseline.js';

export interface ProviderContract {
  cr: ProviderCR;
  contract: string;
  version: string;
  at: { file: string; line: number; col: number };
}

/** `baseline` picks whose words the first check quotes (default: clusterctl v1.14's). */
export function checkContracts(
  list: readonly ProviderContract[],
  baseline: Baseline = baselineOf(undefined),
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const supported = compatibleContracts(CLUSTERCTL_CONTRACT);
  for (const p of list) {
    if (!supported.includes(p.contract)) {
      const details = `${ref(p.cr)} ${p.version}; accepted: ${supported.join(', ')}`;
      out.push(
        error(
          'contract',
          baseline.operator
            ? // The operator names only its own API version in this message, though it accepts v1beta1 too.
              peerWording(
                'cluster-api-operator',
                `CAPI operator is only compatible with ${CLUSTERCTL_CONTRACT} providers, detected ${p.contract} for provider ${p.cr.name}.`,
                details,
              )
            : // clusterctl prints a Go set here, in no fixed order: the order is fixed to the compatible list's.
              peerWording(
                'clusterctl',
                `current version of clusterctl is only compatible with providers implementing the ${supported.join(', ')} contract versions, detected contract version ${p.contract} for provider ${manifestLabel(p.cr.kind, p.cr.name)}`,
                details,
              ),
          {
            ...p.at,
            field: 'spec.version',
            object: ref(p.cr),
            hint: `choose a release of ${p.cr.name} that implements ${CLUSTERCTL_CONTRACT} or v1beta1`,
          },
        ),
      );
    }
  }
  const core = list.find((p) => p.cr.kind === 'CoreProvider');
  if (!core) return out;
  const allowed = compatibleContracts(core.contract);
  for (const p of list) {
    if (p === core || !supported.includes(p.contract) || allowed.includes(p.contract)) continue;
    out.push(
      error(
        'contract',
        peerWording(
          'clusterctl',
          `installing provider "${manifestLabel(p.cr.kind, p.cr.name)}" could lead to a non functioning management cluster: the target version for the provider implements the ${p.contract} contract version, while the core provider is compatible with ${allowed.join(',')} contract versions`,
          `${ref(p.cr)} ${p.version} implements contract ${p.contract}, but the core provider cluster-api ${core.version} implements ${core.contract}`,
        ),
        {
          ...p.at,
          field: 'spec.version',
          object: ref(p.cr),
          hint: `pick a ${p.cr.name} release whose metadata.yaml maps it to ${allowed.join(' or ')}, or move the core provider`,
        },
      ),
    );
  }
  return out;
}
