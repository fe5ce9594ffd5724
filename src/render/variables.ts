/**
 * Where `${VAR}` values come from, and in which precedence (highest first):
 * 1. the environment overlay's `variables:`;
 * 2. the provider's `spec.configSecret` (a Secret among the inputs; `data` base64-decoded, or
 *    `stringData`), read case-sensitively as the operator does;
 * 3. `variables:` in capi-render.yaml.
 * A value written `{fromEnv: NAME}` is read from the process environment — the only way the
 * environment reaches a render, so an unrelated shell variable can never change the output.
 * Values from a configSecret or the environment are marked secret, for the secret guard.
 */
import { SpecError, error, peerWording } from '../errors.js';
import { findInput, type InputObject } from '../declarations/inputs.js';
import { secretValues } from '../declarations/secret-values.js';
import type { ProviderCR } from '../declarations/provider-spec.js';
import type { VariableValue } from '../config/config-types.js';

export type VariableOrigin = 'overlay' | 'configSecret' | 'config' | 'env';

export interface ResolvedVariable {
  value: string;
  origin: VariableOrigin;
  /** Values that must not be written to git in plain text. */
  secret: boolean;
  /** Human description of where the value came from (never the value). */
  from: string;
}

export interface VariableSources {
  overlay: Record<string, VariableValue>;
  overlayFile?: string;
  config: Record<string, VariableValue>;
  secrets: readonly InputObject[];
  env: Readonly<Record<string, string | undefined>>;
}

/** The lookup for one provider; throws when its configSecret is missing or malformed. */
export function variableLookup(cr: ProviderCR, sources: VariableSources): (name: string) => ResolvedVariable | undefined {
  const secret = cr.spec.configSecret ? readConfigSecret(cr, sources.secrets) : undefined;
  const secretName = cr.spec.configSecret ? `Secret/${cr.spec.configSecret.namespace ?? cr.namespace}/${cr.spec.configSecret.name}` : '';
  return (name) => {
    const fromOverlay = resolveValue(sources.overlay[name], 'overlay', sources.env, `overlay ${sources.overlayFile ?? ''}`.trim());
    if (fromOverlay) return fromOverlay;
    if (secret && Object.prototype.hasOwnProperty.call(secret, name)) {
      return { value: secret[name]!, origin: 'configSecret', secret: true, from: `${secretName} key ${name}` };
    }
    return resolveValue(sources.config[name], 'config', sources.env, 'capi-render.yaml variables');
  };
}

function resolveValue(
  value: VariableValue | undefined,
  origin: 'overlay' | 'config',
  env: Readonly<Record<string, string | undefined>>,
  from: string,
): ResolvedVariable | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return { value, origin, secret: false, from };
  const envValue = env[value.fromEnv];
  // An unset environment variable leaves the variable unset, so its default or the missing-variable
  // error applies; a variable set to "" counts as set, as in clusterctl.
  if (envValue === undefined) return undefined;
  return { value: envValue, origin: 'env', secret: true, from: `environment variable ${value.fromEnv} (via ${from})` };
}

/** The configSecret's key → value map. */
export function readConfigSecret(cr: ProviderCR, secrets: readonly InputObject[]): Record<string, string> {
  const ref = cr.spec.configSecret!;
  const namespace = ref.namespace || cr.namespace;
  const input = findInput(secrets, namespace, ref.name);
  if (!input) {
    throw new SpecError(
      error('config-secret', peerWording('cluster-api-operator', `failed to get providers secret: secrets ${JSON.stringify(ref.name)} not found`, `spec.configSecret of ${cr.kind}/${cr.namespace}/${cr.name} names Secret ${namespace}/${ref.name}, which is not among the inputs`), {
        file: cr.file,
        line: cr.line,
        field: 'spec.configSecret',
        hint: 'add the Secret manifest under providers/ (values can come from the environment instead: see docs/inputs-and-overlays.md "Variables")',
      }),
    );
  }
  return secretValues(input);
}
