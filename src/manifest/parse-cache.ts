/**
 * Parsed release artifacts on disk, keyed by the sha256 of their text: a later build reads the
 * objects back (see v8-value-cache.ts) instead of parsing megabytes of CRDs again. Only texts
 * without a secret value may be stored (the session decides; see render/session.ts).
 */
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { createValueCache } from '../v8-value-cache.js';
import type { KubeObject } from './object.js';
import type { Resource } from './resource.js';

export interface ParseCache {
  get(sha256: string, source: string): Resource[] | undefined;
  put(sha256: string, resources: readonly Resource[]): void;
  /** Removes the entry for `sha256`, if any: one stored for a text that now holds a secret value. */
  delete(sha256: string): void;
}

/**
 * `parsed2`: the folders of entries made since texts holding secret values are kept out. Folders of
 * the earlier layout (`parsed-v8-*`, any V8 version) may hold substituted secret values — issue 17 —
 * so they are removed rather than read.
 */
const KIND = 'parsed2';
const LEGACY_FOLDER = /^parsed-v8-/;

export function createParseCache(cacheDir: string): ParseCache {
  removeLegacyFolders(cacheDir);
  const values = createValueCache(cacheDir, KIND);
  return {
    get(sha256, source) {
      const entries = values.get(sha256);
      if (!Array.isArray(entries)) return undefined;
      return (entries as [number, KubeObject][]).map(([document, object]) => ({ object, origin: { source, document } }));
    },
    put(sha256, resources) {
      values.put(sha256, resources.map((r) => [r.origin.document, r.object]));
    },
    delete(sha256) {
      values.delete(sha256);
    },
  };
}

/** Best effort: a missing cache folder has none, and one we may not remove only stays. */
function removeLegacyFolders(cacheDir: string): void {
  let entries: string[];
  try {
    entries = readdirSync(cacheDir);
  } catch {
    return;
  }
  for (const entry of entries) {
    if (!LEGACY_FOLDER.test(entry)) continue;
    try {
      rmSync(path.join(cacheDir, entry), { recursive: true, force: true });
    } catch {
      // Left for the next build to try again.
    }
  }
}
