/**
 * Values derived from a text, kept on disk by the sha256 of that text and read back with v8's
 * structured deserialisation — exact (numbers, -0, Infinity) and several times faster than parsing
 * YAML again. Content-addressed and written then renamed, so a stale or half-written entry is never
 * read; each entry names its key and carries the sha256 of its own bytes, so an entry moved under
 * another name, or changed by as much as a bit, is a miss (a changed byte would otherwise
 * deserialise to another value, and the build would render from it). Folders are named by the V8
 * version that wrote them. Entries are owner-only (see private-files.ts); a caller must never put a value derived from a
 * secret (see session.ts: texts with a secret substituted are not cached).
 */
import { createHash } from 'node:crypto';
import { readFileSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { CacheUse } from './cache/cache-use.js';
import { makePrivateDirSync, writePrivateFileSync } from './private-files.js';

export interface ValueCache {
  /** The value stored for `sha256`, or undefined. */
  get(sha256: string): unknown;
  put(sha256: string, value: unknown): void;
  /** Removes the entry for `sha256`, if any (best effort). */
  delete(sha256: string): void;
}

/** A cache in `<cacheDir>/<kind>-v8-<V8 version>/`; `use` records what this build reads and writes. */
/** An entry starts with the sha256 of the rest. */
const CHECKSUM_BYTES = 32;

export function createValueCache(cacheDir: string, kind: string, use?: CacheUse): ValueCache {
  const dir = path.join(cacheDir, `${kind}-v8-${process.versions.v8}`);
  const fileOf = (sha256: string) => path.join(dir, `${sha256}.bin`);
  return {
    get(sha256) {
      const file = fileOf(sha256);
      let entry: unknown;
      try {
        const bytes = readFileSync(file);
        // The entry's own checksum first: a flipped bit would deserialise to another value.
        const body = bytes.subarray(CHECKSUM_BYTES);
        if (
          bytes.length < CHECKSUM_BYTES ||
          !createHash('sha256').update(body).digest().equals(bytes.subarray(0, CHECKSUM_BYTES))
        )
          return undefined;
        entry = deserialize(body);
      } catch {
        return undefined;
      }
      // The entry names the text it was derived from: one moved or copied under another name (or
      // written by an earlier format) is a miss, never another text's value.
      if (
        typeof entry !== 'object' ||
        entry === null ||
        (entry as { key?: unknown }).key !== sha256 ||
        !('value' in entry)
      )
        return undefined;
      use?.read(file);
      return entry.value;
    },
    put(sha256, value) {
      try {
        makePrivateDirSync(dir);
        const body = serialize({ key: sha256, value });
        writePrivateFileSync(fileOf(sha256), Buffer.concat([createHash('sha256').update(body).digest(), body]));
        use?.wrote(fileOf(sha256));
      } catch {
        // A cache that cannot be written only costs time next build.
      }
    },
    delete(sha256) {
      try {
        unlinkSync(fileOf(sha256));
      } catch {
        // Absent (the usual case) or not ours to remove.
      }
    },
  };
}
