/**
 * A build in two phases, so that a fleet never has to be held in memory at once:
 *   1. {@link startRender}: load the repository, compose every environment asked for and decide
 *      which are unchanged — everything a writer must know before the first file (which output
 *      folders it touches, which environments it answers for);
 *   2. {@link RenderRun.run}: render one environment at a time and hand its files to the caller,
 *      which writes or compares them and lets them go; then the lock the build leaves.
 * `render()` (render.ts) collects a run into one result for callers that want everything.
 */
import path from 'node:path';
import { RenderError, throwIfErrors, type Diagnostic } from '../errors.js';
import { planEnvironment, type OutputFiles } from '../plan/output-plan.js';
import { createProviderSchemaValidator } from '../declarations/schema/index.js';
import { createDefaultCatalog } from '../source/catalog.js';
import { loadRepository } from './load-repository.js';
import { buildInputsHash, environmentInputsHash, lockedImagesOf } from './inputs-hash.js';
import { inputFileDigests, usesSops, type InputDirs } from './input-file-digests.js';
import type { ComposedEnvironment } from '../overlay/compose-environment.js';
import { DEFAULT_ENVIRONMENT } from '../overlay/discover-environments.js';
import { memoizedOverlayLoader } from '../overlay/load-overlay.js';
import { renderEnvironment, resolveEnvironment } from './render-environment.js';
import type { EnvironmentInputs, EnvironmentResult } from './environment-result.js';
import type { ResolvedArtifacts } from './resolve-provider.js';
import { createSession } from './session.js';
import { createImageResolver, rekeyedImagesWarning } from '../images/image-resolver.js';
import { registryForPolicy } from '../images/registry-policy.js';
import { createDockerCredentials } from '../images/registry/docker-credentials.js';
import type { LockFile, LockedInputFile } from '../lock/lock-types.js';
import type { RenderConfig } from '../config/config-types.js';
import type { ImagePolicyConfig } from '../images/image-policy-config.js';
import { emptyLock } from '../lock/lock-types.js';
import { artifactKey, lockEmulates } from '../lock/lock-file.js';
import { baselineOf } from '../baseline/baseline.js';
import { nextLock, type RenderedLockEntries } from '../lock/next-lock.js';
import { pathNamedLocalSources, withPathlessLocalSources } from '../lock/local-sources.js';
import { lockEntriesOf } from './lock-entries.js';
import { createParseCache } from '../manifest/parse-cache.js';
import { createValidationMemo, NO_VALIDATION_MEMO } from '../declarations/schema/validation-memo.js';
import { requiredSecretsText } from '../secrets/required-secrets.js';
import { fleetMember, runFleetStage, runGitopsStage } from './gitops-stage.js';
import { verificationInputs } from './verification-inputs.js';
import { committedOutputReader } from './committed-environments.js';
import { mergeProblems, type EnvironmentProblem } from './merge-problems.js';
import { mergeGitopsConfig } from '../gitops/merge-config.js';
import type { GitopsMemo } from '../gitops/apply-gitops-flavour.js';
import { createReleaseIndexCache } from '../source/release-index-cache.js';
import { GITLAB_TOKEN_ENV } from '../source/gitlab/gitlab-http.js';
import type { RenderOptions } from './render-options.js';
import { composer, selectEnvironments } from './compose-environments.js';
import { withSbomFile } from '../sbom/sbom-output.js';
import { createLazySopsSealer } from '../secrets/sops/lazy-sealer.js';
import { createReferenceReader } from '../secrets/secret-references.js';
import { hasSecretReferences } from '../declarations/secret-values.js';

/**
 * What a run read, for a build stamp (build/build-stamp.ts): a later build whose every input is
 * still as read here can be skipped without loading anything.
 */
export interface RunStamp {
  dirs: InputDirs;
  inputFiles: LockedInputFile[];
  /** ComposedEnvironment.reads of every environment, unique, sorted. */
  reads: string[];
  environments: string[];
}

