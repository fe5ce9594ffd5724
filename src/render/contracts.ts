/**
 * Contract checks at build time, clusterctl's installer rules (cluster/installer.go Validate) with the
 * operator's acceptance set: every provider's contract (from its own metadata.yaml release series)
 * must be one the operator accepts (v1beta1, v1beta2) and compatible with the core provider's.
 */
import { error, type Diagnostic } from '../errors.js';
import { compatibleContracts } from '../source/metadata.js';
import { ref } from '../spec/preflight.js';
import type { ProviderCR } from '../spec/provider-spec.js';
import { CLUSTERCTL_CONTRACT } from '../resolve/select-version.js';

export interface ProviderContract {
  cr: ProviderCR;
  contract: string;
  version: string;
  at: { file: string; line: number; col: number };
}

export function checkContracts(list: readonly ProviderContract[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  const supported = compatibleContracts(CLUSTERCTL_CONTRACT);
  for (const p of list) {
    if (!supported.includes(p.contract)) {
      out.push(
        error('contract', `CAPI operator is only compatible with ${supported.join('/')} providers, detected ${p.contract} for provider ${ref(p.cr)} ${p.version}.`, {
          ...p.at,
          field: 'spec.version',
          object: ref(p.cr),
          hint: `choose a release of ${p.cr.name} that implements ${CLUSTERCTL_CONTRACT} or v1beta1`,
        }),
      );
    }
  }
  const core = list.find((p) => p.cr.kind === 'CoreProvider');
  if (!core) return out;
  const allowed = compatibleContracts(core.contract);
  for (const p of list) {
    if (p === core || !supported.includes(p.contract) || allowed.includes(p.contract)) continue;
    out.push(
      error('contract', `${ref(p.cr)} ${p.version} implements contract ${p.contract}, but the core provider cluster-api ${core.version} implements ${core.contract} (compatible: ${allowed.join(', ')})`, {
        ...p.at,
        field: 'spec.version',
        object: ref(p.cr),
        hint: `pick a ${p.cr.name} release whose metadata.yaml maps it to ${allowed.join(' or ')}, or move the core provider`,
      }),
    );
  }
  return out;
}
