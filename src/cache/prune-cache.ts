/**
 * Keeping the cache folder within its size limit: least recently used entries go first (every read
 * marks an entry used, see cache-use.ts). Only capi-render's own entries are ever removed (see
 * cache-entries.ts), one file at a time: an interrupted prune leaves a smaller, valid cache, and a
 * build reading an entry that another process just removed treats it as a miss. A build prunes when
 * it added entries, and never removes what it used itself — so a limit below one build's working
 * set keeps that working set (`cache prune`, run outside a build, goes all the way down).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { listCacheEntries, type CacheEntry } from './cache-entries.js';

/** The default limit of the cache folder (`CAPI_RENDER_CACHE_MAX_SIZE` changes it): 512 MiB. */
export const DEFAULT_CACHE_MAX_BYTES = 512 * 1024 * 1024;

export interface PruneOptions {
  maxBytes: number;
  /** Entries that stay whatever their age (the ones the current build used). */
  keep?: ReadonlySet<string>;
}

export interface PruneResult {
  removed: CacheEntry[];
  /** What is left. */
  entries: CacheEntry[];
  /** Entries that could not be removed, with the error. */
  failed: { entry: CacheEntry; error: NodeJS.ErrnoException }[];
}

export async function pruneCache(dir: string, options: PruneOptions): Promise<PruneResult> {
  const entries = await listCacheEntries(dir);
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  // Stale temporary files first, then least recently used; ties by path, so the order is stable.
  const order = [...entries].sort((a, b) => rank(a) - rank(b) || a.lastUsed - b.lastUsed || (a.file < b.file ? -1 : 1));
  const removed: CacheEntry[] = [];
  const failed: PruneResult['failed'] = [];
  for (const entry of order) {
    if (total <= options.maxBytes && entry.kind !== 'temporary') break;
    if (options.keep?.has(entry.file)) continue;
    try {
      await fs.unlink(entry.file);
    } catch (e) {
      const error = e as NodeJS.ErrnoException;
      // Gone already: another build pruned it.
      if (error.code !== 'ENOENT') {
        failed.push({ entry, error });
        continue;
      }
    }
    removed.push(entry);
    total -= entry.bytes;
  }
  const gone = new Set(removed.map((e) => e.file));
  return { removed, entries: entries.filter((e) => !gone.has(e.file)), failed };
}

function rank(entry: CacheEntry): number {
  return entry.kind === 'temporary' ? 0 : 1;
}

/**
 * Why `dir` must not be used as a cache folder that capi-render prunes, or undefined. Pruning
 * removes only its own entries, but a folder that is the file system root, the home folder itself,
 * the repository (or one of its parents) or a git working tree is a mistake worth stopping at.
 */
export async function cacheLocationProblem(
  dir: string,
  context: { repoRoot: string; home?: string },
): Promise<string | undefined> {
  const real = await fs.realpath(dir).catch(() => path.resolve(dir));
  const same = async (other: string | undefined) =>
    other !== undefined && other !== '' && real === (await fs.realpath(other).catch(() => path.resolve(other)));
  if (real === path.parse(real).root) return 'is the root of the file system';
  if (await same(context.home)) return 'is your home folder itself';
  const repo = await fs.realpath(context.repoRoot).catch(() => path.resolve(context.repoRoot));
  if (real === repo || repo.startsWith(real + path.sep))
    return real === repo ? 'is the repository' : 'holds the repository';
  if (
    await fs.lstat(path.join(real, '.git')).then(
      () => true,
      () => false,
    )
  )
    return 'holds a .git folder (a repository)';
  const stat = await fs.stat(real).catch(() => undefined);
  if (stat && !stat.isDirectory()) return 'is not a folder';
  return undefined;
}
