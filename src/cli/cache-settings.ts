/**
 * Where the cache folder is and how large it may grow, from flags and the environment, in one
 * place: `--cache-dir`, else `$CAPI_RENDER_CACHE_DIR`, `$XDG_CACHE_HOME/capi-render` or
 * `~/.cache/capi-render`; the limit from `$CAPI_RENDER_CACHE_MAX_SIZE` (default 512 MiB).
 */
import path from 'node:path';
import { UsageError } from '../errors.js';
import { parseSize } from '../cache/cache-size.js';
import { DEFAULT_CACHE_MAX_BYTES } from '../cache/prune-cache.js';
import { defaultCacheDir } from '../source/artifact-cache.js';
import type { CommandContext } from './command.js';

export const CACHE_MAX_SIZE_VARIABLE = 'CAPI_RENDER_CACHE_MAX_SIZE';

export interface CacheSettings {
  dir: string;
  maxBytes: number;
  /** How the folder was chosen, for messages (`--cache-dir`, `$CAPI_RENDER_CACHE_DIR`, …). */
  chosenBy: string;
}

export function cacheSettings(ctx: {
  io: CommandContext['io'];
  values: { readonly 'cache-dir'?: string | undefined };
}): CacheSettings {
  const { io, values } = ctx;
  const flag = values['cache-dir'];
  const dir = flag ? path.resolve(io.cwd, flag) : defaultCacheDir(io.env);
  const chosenBy = flag
    ? '--cache-dir'
    : io.env.CAPI_RENDER_CACHE_DIR
      ? '$CAPI_RENDER_CACHE_DIR'
      : 'the default cache folder';
  const text = io.env[CACHE_MAX_SIZE_VARIABLE];
  let maxBytes = DEFAULT_CACHE_MAX_BYTES;
  if (text !== undefined && text !== '') {
    const parsed = parseSize(text);
    if (parsed === undefined)
      throw new UsageError(
        `${CACHE_MAX_SIZE_VARIABLE}=${text} is not a size; write it like 512M, 2G or 1048576 (bytes)`,
      );
    maxBytes = parsed;
  }
  return { dir, maxBytes, chosenBy };
}
