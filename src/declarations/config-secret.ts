/**
 * A provider's `spec.configSecret`: the Secret among the inputs it names, read case-sensitively as
 * the operator does. Its keys are variable values (process/variable-values/precedence.ts) and source
 * credentials (source/provider-source.ts).
 */
import { SpecError, error, peerWording } from '../errors.js';
import { findInput, type InputObject } from './inputs.js';
import { secretEntries, type SecretEntry } from './secret-values.js';
import type { ProviderCR } from './provider-spec.js';

/** The configSecret's key → value map (references without a value left out). */
export function readConfigSecret(cr: ProviderCR, secrets: readonly InputObject[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, e] of Object.entries(readConfigSecretEntries(cr, secrets)))
    if (e.value !== undefined) out[k] = e.value;
  return out;
}

/** The configSecret's keys, references included (see declarations/secret-values.ts). */
export function readConfigSecretEntries(cr: ProviderCR, secrets: readonly InputObject[]): Record<string, SecretEntry> {
  return secretEntries(configSecretInput(cr, secrets));
}

/** The Secret input the configSecret names; throws, naming the CR, when it is not among the inputs. */
export function configSecretInput(cr: ProviderCR, secrets: readonly InputObject[]): InputObject {
  const ref = cr.spec.configSecret!;
  const namespace = ref.namespace || cr.namespace;
  const input = findInput(secrets, namespace, ref.name);
  if (!input) {
    throw new SpecError(
      error(
        'config-secret',
        peerWording(
          'cluster-api-operator',
          `failed to get providers secret: secrets ${JSON.stringify(ref.name)} not found`,
          `spec.configSecret of ${cr.kind}/${cr.namespace}/${cr.name} names Secret ${namespace}/${ref.name}, which is not among the inputs`,
        ),
        {
          file: cr.file,
          line: cr.line,
          field: 'spec.configSecret',
          hint: 'add the Secret manifest under providers/ (values can come from the environment instead: see docs/inputs-and-overlays.md "Variables")',
        },
      ),
    );
  }
  return input;
}
