/**
 * The library entry point: render every environment of a repository into an output plan (paths →
 * bytes) without writing anything. `writeOutputTree` applies a plan; `check` compares one.
 */
import path from 'node:path';
import { RenderError, SpecError, error, throwIfErrors, type Diagnostic } from '../errors.js';
import { planEnvironment, type OutputFiles } from '../output/plan.js';
import { classifyInputs } from '../spec/inputs.js';
import type { ProviderValidator } from '../spec/validate-providers.js';
import { createProviderSchemaValidator } from '../spec/schema/index.js';
import { createDefaultCatalog } from './catalog.js';
import { loadRepository } from './load-repository.js';
import type { ProviderCatalog } from './provider-source.js';
import { renderEnvironment, type EnvironmentResult } from './render-environment.js';
import { createSession } from './session.js';

export interface RenderOptions {
  /** The repository to render (holds capi-render.yaml, providers/, overlays/). */
  repoRoot: string;
  /** Environments to render; default every environment. */
  environments?: readonly string[];
  /** The process environment, read only for variables mapped with `fromEnv`. Default: empty. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Overrides for tests and embedders. */
  catalog?: ProviderCatalog;
  validator?: ProviderValidator;
}

export interface RenderResult {
  /** Absolute path of the output folder. */
  outputDir: string;
  /** Every environment that exists in the repository, sorted. */
  allEnvironments: string[];
  /** The rendered environments, in name order. */
  environments: EnvironmentResult[];
  /** Files of the rendered environments, relative to outputDir. */
  files: OutputFiles;
  warnings: Diagnostic[];
}

export const DEFAULT_ENVIRONMENT = 'default';

export async function render(options: RenderOptions): Promise<RenderResult> {
  const repoRoot = path.resolve(options.repoRoot);
  const repo = await loadRepository(repoRoot);
  const session = createSession({
    repoRoot,
    config: repo.config,
    env: options.env ?? {},
    validator: options.validator ?? createProviderSchemaValidator(),
    catalog: options.catalog ?? createDefaultCatalog(),
  });
  const allEnvironments = [DEFAULT_ENVIRONMENT];
  const wanted = options.environments?.length ? [...options.environments] : allEnvironments;
  const unknown = wanted.filter((e) => !allEnvironments.includes(e));
  if (unknown.length > 0) {
    throw new SpecError(
      error('overlay', `unknown environment${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, { hint: `environments: ${allEnvironments.join(', ')}` }),
    );
  }
  const classified = classifyInputs(repo.base);
  throwIfErrors(classified.diagnostics);

  const results: EnvironmentResult[] = [];
  const problems: Diagnostic[] = [];
  for (const name of [...wanted].sort()) {
    try {
      results.push(await renderEnvironment({ name, inputs: classified.inputs, variables: {}, images: {} }, session));
    } catch (e) {
      if (!(e instanceof RenderError)) throw e;
      problems.push(...e.diagnostics.map((d) => ({ ...d, message: wanted.length > 1 || name !== DEFAULT_ENVIRONMENT ? `[${name}] ${d.message}` : d.message })));
    }
  }
  throwIfErrors(problems);
  const files: OutputFiles = new Map();
  for (const r of results) for (const [p, text] of planEnvironment(r.environment, session.serialized)) files.set(p, text);
  return {
    outputDir: path.resolve(repoRoot, repo.config.outputDir),
    allEnvironments,
    environments: results,
    files,
    warnings: results.flatMap((r) => r.warnings),
  };
}
