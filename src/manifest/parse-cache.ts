/**
 * Parsed release artifacts on disk, so a later build reads objects back (see v8-value-cache.ts)
 * instead of parsing megabytes of CRDs again. Three kinds of entry, each keyed by a sha256 of the
 * text it was made from:
 *  - a whole text parsed (cert-manager, installed as published);
 *  - the constant parts of a components template (the documents no variable reaches: the same for
 *    every environment), one entry per template;
 *  - one substituted part that is large enough to be worth reading back rather than parsing.
 * Only texts without a secret value may be stored (the session decides; see render/session.ts).
 */
import { createHash } from 'node:crypto';
import { readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { CacheUse } from '../cache/cache-use.js';
import { createValueCache } from '../v8-value-cache.js';
import type { KubeObject } from './object.js';
import type { ParsedPart } from './parse.js';
import type { Resource } from './resource.js';

export interface ParseCache {
  get(sha256: string, source: string): Resource[] | undefined;
  put(sha256: string, resources: readonly Resource[]): void;
  /** Removes the entry for `sha256`, if any: one stored for a text that now holds a secret value. */
  delete(sha256: string): void;
  /** The constant parts of the template `key` (by part index; null for parts with variables). */
  getParts(key: string): (ParsedPart | null)[] | undefined;
  putParts(key: string, parts: readonly (ParsedPart | null)[]): void;
  /** One substituted part, by its text. */
  getPart(text: string): ParsedPart | undefined;
  putPart(text: string, part: ParsedPart): void;
  /** Removes a substituted part's entry: its text now holds a secret value. */
  deletePart(text: string): void;
}

/**
 * `parsed2`: the folders of entries made since texts holding secret values are kept out. Folders of
 * the earlier layout (`parsed-v8-*`, any V8 version) may hold substituted secret values, so they are removed rather than read.
 */
const KIND = 'parsed2';
const LEGACY_FOLDER = /^parsed-v8-/;
/** Part entries are keyed apart from whole texts; bump when the way templates are cut changes. */
const PARTS_KEY = 'capi-render document parts v1\u0000';
const PART_KEY = 'capi-render document part v1\u0000';

export function createParseCache(cacheDir: string, use?: CacheUse): ParseCache {
  removeLegacyFolders(cacheDir);
  const values = createValueCache(cacheDir, KIND, use);
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  return {
    get(sha256, source) {
      const entries = values.get(sha256);
      if (!Array.isArray(entries)) return undefined;
      return (entries as [number, KubeObject][]).map(([document, object]) => ({
        object,
        origin: { source, document },
      }));
    },
    put(sha256, resources) {
      values.put(
        sha256,
        resources.map((r) => [r.origin.document, r.object]),
      );
    },
    delete(sha256) {
      values.delete(sha256);
    },
    getParts(key) {
      const entry = values.get(sha(PARTS_KEY + key));
      return Array.isArray(entry) && entry.every((p) => p === null || isParsedPart(p))
        ? (entry as (ParsedPart | null)[])
        : undefined;
    },
    putParts(key, parts) {
      values.put(sha(PARTS_KEY + key), parts);
    },
    getPart(text) {
      const entry = values.get(sha(PART_KEY + text));
      return isParsedPart(entry) ? entry : undefined;
    },
    putPart(text, part) {
      values.put(sha(PART_KEY + text), part);
    },
    deletePart(text) {
      values.delete(sha(PART_KEY + text));
    },
  };
}

function isParsedPart(value: unknown): value is ParsedPart {
  const p = value as ParsedPart | null;
  return (
    typeof p === 'object' &&
    p !== null &&
    Array.isArray(p.documents) &&
    typeof p.nodes === 'number' &&
    typeof p.valid === 'boolean'
  );
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
