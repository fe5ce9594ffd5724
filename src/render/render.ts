/**
 * The library entry point: render every environment of a repository into an output plan (paths →
 * bytes) without writing anything. `writeOutputTree` applies a plan; `check` compares one.
 */
import path from 'node:path';
import { RenderError, throwIfErrors, type Diagnostic } from '../errors.js';
import { planEnvironment, type OutputFiles } from '../output/plan.js';
import { classifyInputs } from '../spec/inputs.js';
import type { ProviderValidator } from '../spec/validate-providers.js';
import { createProviderSchemaValidator } from '../spec/schema/index.js';
import { createDefaultCatalog } from './catalog.js';
import { loadRepository, readInputTree } from './load-repository.js';
import { buildInputsHash, environmentInputsHash, isUnchanged } from './inputs-hash.js';
import { inputFileDigests } from './input-file-digests.js';
import { composeEnvironment, composeGitopsSettings, type ComposeContext, type ComposedEnvironment } from '../overlay/compose-environment.js';
import { DEFAULT_ENVIRONMENT, discoverEnvironments, selectShard, unknownEnvironments } from '../overlay/discover-environments.js';
import { memoizedOverlayLoader } from '../overlay/load-overlay.js';
import type { SourceDocument } from '../spec/yaml-document.js';
import type { ProviderCatalog } from './provider-source.js';
import { renderEnvironment, type EnvironmentResult } from './render-environment.js';
import { createSession } from './session.js';
import type { LockFile } from '../lock/lock-types.js';
import type { GitopsConfig, RenderConfig } from '../config/config-types.js';
import { emptyLock } from '../lock/lock-types.js';
import { artifactKey } from '../lock/lock-file.js';
import { nextLock } from '../lock/next-lock.js';
import { lockEntriesOf } from './lock-entries.js';
import { mergeProblems, type EnvironmentProblem } from './merge-problems.js';
import { createParseCache } from '../manifest/parse-cache.js';
import { createValidationMemo, NO_VALIDATION_MEMO } from '../spec/schema/validation-memo.js';
import { requiredSecretsText } from '../secrets/required-secrets.js';
import { runFleetStage, runGitopsStage, type FleetMember } from './gitops-stage.js';
import { mergeGitopsConfig } from '../gitops/merge-config.js';
import type { GitopsMemo } from '../gitops/apply-gitops-flavour.js';
import type { ArtifactCache } from '../source/artifact-cache.js';
import type { FetchProgressListener } from '../source/fetch-progress.js';
import type { FetchLike } from '../source/gitlab/gitlab-source.js';
import { createReleaseIndexCache } from '../source/release-index-cache.js';

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
  /**
   * HTTP transport of every network source (GitHub, GitLab, OCI registries); the CLI passes the
   * proxy-aware fetch (source/http/network-fetch.ts). Requests carry the URLs the user wrote; tests
   * route them to a local server. Default: the global fetch.
   */
  fetch?: FetchLike;
  /** The clock saved release lists are stamped with (`plan --offline` reports their age). Default: the system clock. */
  now?: () => Date;
  /** Fetch progress events (the CLI shows them on a TTY). */
  onProgress?: FetchProgressListener;
  /**
   * Skip environments whose inputs hash equals the lock's and whose output folder exists; their
   * files and lock entries are kept. For `build`; never for `check`. Default false.
   */
  skipUnchanged?: boolean;
  /** Overrides for tests and embedders. */
  catalog?: ProviderCatalog;
  validator?: ProviderValidator;
}

