/**
 * A content-addressed cache of release artifacts on disk: `<dir>/sha256/<hex>`. Entries are verified
 * on read, so a corrupted cache file is ignored rather than trusted. The cache is an object handed
 * to the build (never module state); the lock file says which digest an artifact must have. It
 * holds fetched release files only — bytes as published, before any substitution — owner-only
 * (see private-files.ts).
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CacheUse } from '../cache/cache-use.js';
import { makePrivateDir, writePrivateFile } from '../private-files.js';

export interface ArtifactCache {
  readonly dir: string;
  /** What this build reads and writes in the cache folder (the caches made from this one share it). */
  readonly use?: CacheUse;
  /** The bytes with this sha256, or undefined when absent (or corrupted). */
  get(sha256: string): Promise<Uint8Array | undefined>;
  /** Stores bytes; returns their sha256. */
  put(bytes: Uint8Array): Promise<string>;
}

export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * The default cache folder: `$CAPI_RENDER_CACHE_DIR`, else `$XDG_CACHE_HOME/capi-render`, else
 * `~/.cache/capi-render`.
 */
export function defaultCacheDir(env: Readonly<Record<string, string | undefined>>): string {
  if (env.CAPI_RENDER_CACHE_DIR) return path.resolve(env.CAPI_RENDER_CACHE_DIR);
  if (env.XDG_CACHE_HOME) return path.join(env.XDG_CACHE_HOME, 'capi-render');
  return path.join(env.HOME || os.homedir(), '.cache', 'capi-render');
}

export function createArtifactCache(dir: string, use?: CacheUse): ArtifactCache {
  const fileOf = (sha256: string) => path.join(dir, 'sha256', sha256);
  return {
    dir,
    ...(use ? { use } : {}),
    async get(sha256) {
      if (!/^[0-9a-f]{64}$/.test(sha256)) return undefined;
      const bytes = await fs.readFile(fileOf(sha256)).catch(() => undefined);
      if (!bytes || sha256Hex(bytes) !== sha256) return undefined;
      use?.read(fileOf(sha256));
      return new Uint8Array(bytes);
    },
    async put(bytes) {
      const sha256 = sha256Hex(bytes);
      const target = fileOf(sha256);
      if (
        await fs.stat(target).then(
          () => true,
          () => false,
        )
      ) {
        use?.read(target);
        return sha256;
      }
      await makePrivateDir(path.dirname(target));
      // Written then renamed, so a concurrent reader never sees half a file.
      await writePrivateFile(target, bytes);
      use?.wrote(target);
      return sha256;
    },
  };
}
