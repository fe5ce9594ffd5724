/**
 * Where `${VAR}` values come from, highest precedence first: the environment overlay's
 * `variables:`, the provider's `spec.configSecret` (read case-sensitively, as the operator does), then
 * `variables:` in capi-render.yaml. `{fromEnv: NAME}` is the only way the process environment reaches
 * a render. Values from a configSecret or the environment are marked secret, for the secret guard; a
 * secret reference with no value answers the variable's unset marker (`unset: true`).
 *
 * Design notes: docs/internals.md "process/variable-values/precedence.ts".
 */
import type { InputObject } from '../../declarations/inputs.js';
import { configSecretInput, readConfigSecretEntries } from '../../declarations/config-secret.js';
import { describeReference, type SecretEntry } from '../../declarations/secret-values.js';
import type { ProviderCR } from '../../declarations/provider-spec.js';
import { unsetMarker } from '../../secrets/unset-marker.js';

/** A variable's value: a literal, or an explicit mapping to an environment variable. */
export type VariableValue = string | { fromEnv: string };

export type VariableOrigin = 'overlay' | 'configSecret' | 'config' | 'env';

/** Where a secret reference is written, for messages: the file, and the line when known. */
export interface ReferenceSite {
  file: string;
  line?: number;
  col?: number;
  /** The field that holds the reference, e.g. `variables.NAME.fromEnv`, `stringData.KEY`. */
  field: string;
}

export interface ResolvedVariable {
  value: string;
  origin: VariableOrigin;
  /** Values that must not be written to git in plain text. */
  secret: boolean;
  /** Human description of where the value came from (never the value). */
  from: string;
  /**
   * The secret reference the value comes from, or (with `unset`) the one that would give it: e.g.
   * `environment variable AWS_B64ENCODED_CREDENTIALS`, `file /run/secrets/vcd-password`. Absent for
   * literal values (a string in `variables:`, a configSecret string).
   */
  reference?: string;
  /** Where that reference is written. */
  site?: ReferenceSite;
  /** What maps the variable to the reference: `capi-render.yaml variables`, `overlay overlays/dev/overlay.yaml`, `Secret/ns/name stringData.KEY`. */
  via?: string;
  /** The reference has no value: `value` is the variable's unset marker, never to be output. */
  unset?: true;
}

export interface VariableSources {
  overlay: Record<string, VariableValue>;
  overlayFile?: string;
  config: Record<string, VariableValue>;
  secrets: readonly InputObject[];
  env: Readonly<Record<string, string | undefined>>;
  /** `secrets.notSecret`: such a variable with no value is unset (no marker), as any literal would be. Default: none. */
  notSecret?: readonly string[];
}

/** The lookup for one provider; throws when its configSecret is missing or malformed. */
export function variableLookup(
  cr: ProviderCR,
  sources: VariableSources,
): (name: string) => ResolvedVariable | undefined {
  const secret = cr.spec.configSecret ? readConfigSecretEntries(cr, sources.secrets) : undefined;
  const secretInput = cr.spec.configSecret ? configSecretInput(cr, sources.secrets) : undefined;
  const secretName = cr.spec.configSecret
    ? `Secret/${cr.spec.configSecret.namespace ?? cr.namespace}/${cr.spec.configSecret.name}`
    : '';
  const notSecret = new Set(sources.notSecret ?? []);
  return (name) => {
    // The first unset secret reference, in precedence order: what the marker stands for.
    let unset: ResolvedVariable | undefined;
    const consider = (v: ResolvedVariable | undefined) => {
      if (v?.unset) unset ??= v;
      return v?.unset ? undefined : v;
    };
    const fromOverlay = consider(
      resolveValue(
        name,
        sources.overlay[name],
        'overlay',
        sources.env,
        `overlay ${sources.overlayFile ?? ''}`.trim(),
        sources.overlayFile ?? 'capi-render.yaml',
      ),
    );
    if (fromOverlay) return fromOverlay;
    if (secret && Object.prototype.hasOwnProperty.call(secret, name)) {
      const entry: SecretEntry = secret[name]!;
      const from = `${secretName} key ${name}`;
      const via = `${secretName} stringData.${name}`;
      const site = secretInput
        ? { file: secretInput.file, ...lineOf(secretInput, name), field: `stringData.${name}` }
        : undefined;
      const found = consider(
        entry.value !== undefined
          ? {
              value: entry.value,
              origin: 'configSecret',
              secret: true,
              from,
              ...(entry.reference
                ? { reference: describeReference(entry.reference), via, ...(site ? { site } : {}) }
                : {}),
            }
          : {
              value: unsetMarker(name),
              origin: 'configSecret',
              secret: true,
              from,
              reference: describeReference(entry.reference!),
              via,
              ...(site ? { site } : {}),
              unset: true,
            },
      );
      if (found) return found;
    }
    const fromConfig = consider(
      resolveValue(name, sources.config[name], 'config', sources.env, 'capi-render.yaml variables', 'capi-render.yaml'),
    );
    if (fromConfig) return fromConfig;
    // Not sensitive by the user's word: nothing to keep out of the output, so no value means unset.
    return unset && !notSecret.has(name) ? unset : undefined;
  };
}

function resolveValue(
  name: string,
  value: VariableValue | undefined,
  origin: 'overlay' | 'config',
  env: Readonly<Record<string, string | undefined>>,
  from: string,
  file: string,
): ResolvedVariable | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return { value, origin, secret: false, from };
  const envValue = env[value.fromEnv];
  const reference = `environment variable ${value.fromEnv}`;
  const described = `${reference} (via ${from})`;
  // An unset environment variable leaves the variable unset, so a lower source, its default or the
  // missing-variable error applies — unless only a left-out Secret needs it (see the module comment);
  // a variable set to "" counts as set, as in clusterctl.
  const resolved = {
    origin: 'env',
    secret: true,
    from: described,
    reference,
    via: from,
    site: { file, field: `variables.${name}.fromEnv` },
  } as const;
  return envValue === undefined
    ? { value: unsetMarker(name), ...resolved, unset: true }
    : { value: envValue, ...resolved };
}

function lineOf(input: InputObject, key: string): { line?: number; col?: number } {
  try {
    const at = input.locate(['stringData', key]);
    return { line: at.line, col: at.col };
  } catch {
    return {};
  }
}
