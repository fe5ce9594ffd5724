/**
 * What one build does with the cache folder: which entries it read or wrote (a prune at its end must
 * never remove those: "never evict what the current build uses") and whether it added anything (only
 * then can the folder have grown past its limit). Reading an entry also marks it used now — its
 * modification time is the "last used" time least-recently-used eviction goes by (access times are
 * unreliable: most systems mount with relatime or noatime).
 */
import { utimesSync } from 'node:fs';

export interface CacheUse {
  /** An entry was read: mark it used by this build, and used now. */
  read(file: string): void;
  /** An entry was written (created or replaced) by this build. */
  wrote(file: string): void;
  /** Entries this build read or wrote (absolute paths). */
  readonly used: ReadonlySet<string>;
  /** Whether this build wrote any entry. */
  readonly grew: boolean;
}

export function createCacheUse(now: () => Date = () => new Date()): CacheUse {
  const used = new Set<string>();
  let grew = false;
  return {
    read(file) {
      if (used.has(file)) return;
      used.add(file);
      try {
        const t = now();
        utimesSync(file, t, t);
      } catch {
        // Gone meanwhile (another build pruned it) or not ours to touch: it was read all the same.
      }
    },
    wrote(file) {
      used.add(file);
      grew = true;
    },
    used,
    get grew() {
      return grew;
    },
  };
}
