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
import { loadRepository, readDocuments } from './load-repository.js';
import { composeEnvironment, type ComposeContext, type ComposedEnvironment } from '../overlay/compose-environment.js';
import { DEFAULT_ENVIRONMENT, discoverEnvironments, selectShard } from '../overlay/discover-environments.js';
import type { SourceDocument } from '../spec/yaml-document.js';
import type { ProviderCatalog } from './provider-source.js';
import { renderEnvironment, type EnvironmentResult } from './render-environment.js';
import { createSession } from './session.js';
import type { LockFile } from '../lock/lock-types.js';
import { emptyLock } from '../lock/lock-types.js';
import { artifactKey } from '../lock/lock-file.js';
import { nextLock } from '../lock/next-lock.js';
import { lockEntriesOf } from './lock-entries.js';
import { requiredSecretsText } from '../secrets/required-secrets.js';
import { runGitopsStage } from './gitops-stage.js';
import { mergeGitopsConfig } from '../gitops/merge-config.js';
import type { GitopsMemo } from '../gitops/apply-gitops-flavour.js';
import type { ArtifactCache } from '../source/artifact-cache.js';
import type { FetchProgressListener } from '../source/fetch-progress.js';

export interface RenderOptions {
  /** The repository to render (holds capi-render.yaml, providers/, overlays/). */
  repoRoot: string;
  /** Environments to render; default every environment. */
  environments?: readonly string[];
  /** `K/N`: render only the K-th of N deterministic shards of the environments (after `environments`). */
  shard?: string;
  /** The process environment, read only for variables mapped with `fromEnv`. Default: empty. */
  env?: Readonly<Record<string, string | undefined>>;
  /** The lock to start from (versions it pins are reused, digests it records are enforced). Default: none. */
  lock?: LockFile;
  /** Content-addressed artifact cache for remote sources. Default: none. */
  cache?: ArtifactCache;
  /** Never open a network connection; fail naming what the cache lacks. Default: false. */
  offline?: boolean;
  /** Accept a lower minor version than the lock's. Default false (the operator's preflight rule). */
  allowDowngrade?: boolean;
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
  /** Absolute path of the GitOps consumer folder (Argo CD Applications, Flux Kustomizations). */
  gitopsDir: string;
  /** Consumer files of the rendered environments, relative to gitopsDir (empty for the kustomize flavour). */
  gitopsFiles: OutputFiles;
  /** The lock this build leaves behind (unrendered environments keep their entries). */
  lock: LockFile;
  warnings: Diagnostic[];
}

/** Inputs of the implicit `default` environment: providers/ as it is. */
function baseEnvironment(base: SourceDocument[]): ComposedEnvironment {
  const classified = classifyInputs(base);
  throwIfErrors(classified.diagnostics);
  return { inputs: classified.inputs, certManager: {}, gitops: {}, variables: {}, images: {}, labels: {}, chain: [] };
}

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
    allowDowngrade: options.allowDowngrade ?? false,
    pin: {
      locked: (source, version, file) => lockedArtifacts.get(artifactKey(source, version, file)),
      cache: options.cache,
      offline: options.offline ?? false,
    },
  });
  const discovered = await discoverEnvironments(repoRoot, repo.config.overlaysDir);
  const allEnvironments = discovered.map((e) => e.name);
  const unknown = (options.environments ?? []).filter((e) => !allEnvironments.includes(e));
  if (unknown.length > 0) {
    throw new SpecError(
      error('overlay', `unknown environment${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`, { hint: `environments: ${allEnvironments.join(', ')}` }),
    );
  }
  let wanted = options.environments?.length ? discovered.filter((e) => options.environments!.includes(e.name)) : discovered;
  if (options.shard) wanted = selectShard(wanted, options.shard);

  const documents = new Map<string, Promise<SourceDocument[]>>();
  const composeCtx: ComposeContext = {
    repoRoot,
    providersDir: repo.config.providersDir,
    readDocuments(relative) {
      let pending = documents.get(relative);
      if (!pending) {
        pending = readDocuments(repoRoot, relative);
        documents.set(relative, pending);
      }
      return pending;
    },
  };
  documents.set(repo.config.providersDir, Promise.resolve(repo.base));

  const results: EnvironmentResult[] = [];
  const gitopsFiles: OutputFiles = new Map();
  const gitopsMemo: GitopsMemo = new WeakMap();
  const problems: Diagnostic[] = [];
  const tag = (name: string, d: Diagnostic): Diagnostic => (allEnvironments.length > 1 || name !== DEFAULT_ENVIRONMENT ? { ...d, message: `[${name}] ${d.message}` } : d);
  for (const entry of wanted) {
    try {
      const composed = entry.overlayDir ? await composeEnvironment(entry.overlayDir, composeCtx) : baseEnvironment(repo.base);
      const rendered = await renderEnvironment(
        {
          name: entry.name,
          inputs: composed.inputs,
          certManager: { ...repo.config.certManager, ...composed.certManager },
          variables: composed.variables,
          images: composed.images,
          labels: composed.labels,
          file: composed.chain.at(-1),
        },
        session,
      );
      const gitops = runGitopsStage({
        environment: rendered.environment,
        settings: mergeGitopsConfig(repo.config.gitops, composed.gitops),
        labels: composed.labels,
        repoRoot,
        outputDir: repo.config.outputDir,
        templatesDir: repo.config.templatesDir,
        memo: gitopsMemo,
      });
      for (const [p, text] of gitops.files) gitopsFiles.set(p, text);
      if (rendered.requiredSecrets.length > 0) gitopsFiles.set(`secrets/${entry.name}.required.yaml`, requiredSecretsText(entry.name, rendered.requiredSecrets));
      results.push({ ...rendered, environment: gitops.environment, warnings: [...rendered.warnings, ...gitops.warnings.map((d) => tag(entry.name, d))] });
    } catch (e) {
      if (!(e instanceof RenderError)) throw e;
      problems.push(...e.diagnostics.map((d) => tag(entry.name, d)));
    }
  }
  throwIfErrors(problems);
  const files: OutputFiles = new Map();
  for (const r of results) for (const [p, text] of planEnvironment(r.environment, session.serialized)) files.set(p, text);
  const entries = results.map(lockEntriesOf);
  return {
    outputDir: path.resolve(repoRoot, repo.config.outputDir),
    gitopsDir: path.resolve(repoRoot, repo.config.gitopsDir),
    gitopsFiles: new Map([...gitopsFiles.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    lock: nextLock(lock, entries, allEnvironments),
    allEnvironments,
    environments: results,
    files,
    warnings: results.flatMap((r) => r.warnings),
  };
}
