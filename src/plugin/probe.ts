/**
 * What `cmp-generate` learns about its one environment before rendering anything: its GitOps
 * flavour (and which file sets it), and whether the committed lock is current for it — in which
 * case the stream-cache key of its output (stream-cache.ts). It reads capi-render.yaml, providers/,
 * that environment's overlay chain and the lock; it never reads the other environments' overlays,
 * compiles no provider schema and fetches nothing.
 *
 * Design notes: docs/internals.md "plugin/probe.ts".
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { RenderError } from '../errors.js';
import type { GitopsFlavour } from '../gitops/options.js';
import { CONFIG_FILE } from '../config/config-types.js';
import { createCacheUse, type CacheUse } from '../cache/cache-use.js';
import { mergeGitopsConfig } from '../gitops/merge-config.js';
import { readLockState } from '../lock/lock-state.js';
import type { LockFile } from '../lock/lock-types.js';
import { WORK_DIR } from '../output/scan-output-folder.js';
import { hasInterruptedWrite } from '../output/transaction.js';
import { DEFAULT_ENVIRONMENT } from '../overlay/discover-environments.js';
import { memoizedOverlayLoader } from '../overlay/load-overlay.js';
import { OVERLAY_FILE } from '../overlay/overlay-types.js';
import { composer } from '../render/compose-environments.js';
import { inputFileDigests, usesSops } from '../render/input-file-digests.js';
import { buildInputsHash, environmentInputsHash, lockedImagesOf } from '../render/inputs-hash.js';
import { loadRepository } from '../render/load-repository.js';
import { createValidationMemo } from '../declarations/schema/validation-memo.js';
import { createValueCache } from '../v8-value-cache.js';
import { streamKey } from './stream-cache.js';

export interface EnvironmentProbe {
  /** The environment's effective flavour (`kustomize` when nothing sets one). */
  flavour: GitopsFlavour;
  /** The file whose `gitops.flavour` gives it: an overlay of its chain, or capi-render.yaml (also when nothing sets it). */
  flavourFile: string;
  /** The environment's own overlay.yaml; undefined for the implicit `default` environment. */
  overlayFile: string | undefined;
  /** The stream-cache key, when the committed lock is current for the environment. */
  streamKey: string | undefined;
}

/**
 * Probes `environment` of `repoRoot`; undefined when it cannot be composed here (an unknown name, a
 * problem in an input, an interrupted build): the full render then says what is wrong.
 */
export async function probeEnvironment(
  repoRoot: string,
  environment: string,
  cacheDir: string,
  use: CacheUse = createCacheUse(),
): Promise<EnvironmentProbe | undefined> {
  try {
    return await probe(repoRoot, environment, cacheDir, use);
  } catch (e) {
    if (e instanceof RenderError || isFileError(e)) return undefined;
    throw e;
  }
}

async function probe(
  repoRoot: string,
  environment: string,
  cacheDir: string,
  use: CacheUse,
): Promise<EnvironmentProbe | undefined> {
  if (existsSync(path.join(repoRoot, WORK_DIR)) && (await hasInterruptedWrite(repoRoot))) return undefined;
  const memo = createValidationMemo(path.join(cacheDir, 'validated'), use);
  const repo = await loadRepository(repoRoot, memo);
  const { lock } = await readLockState(repoRoot, createValueCache(cacheDir, 'lock', use));
  // The name comes from the Application: a path only when it is one plain segment.
  if (!SAFE_NAME.test(environment)) return undefined;
  const overlaysDir = repo.config.overlaysDir.replace(/\/+$/, '');
  const overlayDir = `${overlaysDir}/${environment}`;
  const inputFiles = await inputFileDigests(repoRoot, {
    ...repo.config,
    ...(usesSops(repo.config.secrets) ? { sops: true } : {}),
  });
  const overlays = memoizedOverlayLoader(memo);
  let entry: { name: string; overlayDir?: string };
  if (existsSync(path.join(repoRoot, overlayDir, OVERLAY_FILE))) {
    // An abstract overlay is a base, not an environment.
    if ((await overlays(repoRoot, `${overlayDir}/${OVERLAY_FILE}`)).spec.abstract) return undefined;
    entry = { name: environment, overlayDir };
  } else if (environment === DEFAULT_ENVIRONMENT && !inputFiles.some((f) => f.file.startsWith(`${overlaysDir}/`))) {
    entry = { name: environment };
  } else return undefined;
  const { compose } = composer(repoRoot, repo, overlays);
  const composed = await compose(entry);

  const settings = mergeGitopsConfig(repo.config.gitops, composed.gitops);
  let flavourFile = CONFIG_FILE;
  for (const file of composed.chain)
    if ((await overlays(repoRoot, file)).spec.gitops?.flavour !== undefined) flavourFile = file;
  const found: EnvironmentProbe = {
    flavour: settings.flavour ?? 'kustomize',
    flavourFile,
    overlayFile: entry.overlayDir ? `${overlayDir}/${OVERLAY_FILE}` : undefined,
    streamKey: undefined,
  };

  const locked = lock.environments.find((e) => e.name === environment);
  if (!locked || !sameFiles(lock, inputFiles) || !nothingToDrop(lock)) return found;
  const inputsHash = environmentInputsHash(
    buildInputsHash(repo, inputFiles),
    composed,
    locked.providers,
    lock.artifacts,
    lockedImagesOf(lock, environment),
  );
  if (inputsHash === undefined || inputsHash !== locked.inputs) return found;
  return {
    ...found,
    streamKey: streamKey({ environment, inputsHash, lockEntry: locked, images: lockedImagesOf(lock, environment) }),
  };
}

/** An environment name that is one path segment (overlays/<name>). */
const SAFE_NAME = /^(?!\.\.?$)[^/\\\0]+$/;

/** The lock records exactly these input files, with these digests. */
function sameFiles(lock: LockFile, files: readonly { file: string; sha256: string }[]): boolean {
  if (!lock.inputFiles || lock.inputFiles.length !== files.length) return false;
  const recorded = new Map(lock.inputFiles.map((f) => [f.file, f.sha256]));
  return files.every((f) => recorded.get(f.file) === f.sha256);
}

/** Every artifact and pinned image of the lock is used by one of its environments (a build keeps no others). */
function nothingToDrop(lock: LockFile): boolean {
  const versions = new Set(lock.environments.flatMap((e) => e.providers.map((p) => `${p.source}\u0000${p.version}`)));
  const images = new Set(lock.environments.flatMap((e) => e.images ?? []));
  return (
    lock.artifacts.every((a) => versions.has(`${a.source}\u0000${a.version}`)) &&
    (lock.images ?? []).every((i) => images.has(i.image))
  );
}

function isFileError(e: unknown): boolean {
  const err = e as NodeJS.ErrnoException | undefined;
  return typeof err?.code === 'string' && typeof err.syscall === 'string';
}
