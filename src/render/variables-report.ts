/**
 * `capi-render variables`: per environment and provider, every variable the components use — its
 * default, whether it is required, whether it ends in a Secret, and where the environment's value
 * comes from — never a value. A pure function over what list-variables.ts collects, plus the
 * warnings on the inputs: a variable set that no provider uses, and a `{fromEnv: NAME}` whose
 * environment variable is unset.
 */
import { UsageError, warning, type Diagnostic } from '../errors.js';
import type { VariableValue } from '../config/config-types.js';
import type { DescribedComponents } from '../process/variables/index.js';
import { compareGoStrings } from '../process/variables/inspect.js';
import type { VariableOrigin } from '../process/variable-values/precedence.js';
import { DEFAULT_ENVIRONMENT } from '../overlay/discover-environments.js';

/**
 * Where an environment's value of a variable comes from: a source of values, its default, nowhere, or a
 * secret reference that has no value here (`unset`: a build needs it only where it would show, not in a
 * Secret that secrets.mode leaves out or replaces).
 */
export type VariableSourceKind = VariableOrigin | 'default' | 'missing' | 'unset';
/** A variable's source as the listing gets it: an origin of values, or an unset secret reference. */
export type ListedOrigin = { origin: VariableOrigin | 'unset'; from: string };

/** One variable of one provider in one environment (`capi-render variables --json`). */
export interface ListedVariable {
  name: string;
  /** clusterctl's default text, null when there is none. */
  default: string | null;
  /** True when a value must be set (the first occurrence has no default). */
  required: boolean;
  /** True when the variable occurs in a v1 Secret's data or stringData in the components. */
  secret: boolean;
  /** overlay, configSecret, config, env, default, missing (required and no value), or unset (a secret reference with no value). */
  source: VariableSourceKind;
  /** Where the value is read, e.g. `Secret/capa-system/capa-vars key K`; null for default and missing. */
  from: string | null;
}

/** `capi-render variables --json`. */
export interface VariableListDocument {
  apiVersion: 'capi-render/v1alpha1';
  kind: 'VariableList';
  environments: {
    environment: string;
    providers: { provider: string; version: string; variables: ListedVariable[] }[];
  }[];
}

/** A provider as list-variables.ts collects it: plain data, no value of any variable. */
export interface VariablesProviderInput {
  /** The manifest label, e.g. `infrastructure-aws`. */
  provider: string;
  /** `Kind/namespace/name` of its CR. */
  object: string;
  version: string;
  described: DescribedComponents;
  /** For each name of `described.names` that has a value in this environment: its source (never the value). */
  origins: Record<string, ListedOrigin>;
  /** Its configSecret's keys, when it has one. */
  configSecret?: { secret: string; keys: readonly string[]; file?: string; line?: number };
}

export interface VariablesEnvironmentInput {
  environment: string;
  /** The innermost overlay file, for messages. */
  overlayFile?: string;
  /** The composed overlays' `variables:`. */
  overlay: Readonly<Record<string, VariableValue>>;
  providers: VariablesProviderInput[];
}

export interface VariablesReportInput {
  environments: VariablesEnvironmentInput[];
  /** capi-render.yaml `variables:`. */
  config: Readonly<Record<string, VariableValue>>;
  /** The process environment: only whether a name is set is read. */
  env: Readonly<Record<string, string | undefined>>;
  /** True when every environment is listed, so a capi-render.yaml variable no environment uses can be reported. */
  complete: boolean;
  /** Only the providers with this manifest label (the warnings still consider every provider). */
  provider?: string;
}

/** Keys a configSecret holds for other purposes than `${VAR}`s (clusterctl and the operator read them). */
const CONFIG_SECRET_SETTINGS: ReadonlySet<string> = new Set([
  'images',
  'OCI_USERNAME',
  'OCI_PASSWORD',
  'OCI_ACCESS_TOKEN',
  'OCI_REFRESH_TOKEN',
  'gitlab-access-token',
]);

/**
 * The report and its warnings. Throws UsageError when `provider` names no provider of the listed
 * environments. Sorted: environments by name, providers by label, variables by name.
 */