/** One rendered environment, as {@link RenderRun.run} hands it over. */
export interface RenderedOutput {
  result: EnvironmentResult;
  /** Its files in the output folder (`<env>/…`). */
  files: OutputFiles;
  /** Its files in the GitOps consumer folder. */
  gitopsFiles: OutputFiles;
}

/** What a run leaves once every environment has been handed over. */
export interface RenderRunResult {
  /** The lock this build leaves behind (unrendered environments keep their entries). */
  lock: LockFile;
  /** Warnings of every rendered environment, in environment order. */
  warnings: Diagnostic[];
  /**
   * GitOps consumer files that span environments (the Argo CD ApplicationSet), from every
   * environment's settings, rendered or not.
   */
  fleetGitopsFiles: OutputFiles;
}

export interface RenderRun {
  /** The repository's settings (capi-render.yaml with defaults). */
  config: RenderConfig;
  /** Absolute path of the output folder. */
  outputDir: string;
  /** Absolute path of the GitOps consumer folder. */
  gitopsDir: string;
  /** Every environment that exists in the repository, sorted. */
  allEnvironments: string[];
  /** The environments {@link renderEach} renders, in order. */
  rendering: string[];
  /** Environments skipped as unchanged (skipUnchanged). */
  skipped: string[];
  /**
   * Environments rendered although their inputs hash equals the lock's: their output could not be
   * confirmed unchanged, so whatever this build writes there repairs it.
   */
  unchangedInputs: string[];
  /**
   * What a build stamp (build/build-stamp.ts) records of this run, or undefined when a later build could
   * not be skipped even with every input unchanged (values from the process environment, plaintext
   * secrets, an environment that failed to compose).
   */
  stamp: RunStamp | undefined;
  /** sha256 of every input file, as read when the run started (what the lock records as inputFiles). */
  inputFiles: LockedInputFile[];
  /**
   * The inputs hash a build stores for `env` when `lock` holds its entries — what `lock` records
   * for it when those entries are current; undefined when the environment cannot be hashed (see
   * inputs-hash.ts) or did not compose. `merge` checks shard outputs with it.
   */
  inputsHashFor(env: string, lock: LockFile): string | undefined;
  /**
   * Renders the environments one by one, handing each to `onEnvironment` (awaited before the next
   * is rendered; nothing of it is kept here). An environment that fails is reported with the others
   * at the end (a RenderError listing every problem); once one has failed, the rest are still
   * rendered for their diagnostics but no longer handed over.
   */
  renderEach(onEnvironment: (output: RenderedOutput) => Promise<void> | void): Promise<RenderRunResult>;
  /**
   * Phase 2 without processing, for read-only reports on the inputs (`variables`): resolves each
   * environment's providers (validation, versions, release files, contracts) and hands over their
   * inputs and resolved artifacts; nothing is substituted, rendered or locked. Failures are
   * reported together at the end, as {@link renderEach} does.
   */
  resolve(onEnvironment: (resolved: ResolvedInputs) => void): Promise<{ warnings: Diagnostic[] }>;
}

/** One environment as {@link RenderRun.resolve} hands it over. */
export interface ResolvedInputs {
  inputs: EnvironmentInputs;
  /** Its providers' resolved release files, the core provider first. */
  providers: ResolvedArtifacts[];
  /** capi-render.yaml's `variables:`. */
  variables: RenderConfig['variables'];
  /** The process environment the run reads `{fromEnv}` values from. */
  env: Readonly<Record<string, string | undefined>>;
}