export interface RenderResult {
  /** The repository's settings (capi-render.yaml with defaults). */
  config: RenderConfig;
  /** Absolute path of the output folder. */
  outputDir: string;
  /** Every environment that exists in the repository, sorted. */
  allEnvironments: string[];
  /** Environments skipped as unchanged (skipUnchanged); their files are not in `files`. */
  skipped: string[];
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
function baseEnvironment(base: SourceDocument[], baseHash: string): ComposedEnvironment {
  const classified = classifyInputs(base);
  throwIfErrors(classified.diagnostics);
  return { inputs: classified.inputs, certManager: {}, gitops: {}, variables: {}, images: {}, labels: {}, chain: [], inputsHash: baseHash };
}

/**
 * An environment's effective gitops settings for the fleet stage: from its composition when this
 * build composed it, else from its overlay files alone (environments not asked for still belong in
 * the ApplicationSet and in the destination checks).
 */
async function fleetMember(entry: { name: string; overlayDir?: string }, composed: ComposedEnvironment | undefined, base: GitopsConfig, ctx: ComposeContext): Promise<FleetMember> {
  if (composed) return { name: entry.name, settings: mergeGitopsConfig(base, composed.gitops), ...(composed.chain.length > 0 ? { file: composed.chain.at(-1)! } : {}) };
  if (!entry.overlayDir) return { name: entry.name, settings: base };
  const own = await composeGitopsSettings(entry.overlayDir, ctx);
  return { name: entry.name, settings: mergeGitopsConfig(base, own.gitops), file: own.file };
}

export async function render(options: RenderOptions): Promise<RenderResult> {
  const repoRoot = path.resolve(options.repoRoot);
  const memo = options.cache ? createValidationMemo(path.join(options.cache.dir, 'validated')) : NO_VALIDATION_MEMO;
  const repo = await loadRepository(repoRoot, memo);
  const lock = options.lock ?? emptyLock();
  const lockedArtifacts = new Map(lock.artifacts.map((a) => [artifactKey(a.source, a.version, a.file), a]));
  const session = createSession({
    repoRoot,
    config: repo.config,
    env: options.env ?? {},
    validator: options.validator ?? createProviderSchemaValidator({ memo }),
    catalog:
      options.catalog ??
      createDefaultCatalog({
        config: repo.config,
        githubToken: options.githubToken,
        // Read from the environment only through the name capi-render.yaml gives; never stored.
        gitlabToken: repo.config.gitlab.accessToken ? options.env?.[repo.config.gitlab.accessToken.fromEnv] || undefined : undefined,
        fetch: options.fetch,
        onProgress: options.onProgress,
      }),
    lock,
    ...(options.cache ? { parseCache: createParseCache(options.cache.dir) } : {}),
    allowDowngrade: options.allowDowngrade ?? false,
    pin: {
      locked: (source, version, file) => lockedArtifacts.get(artifactKey(source, version, file)),
      cache: options.cache,
      ...(options.cache ? { index: createReleaseIndexCache(options.cache.dir) } : {}),
      ...(options.now ? { now: options.now } : {}),
      offline: options.offline ?? false,
    },
  });
  const overlays = memoizedOverlayLoader(memo);
  const discovered = await discoverEnvironments(repoRoot, repo.config.overlaysDir, overlays);
  const allEnvironments = discovered.map((e) => e.name);
  const unknown = (options.environments ?? []).filter((e) => !allEnvironments.includes(e));
  if (unknown.length > 0) throw unknownEnvironments(unknown, allEnvironments);
  let wanted = options.environments?.length ? discovered.filter((e) => options.environments!.includes(e.name)) : discovered;
  if (options.shard) wanted = selectShard(wanted, options.shard);

  const trees = new Map<string, Promise<{ documents: SourceDocument[]; sha256: string }>>();
  trees.set(repo.config.providersDir, Promise.resolve({ documents: repo.base, sha256: repo.baseHash }));
  const tree = (relative: string) => {
    let pending = trees.get(relative);
    if (!pending) {
      pending = readInputTree(repoRoot, relative);
      trees.set(relative, pending);
    }
    return pending;
  };
  const composeCtx: ComposeContext = {
    repoRoot,
    providersDir: repo.config.providersDir,
    readDocuments: async (relative) => (await tree(relative)).documents,
    contentHash: async (relative) => (await tree(relative)).sha256,
    loadOverlay: overlays,
  };
  const outputDir = path.resolve(repoRoot, repo.config.outputDir);
  const inputFiles = await inputFileDigests(repoRoot, repo.config);
  const buildHash = buildInputsHash(repo, inputFiles);

  const results: EnvironmentResult[] = [];
  const skipped: string[] = [];
  const composedByEnv = new Map<string, ComposedEnvironment>();
  const gitopsFiles: OutputFiles = new Map();
  const gitopsMemo: GitopsMemo = new WeakMap();
  const problems: EnvironmentProblem[] = [];
  const tag = (name: string, d: Diagnostic): Diagnostic => (allEnvironments.length > 1 || name !== DEFAULT_ENVIRONMENT ? { ...d, message: `[${name}] ${d.message}` } : d);
  for (const entry of wanted) {
    try {
      const composed = entry.overlayDir ? await composeEnvironment(entry.overlayDir, composeCtx) : baseEnvironment(repo.base, repo.baseHash);
      const inputsHash = environmentInputsHash(buildHash, composed, lock.environments.find((e) => e.name === entry.name)?.providers, lock.artifacts);
      composedByEnv.set(entry.name, composed);
      if (options.skipUnchanged && inputsHash && isUnchanged(lock, entry.name, inputsHash, outputDir)) {
        skipped.push(entry.name);
        continue;
      }
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
      const gitopsSettings = mergeGitopsConfig(repo.config.gitops, composed.gitops);
      const gitops = runGitopsStage({
        environment: rendered.environment,
        settings: gitopsSettings,
        labels: composed.labels,
        repoRoot,
        outputDir: repo.config.outputDir,
        templatesDir: repo.config.templatesDir,
        memo: gitopsMemo,
      });
      for (const [p, text] of gitops.files) gitopsFiles.set(p, text);
      if (rendered.requiredSecrets.length > 0) gitopsFiles.set(`secrets/${entry.name}.required.yaml`, requiredSecretsText(entry.name, rendered.requiredSecrets));
      results.push({ ...rendered, environment: gitops.environment, gitopsFlavour: gitopsSettings.flavour ?? 'kustomize', labels: composed.labels, warnings: [...rendered.warnings, ...gitops.warnings.map((d) => tag(entry.name, d))] });
    } catch (e) {
      if (!(e instanceof RenderError)) throw e;
      problems.push(...e.diagnostics.map((diagnostic) => ({ environment: entry.name, diagnostic })));
    }
  }
  throwIfErrors(mergeProblems(problems, allEnvironments.length > 1 || allEnvironments[0] !== DEFAULT_ENVIRONMENT));
  // Files that span environments (an ApplicationSet over every Argo CD environment), from every
  // environment's settings, rendered or not.
  try {
    const fleet = await Promise.all(discovered.map((entry) => fleetMember(entry, composedByEnv.get(entry.name), repo.config.gitops, composeCtx)));
    for (const [p, text] of runFleetStage(fleet, { repoRoot, outputDir: repo.config.outputDir, templatesDir: repo.config.templatesDir })) gitopsFiles.set(p, text);
  } catch (e) {
    if (!(e instanceof RenderError)) throw e;
    throwIfErrors(e.diagnostics);
  }
  const files: OutputFiles = new Map();
  for (const r of results) for (const [p, text] of planEnvironment(r.environment, session.serializer)) files.set(p, text);
  // The stored hash covers the lock entries this build leaves, so an unchanged next build matches it.
  const entries = results.map((r) => {
    const e = lockEntriesOf(r);
    return { ...e, inputs: environmentInputsHash(buildHash, composedByEnv.get(r.environment.name)!, e.providers, e.artifacts) };
  });
  return {
    config: repo.config,
    outputDir,
    skipped,
    gitopsDir: path.resolve(repoRoot, repo.config.gitopsDir),
    gitopsFiles: new Map([...gitopsFiles.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    lock: nextLock(lock, entries, allEnvironments, inputFiles),
    allEnvironments,
    environments: results,
    files,
    warnings: results.flatMap((r) => r.warnings),
  };
}
