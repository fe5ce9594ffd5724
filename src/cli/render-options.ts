/** Flags shared by every command that renders: turn them into library options, in one place. */
import { readLockState, type LockState } from '../lock/lock-state.js';
import { SpecError, error } from '../errors.js';
import { finishInterruptedWrite, hasInterruptedWrite } from '../output/transaction.js';
import { WORK_DIR } from '../output/scan-output-folder.js';
import { refuseIrregularRepositoryFiles, type RegularOutputFolder } from '../output/regular-files.js';
import type { RenderOptions } from '../render/render-options.js';
import { createArtifactCache } from '../source/artifact-cache.js';
import { createCacheUse } from '../cache/cache-use.js';
import { cacheLocationProblem, pruneCache } from '../cache/prune-cache.js';
import { cacheSettings } from './cache-settings.js';
import { createValueCache } from '../v8-value-cache.js';
import type { CommandContext } from './command.js';
import { defineOptions } from './options.js';
import { progressReporter } from './progress.js';
import { createNetworkFetch } from '../source/http/network-fetch.js';

/** The flags of every command that renders, declared once; a command takes them all or picks some. */
export const RENDER_OPTIONS = defineOptions({
  env: { type: 'string', multiple: true, value: 'NAME', help: 'only this environment (repeatable)' },
  shard: {
    type: 'string',
    value: 'K/N',
    help: 'only the K-th of N deterministic shards of the environments (a CI matrix; the union of all shards is a full build)',
  },
  offline: { type: 'boolean', help: 'never use the network: everything must be in capi-render.lock and the cache' },
  'allow-downgrade': {
    type: 'boolean',
    help: 'accept a lower minor version than capi-render.lock records (refused by default, as the operator does)',
  },
  'cache-dir': {
    type: 'string',
    value: 'DIR',
    help: 'cache folder (default $CAPI_RENDER_CACHE_DIR, $XDG_CACHE_HOME/capi-render or ~/.cache/capi-render); kept under $CAPI_RENDER_CACHE_MAX_SIZE (default 512M)',
  },
});

/** The same, for commands that always consider every environment's versions (plan, upgrade): no --shard. */
const { shard: _shard, ...unsharded } = RENDER_OPTIONS;
export const UNSHARDED_RENDER_OPTIONS = unsharded;

/** What prepareRender reads of the values: the render flags a command has (those it lacks read as not given). */
export interface RenderFlagValues {
  readonly env?: readonly string[];
  readonly shard?: string | undefined;
  readonly offline?: boolean;
  readonly 'allow-downgrade'?: boolean;
  readonly 'cache-dir'?: string | undefined;
  /** build's `--frozen`: a lock entry the inputs contradict is refused, not repaired. */
  readonly frozen?: boolean;
}

/** The context prepareRender needs: a command's, with values that hold (some of) the render flags. */
export type RenderContext = Omit<CommandContext, 'values'> & { values: RenderFlagValues };

/** The repository's output folders as the gate listed them (regular files only). */
export interface RegularRepository {
  output: RegularOutputFolder;
  gitops: RegularOutputFolder;
}

export interface PreparedRender {
  options: RenderOptions;
  /** The output folders, listed by the gate every command passes (regular files only, no link). */
  regular: RegularRepository;
  /** capi-render.lock as read (an empty lock without a text when there is none). */
  lockState: LockState;
  /** The cache folder. */
  cacheDir: string;
  /**
   * After the render: keeps the cache folder within its limit when this build added entries (never
   * removing what it used). Best effort: a cache that cannot be pruned only stays larger.
   */
  settleCache(): Promise<void>;
}

/**
 * Reads the lock and turns flags into render options. A build killed while installing its output
 * leaves a commit marker: a command that writes (`writes`) finishes that write first, so it starts
 * from the complete new state; a read-only command refuses to read the half-installed tree. Then
 * every command passes the same gate `check` does (output/regular-files.ts): the lock, the output
 * folders and their ownership records must be regular files, reached through no link — refused
 * before any of them is read, with the same message whatever the command. `gated` is the gate's
 * listing when the caller passed it already.
 */
export async function prepareRender(
  ctx: RenderContext,
  { writes = false, gated }: { writes?: boolean; gated?: RegularRepository } = {},
): Promise<PreparedRender> {
  const { io, values, repoRoot } = ctx;
  if (writes) {
    if (await finishInterruptedWrite(repoRoot))
      io.stderr.write(
        'finished the write of an interrupted build (rendered/, gitops/ and capi-render.lock are now its complete output)\n',
      );
  } else if (await hasInterruptedWrite(repoRoot)) {
    throw new SpecError(
      error('write', 'an interrupted build left its output half-installed', {
        file: `${WORK_DIR}/`,
        hint: 'run `capi-render build`: it finishes the interrupted write first',
      }),
    );
  }
  const regular = gated ?? (await refuseIrregularRepositoryFiles(repoRoot));
  const progress = progressReporter(io);
  ctx.defer(progress.close);
  const { dir: cacheDir, maxBytes } = cacheSettings(ctx);
  const use = createCacheUse();
  const lockState = await readLockState(repoRoot, createValueCache(cacheDir, 'lock', use));
  return {
    regular,
    lockState,
    cacheDir,
    async settleCache() {
      if (!use.grew || (await cacheLocationProblem(cacheDir, { repoRoot, home: io.env.HOME }))) return;
      await pruneCache(cacheDir, { maxBytes, keep: use.used }).catch(() => undefined);
    },
    options: {
      repoRoot,
      environments: [...(values.env ?? [])],
      shard: values.shard || undefined,
      env: io.env,
      lock: lockState,
      lockContradictions: values.frozen ? 'refuse' : 'repair',
      cache: createArtifactCache(cacheDir, use),
      offline: values.offline === true,
      allowDowngrade: values['allow-downgrade'] === true,
      githubToken: io.env.GITHUB_TOKEN || io.env.GH_TOKEN || undefined,
      fetch: io.fetch ?? createNetworkFetch(io.env),
      onProgress: progress.listener,
    },
  };
}
