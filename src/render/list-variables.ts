/**
 * Collects what `capi-render variables` lists: resolves every environment's providers the way a
 * build does (lock, cache, sources; RenderRun.resolve), reads each provider's components text, and
 * asks the build's own lookup (process/variable-values/precedence.ts) where each variable's value would come from — keeping
 * the source, never the value. Writes nothing in the repository.
 */
import { appendAdditionalManifests } from '../customize/additional-manifests.js';
import { findInput } from '../declarations/inputs.js';
import { manifestLabel } from '../declarations/provider-kinds.js';
import { RenderError, type Diagnostic } from '../errors.js';
import { describeComponentVariables, type DescribedComponents } from '../process/variables/index.js';
import { findAdditionalManifests } from './render-environment.js';
import type { RenderOptions } from './render-options.js';
import { startRender, type ResolvedInputs } from './render-run.js';
import { variableLookup } from '../process/variable-values/precedence.js';
import { readConfigSecret } from '../declarations/config-secret.js';
import {
  variablesReport,
  type VariableListDocument,
  type VariablesEnvironmentInput,
  type VariablesProviderInput,
} from './variables-report.js';

export interface ListVariablesOptions extends RenderOptions {
  /** Only the providers with this manifest label. */
  provider?: string;
}

/** The report of every environment asked for, and the warnings of resolving and of the inputs. */
export async function listVariables(
  options: ListVariablesOptions,
): Promise<{ document: VariableListDocument; warnings: Diagnostic[] }> {
  const run = await startRender(options);
  const environments: VariablesEnvironmentInput[] = [];
  // Components texts repeat across environments: each is described once.
  const described = new Map<string, DescribedComponents>();
  const resolved = await run.resolve((resolvedEnv) => {
    environments.push({
      environment: resolvedEnv.inputs.name,
      ...(resolvedEnv.inputs.file ? { overlayFile: resolvedEnv.inputs.file } : {}),
      overlay: resolvedEnv.inputs.variables,
      providers: resolvedEnv.providers.map((r) => providerInput(r, resolvedEnv, described)),
    });
  });
  const report = variablesReport({
    environments,
    config: run.config.variables,
    env: options.env ?? {},
    complete: (options.environments ?? []).length === 0 && options.shard === undefined,
    ...(options.provider !== undefined ? { provider: options.provider } : {}),
  });
  return { document: report.document, warnings: [...resolved.warnings, ...report.warnings] };
}

function providerInput(
  r: ResolvedInputs['providers'][number],
  resolvedEnv: ResolvedInputs,
  described: Map<string, DescribedComponents>,
): VariablesProviderInput {
  const { cr } = r;
  const { inputs } = resolvedEnv;
  const object = `${cr.kind}/${cr.namespace}/${cr.name}`;
  const additional = cr.spec.additionalManifests ? findAdditionalManifests(cr, inputs.inputs) : undefined;
  const text = additional ? appendAdditionalManifests(r.components.text, additional, object) : r.components.text;
  const source = `${r.providerSource.source.description} ${r.version}/${r.providerSource.componentsFile}`;
  let components = described.get(text);
  if (!components) {
    components = describeTemplate(text, source, cr.file, cr.line, object);
    described.set(text, components);
  }
  const lookup = variableLookup(cr, {
    overlay: inputs.variables,
    ...(inputs.file ? { overlayFile: inputs.file } : {}),
    config: resolvedEnv.variables,
    secrets: inputs.inputs.secrets,
    env: resolvedEnv.env,
  });
  const origins: VariablesProviderInput['origins'] = {};
  for (const name of components.names) {
    const value = lookup(name);
    // An unset secret reference stands for a value a build needs only where it would show: listed as
    // unset with its reference, never as the marker that holds its place.
    if (value)
      origins[name] = value.unset ? { origin: 'unset', from: value.from } : { origin: value.origin, from: value.from };
  }
  const ref = cr.spec.configSecret;
  let configSecret: VariablesProviderInput['configSecret'];
  if (ref) {
    const namespace = ref.namespace || cr.namespace;
    const input = findInput(inputs.inputs.secrets, namespace, ref.name);
    configSecret = {
      secret: `Secret/${namespace}/${ref.name}`,
      keys: Object.keys(readConfigSecret(cr, inputs.inputs.secrets)),
      ...(input ? { file: input.file, line: input.locate([]).line } : {}),
    };
  }
  return {
    provider: manifestLabel(cr.kind, cr.name),
    object,
    version: r.version,
    described: components,
    origins,
    ...(configSecret ? { configSecret } : {}),
  };
}

/** Describes a components text; a template error points at the provider CR and names the artifact, as a build's does. */
function describeTemplate(
  text: string,
  source: string,
  file: string,
  line: number,
  object: string,
): DescribedComponents {
  try {
    return describeComponentVariables(text, source);
  } catch (e) {
    if (!(e instanceof RenderError)) throw e;
    for (const d of e.diagnostics) {
      if (d.file !== source) continue;
      d.message = `${d.message} (in ${source}${d.line ? ` line ${d.line}` : ''})`;
      Object.assign(d, { file, line, col: 1, object });
    }
    throw e;
  }
}