export function variablesReport(input: VariablesReportInput): {
  document: VariableListDocument;
  warnings: Diagnostic[];
} {
  const environments = [...input.environments].sort((a, b) => compareGoStrings(a.environment, b.environment));
  if (
    input.provider !== undefined &&
    !environments.some((e) => e.providers.some((p) => p.provider === input.provider))
  ) {
    const labels = [...new Set(environments.flatMap((e) => e.providers.map((p) => p.provider)))].sort(compareGoStrings);
    throw new UsageError(
      `--provider ${JSON.stringify(input.provider)} names no provider of the environments listed (providers: ${labels.join(', ') || 'none'})`,
    );
  }
  const document: VariableListDocument = {
    apiVersion: 'capi-render/v1alpha1',
    kind: 'VariableList',
    environments: environments.map((e) => ({
      environment: e.environment,
      providers: [...e.providers]
        .filter((p) => input.provider === undefined || p.provider === input.provider)
        .sort((a, b) => compareGoStrings(a.provider, b.provider))
        .map((p) => ({
          provider: p.provider,
          version: p.version,
          variables: p.described.variables.map((v) => listed(v, p.origins[v.name])),
        })),
    })),
  };
  return { document, warnings: inputWarnings(input, environments) };
}

function listed(v: DescribedComponents['variables'][number], found: ListedOrigin | undefined): ListedVariable {
  // An unset reference can only be spared in a Secret's data; elsewhere it is no value at all.
  const origin = found?.origin === 'unset' && !v.secret ? undefined : found;
  const source: VariableSourceKind = origin ? origin.origin : v.required ? 'missing' : 'default';
  return {
    name: v.name,
    default: v.default,
    required: v.required,
    secret: v.secret,
    source,
    from: origin ? origin.from : null,
  };
}

function inputWarnings(input: VariablesReportInput, environments: readonly VariablesEnvironmentInput[]): Diagnostic[] {
  const warnings: Diagnostic[] = [];
  const tag = (e: VariablesEnvironmentInput) =>
    environments.length > 1 || e.environment !== DEFAULT_ENVIRONMENT ? `[${e.environment}] ` : '';
  const usedAnywhere = new Set<string>();
  const unsetEnv = (value: VariableValue | undefined) =>
    typeof value === 'object' && input.env[value.fromEnv] === undefined;
  for (const e of environments) {
    const used = new Set(e.providers.flatMap((p) => p.described.names));
    for (const name of used) usedAnywhere.add(name);
    for (const name of Object.keys(e.overlay).sort(compareGoStrings)) {
      if (!used.has(name)) {
        warnings.push(
          warning(
            'variables-unused',
            `${tag(e)}variable ${name} is set in the overlay variables but no provider of the environment uses it`,
            {
              ...(e.overlayFile ? { file: e.overlayFile } : {}),
              field: `variables.${name}`,
              hint: 'remove it, or check its spelling against `capi-render variables`',
            },
          ),
        );
      } else if (unsetEnv(e.overlay[name])) {
        warnings.push(envUnset(`${tag(e)}`, name, (e.overlay[name] as { fromEnv: string }).fromEnv, e.overlayFile));
      }
    }
    for (const p of e.providers) {
      if (!p.configSecret) continue;
      const names = new Set(p.described.names);
      for (const key of [...p.configSecret.keys].sort(compareGoStrings)) {
        if (names.has(key) || CONFIG_SECRET_SETTINGS.has(key)) continue;
        warnings.push(
          warning(
            'variables-unused',
            `${tag(e)}key ${key} of ${p.configSecret.secret}, the configSecret of ${p.object}, is a variable its components do not use`,
            {
              ...(p.configSecret.file ? { file: p.configSecret.file } : {}),
              ...(p.configSecret.line ? { line: p.configSecret.line } : {}),
              object: p.configSecret.secret,
              hint: 'remove the key, or check its spelling against `capi-render variables`',
            },
          ),
        );
      }
    }
  }
  for (const name of Object.keys(input.config).sort(compareGoStrings)) {
    const usedHere = environments.some((e) => e.providers.some((p) => p.described.names.includes(name)));
    if (!usedHere && input.complete && !usedAnywhere.has(name)) {
      warnings.push(
        warning(
          'variables-unused',
          `variable ${name} is set in capi-render.yaml but no provider of any environment uses it`,
          {
            file: 'capi-render.yaml',
            field: `variables.${name}`,
            hint: 'remove it, or check its spelling against `capi-render variables`',
          },
        ),
      );
    } else if (usedHere && unsetEnv(input.config[name])) {
      warnings.push(envUnset('', name, (input.config[name] as { fromEnv: string }).fromEnv, 'capi-render.yaml'));
    }
  }
  return warnings;
}

function envUnset(tag: string, name: string, fromEnv: string, file: string | undefined): Diagnostic {
  return warning(
    'variables-env-unset',
    `${tag}variable ${name} is read from environment variable ${fromEnv}, which is not set`,
    {
      ...(file ? { file } : {}),
      field: `variables.${name}`,
      hint: `export ${fromEnv} before running capi-render (until then the variable falls back to a lower source, its default, or is missing)`,
    },
  );
}
