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
import type { LockFile } from '../lock/lock-types.js';
import { emptyLock } from '../lock/lock-types.js';
import { artifactKey } from '../lock/lock-file.js';
import { nextLock, type RenderedLockEntries } from '../lock/next-lock.js';
import type { ArtifactCache } from '../source/artifact-cache.js';
import type { FetchProgressListener } from '../source/fetch-progress.js';

export interface RenderOptions {
  /** The repository to render (holds capi-render.yaml, providers/, overlays/). */
  repoRoot: string;
  /** Environments to render; default every environment. */
  environments?: readonly string[];
  /** The process environment, read only for variables mapped with `fromEnv`. Default: empty. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The lock to start from (versions it pins are reused, digests it records are enforced). Default: none. */
  lock?: LockFile;
  /** Content-addressed artifact cache for remote sources. Default: none. */
  cache?: ArtifactCache;
  /** Never open a network connection; fail naming what the cache lacks. Default: false. */
  offline?: boolean;
  /** GitHub token (never printed). */
  githubToken?: string;
  /** Fetch progress events (the CLI shows them on a TTY). */
  onProgress?: FetchProgressListener;
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
  /** The lock this build leaves behind (unrendered environments keep their entries). */
  lock: LockFile;
  warnings: Diagnostic[];
}

export const DEFAULT_ENVIRONMENT = 'default';

export async function render(options: RenderOptions): Promise<RenderResult> {
  const repoRoot = path.resolve(options.repoRoot);
  const repo = await loadRepository(repoRoot);
  const lock = options.lock ?? emptyLock();
  const lockedArtifacts = new Map(lock.artifacts.map((a) => [artifactKey(a.source, a.version, a.file), a]));
  const session = createSession({
    repoRoot,
    config: repo.config,
    env: options.env ?? {},
    validator: options.validator ?? createProviderSchemaValidator(),
    catalog: options.catalog ?? createDefaultCatalog({ config: repo.config, githubToken: options.githubToken, onProgress: options.onProgress }),
    lock,
    pin: {
      locked: (source, version, file) => lockedArtifacts.get(artifactKey(source, version, file)),
      cache: options.cache,
      offline: options.offline ?? false,
    },
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
  const entries: RenderedLockEntries[] = results.map((r) => ({
    environment: r.environment.name,
    providers: r.providers.map((p) => ({
      provider: `${p.cr.kind}/${p.cr.namespace}/${p.cr.name}`,
      requested: p.cr.spec.version ?? '',
      version: p.version,
      contract: p.contract,
      source: p.sourceId,
      variables: p.variables,
    })),
    artifacts: r.providers.flatMap((p) => p.artifacts.map((a) => ({ source: p.sourceId, version: p.version, file: a.file, url: a.url, sha256: a.sha256 }))),
  }));
  return {
    outputDir: path.resolve(repoRoot, repo.config.outputDir),
    lock: nextLock(lock, entries, allEnvironments),
    allEnvironments,
    environments: results,
    files,
    warnings: results.flatMap((r) => r.warnings),
  };
}