/** Phase 1: see the module comment. Throws for problems of the repository as a whole. */
export async function startRender(options: RenderOptions): Promise<RenderRun> {
  const repoRoot = path.resolve(options.repoRoot);
  const use = options.cache?.use;
  const memo = options.cache
    ? createValidationMemo(path.join(options.cache.dir, 'validated'), use)
    : NO_VALIDATION_MEMO;
  const repo = await loadRepository(
    repoRoot,
    memo,
    options.fillingRepository === undefined ? {} : { fillingRepository: options.fillingRepository },
  );
  // A lock that names configured local repositories by their path (an older capi-render) keeps its pins.
  const { lock, renamed } = withPathlessLocalSources(options.lock?.lock ?? emptyLock(), repo.config.repositories);
  if (renamed.length > 0) repo.warnings.push(pathNamedLocalSources(renamed));
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
        // From the variable capi-render.yaml names, else clusterctl's GITLAB_ACCESS_TOKEN; never stored.
        gitlabToken: options.env?.[repo.config.gitlab.accessToken?.fromEnv ?? GITLAB_TOKEN_ENV] || undefined,
        fetch: options.fetch,
        onProgress: options.onProgress,
        ...(options.env ? { registryCredentials: dockerCredentials(options.env) } : {}),
      }),
    lock,
    lockEvidence: { text: options.lock?.text, rule: options.lockContradictions ?? 'repair' },
    images: createImageResolver({
      locked: new Map((lock.images ?? []).map((i) => [i.image, i])),
      repoRoot,
      offline: options.offline ?? false,
      evidenceRule: options.lockContradictions ?? 'repair',
      ...(options.lock?.text !== undefined ? { lockText: options.lock.text } : {}),
      ...(options.refreshImages ? { refresh: options.refreshImages } : {}),
      registry: (policy) =>
        registryForPolicy(policy, { env: options.env ?? {}, fetch: options.fetch as typeof fetch | undefined }),
    }),
    ...(options.cache ? { parseCache: createParseCache(options.cache.dir, use) } : {}),
    allowDowngrade: options.allowDowngrade ?? false,
    // Offline no other source can serve a release: the folder being filled is read (copying it onto itself changes nothing).
    ...(options.fillingRepository !== undefined && !options.offline
      ? { fillingRepository: path.resolve(options.fillingRepository) }
      : {}),
    pin: {
      locked: (source, version, file) => lockedArtifacts.get(artifactKey(source, version, file)),
      cache: options.cache,
      ...(options.cache ? { index: createReleaseIndexCache(options.cache.dir, use) } : {}),
      ...(options.now ? { now: options.now } : {}),
      offline: options.offline ?? false,
    },
  });
  const overlays = memoizedOverlayLoader(memo);
  const { allEnvironments, discovered, wanted } = await selectEnvironments(
    repoRoot,
    repo.config.overlaysDir,
    overlays,
    options,
  );
  const { compose, context: composeCtx } = composer(repoRoot, repo, overlays);
  const outputDir = path.resolve(repoRoot, repo.config.outputDir);
  const committed = committedOutputReader(repoRoot, outputDir);
  const sopsSealer = createLazySopsSealer({
    repoRoot,
    outputDir,
    env: options.env ?? {},
    check: options.verifySopsRecords ?? false,
  });
  const sops = usesSops(repo.config.secrets);
  const inputFiles = await inputFileDigests(repoRoot, { ...repo.config, ...(sops ? { sops } : {}) });
  const buildHash = buildInputsHash(repo, inputFiles);
  const tag = (name: string, d: Diagnostic): Diagnostic =>
    allEnvironments.length > 1 || name !== DEFAULT_ENVIRONMENT ? { ...d, message: `[${name}] ${d.message}` } : d;

  // Composing is cheap and decides what the build touches; a composition error is kept for phase 2,
  // so it is reported with the rendering errors of the other environments, as before.
  const planned: { name: string; composed?: ComposedEnvironment; problem?: unknown }[] = [];
  const skipped: string[] = [];
  const unchangedInputs: string[] = [];
  // Per environment, its verify rules with their keys' bytes: a hash input no input file holds.
  const verificationByEnv = new Map<string, string>();
  // Environments mostly share their verify rules: each distinct set's key files and trusted root are read once.
  const verificationParts = new Map<string, Promise<string>>();
  const verificationPart = (policy: ImagePolicyConfig) => {
    const key = JSON.stringify([policy.verify ?? [], policy.trustedRoot ?? '']);
    let part = verificationParts.get(key);
    if (!part) verificationParts.set(key, (part = verificationInputs(repoRoot, policy)));
    return part;
  };
  const reads = new Set<string>();
  const composedByName = new Map<string, ComposedEnvironment>();
  let skippable = buildHash !== '';
  const lockedEnvironments = new Map(lock.environments.map((e) => [e.name, e]));
  for (const entry of wanted) {
    try {
      const composed = await compose(entry);
      const verification = await verificationPart({ ...repo.config.imagePolicy, ...composed.imagePolicy });
      verificationByEnv.set(entry.name, verification);
      const inputsHash = environmentInputsHash(
        buildHash,
        composed,
        lockedEnvironments.get(entry.name)?.providers,
        lock.artifacts,
        lockedImagesOf(lock, entry.name),
        verification,
      );
      for (const r of composed.reads) reads.add(r);
      composedByName.set(entry.name, composed);
      if (
        Object.values(composed.variables).some((v) => typeof v === 'object') ||
        hasSecretReferences(composed.inputs.secrets)
      )
        skippable = false;
      if (inputsHash && lockedEnvironments.get(entry.name)?.inputs === inputsHash) {
        if (options.skipUnchanged?.(entry.name, inputsHash)) {
          skipped.push(entry.name);
          continue;
        }
        unchangedInputs.push(entry.name);
      }
      planned.push({ name: entry.name, composed });
    } catch (e) {
      if (!(e instanceof RenderError)) throw e;
      planned.push({ name: entry.name, problem: e });
      skippable = false;
    }
  }

  // The loading edge of values given by reference in Secret inputs (secrets/secret-references.ts).
  const references = createReferenceReader({ repoRoot, env: options.env ?? {} });
  const environmentInputs = async (name: string, composed: ComposedEnvironment): Promise<EnvironmentInputs> => ({
    name,
    inputs: { ...composed.inputs, secrets: await references.resolve(composed.inputs.secrets) },
    certManager: { ...repo.config.certManager, ...composed.certManager },
    variables: composed.variables,
    images: composed.images,
    imagePolicy: { ...repo.config.imagePolicy, ...composed.imagePolicy },
    labels: composed.labels,
    file: composed.chain.at(-1),
    overlays: composed.chain,
    committed: committed(name),
  });
  const renderOne = async (
    name: string,
    composed: ComposedEnvironment,
    gitopsMemo: GitopsMemo,
  ): Promise<RenderedOutput> => {
    const rendered = await renderEnvironment(await environmentInputs(name, composed), session);
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
    const gitopsFiles: OutputFiles = new Map(gitops.files);
    if (rendered.requiredSecrets.length > 0)
      gitopsFiles.set(`secrets/${name}.required.yaml`, requiredSecretsText(name, rendered.requiredSecrets));
    const result: EnvironmentResult = {
      ...rendered,
      environment: gitops.environment,
      gitopsFlavour: gitopsSettings.flavour ?? 'kustomize',
      labels: composed.labels,
      warnings: [...rendered.warnings, ...gitops.warnings.map((d) => tag(name, d))],
    };
    const files = planEnvironment(result.environment, session.serializer);
    // `secrets.mode: sops`: marked Secrets become their encrypted documents, in the files and the objects alike.
    const sealed = await sopsSealer.seal(result.environment, files, result.gitopsFlavour ?? 'kustomize');
    const final: EnvironmentResult =
      sealed.environment === result.environment
        ? result
        : {
            ...result,
            environment: sealed.environment,
            warnings: [...result.warnings, ...sealed.warnings.map((d) => tag(name, d))],
          };
    // `sbom: {write: true}`: the environment's SBOM is one more planned file (sbom/sbom-output.ts).
    return { result: final, files: repo.config.sbom?.write ? withSbomFile(files, final) : files, gitopsFiles };
  };

  return {
    config: repo.config,
    outputDir,
    gitopsDir: path.resolve(repoRoot, repo.config.gitopsDir),
    allEnvironments,
    rendering: planned.map((p) => p.name),
    skipped,
    unchangedInputs,
    stamp: skippable
      ? {
          dirs: {
            providersDir: repo.config.providersDir,
            overlaysDir: repo.config.overlaysDir,
            templatesDir: repo.config.templatesDir,
            ...(sops ? { sops } : {}),
          },
          inputFiles,
          reads: [...reads].sort(),
          environments: allEnvironments,
        }
      : undefined,
    inputFiles,
    inputsHashFor(env, against) {
      const composed = composedByName.get(env);
      const providers = against.environments.find((e) => e.name === env)?.providers;
      return composed && providers
        ? environmentInputsHash(
            buildHash,
            composed,
            providers,
            against.artifacts,
            lockedImagesOf(against, env),
            verificationByEnv.get(env),
          )
        : undefined;
    },
    async resolve(onEnvironment) {
      const problems: EnvironmentProblem[] = [];
      const warnings: Diagnostic[] = [...repo.warnings];
      for (const { name, composed, problem } of planned) {
        try {
          if (problem) throw problem;
          const inputs = await environmentInputs(name, composed!);
          const resolved = await resolveEnvironment(inputs, session);
          warnings.push(...resolved.warnings);
          if (problems.length === 0)
            onEnvironment({ inputs, providers: resolved.ready, variables: session.config.variables, env: session.env });
        } catch (e) {
          if (!(e instanceof RenderError)) throw e;
          problems.push(...e.diagnostics.map((diagnostic) => ({ environment: name, diagnostic })));
        }
      }
      throwIfErrors(mergeProblems(problems, allEnvironments.length > 1 || allEnvironments[0] !== DEFAULT_ENVIRONMENT));
      return { warnings };
    },
    async renderEach(onEnvironment) {
      const problems: EnvironmentProblem[] = [];
      const warnings: Diagnostic[] = [...repo.warnings];
      const entries: RenderedLockEntries[] = [];
      const gitopsMemo: GitopsMemo = new WeakMap();
      for (const { name, composed, problem } of planned) {
        let output: RenderedOutput;
        try {
          if (problem) throw problem;
          output = await renderOne(name, composed!, gitopsMemo);
        } catch (e) {
          if (!(e instanceof RenderError)) throw e;
          problems.push(...e.diagnostics.map((diagnostic) => ({ environment: name, diagnostic })));
          continue;
        }
        warnings.push(...output.result.warnings);
        // The stored hash covers the lock entries this build leaves, so an unchanged next build matches it.
        const e = lockEntriesOf(output.result);
        entries.push({
          ...e,
          inputs: environmentInputsHash(
            buildHash,
            composed!,
            e.providers,
            e.artifacts,
            e.images,
            verificationByEnv.get(name),
          ),
        });
        // A failure of the caller (a write) ends the run at once.
        if (problems.length === 0) await onEnvironment(output);
      }
      throwIfErrors(mergeProblems(problems, allEnvironments.length > 1 || allEnvironments[0] !== DEFAULT_ENVIRONMENT));
      if (session.images.rekeyed().size > 0) warnings.push(rekeyedImagesWarning(session.images.rekeyed()));
      const fleet = await Promise.all(
        discovered.map((entry) => fleetMember(entry, composedByName.get(entry.name), repo.config.gitops, composeCtx)),
      );
      const fleetGitopsFiles = runFleetStage(fleet, {
        repoRoot,
        outputDir: repo.config.outputDir,
        templatesDir: repo.config.templatesDir,
      });
      return {
        lock: nextLock(lock, entries, allEnvironments, inputFiles, lockEmulates(baselineOf(repo.config.emulate))),
        warnings,
        fleetGitopsFiles,
      };
    },
  };
}

/** The Docker credential chain over `env`: the catalog's registry credentials for `oci://` provider URLs. */
function dockerCredentials(env: Readonly<Record<string, string | undefined>>) {
  return async (registry: string) => (await createDockerCredentials({ env }).lookup(registry)).credentials;
}
