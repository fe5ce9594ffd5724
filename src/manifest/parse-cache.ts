/**
 * Parsed release artifacts on disk, keyed by the sha256 of their text: a later build reads the
 * objects back with v8's structured deserialisation (exact — numbers, -0, Infinity — and several
 * times faster than parsing the YAML again) instead of parsing megabytes of CRDs. Content-addressed
 * and write-then-rename, so a stale or half-written entry can never be read; a corrupted one is
 * ignored. Lives in the artifact cache folder, keyed by the V8 version that wrote it.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { deserialize, serialize } from 'node:v8';
import type { KubeObject } from './object.js';
import type { Resource } from './resource.js';

export interface ParseCache {
  get(sha256: string, source: string): Resource[] | undefined;
  put(sha256: string, resources: readonly Resource[]): void;
}

export function createParseCache(cacheDir: string): ParseCache {
  const dir = path.join(cacheDir, `parsed-v8-${process.versions.v8}`);
  const fileOf = (sha256: string) => path.join(dir, `${sha256}.bin`);
  return {
    get(sha256, source) {
      let entries: unknown;
      try {
        entries = deserialize(readFileSync(fileOf(sha256)));
      } catch {
        return undefined;
      }
      if (!Array.isArray(entries)) return undefined;
      return (entries as [number, KubeObject][]).map(([document, object]) => ({ object, origin: { source, document } }));
    },
    put(sha256, resources) {
      try {
        mkdirSync(dir, { recursive: true });
        const target = fileOf(sha256);
        const tmp = `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
        writeFileSync(tmp, serialize(resources.map((r) => [r.origin.document, r.object])));
        renameSync(tmp, target);
      } catch {
        // A cache that cannot be written only costs time next build.
      }
    },
  };
}
