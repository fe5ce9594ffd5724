/**
 * Parsed release artifacts on disk, keyed by the sha256 of their text: a later build reads the
 * objects back (see v8-value-cache.ts) instead of parsing megabytes of CRDs again.
 */
import { createValueCache } from '../v8-value-cache.js';
import type { KubeObject } from './object.js';
import type { Resource } from './resource.js';

export interface ParseCache {
  get(sha256: string, source: string): Resource[] | undefined;
  put(sha256: string, resources: readonly Resource[]): void;
}

export function createParseCache(cacheDir: string): ParseCache {
  const values = createValueCache(cacheDir, 'parsed');
  return {
    get(sha256, source) {
      const entries = values.get(sha256);
      if (!Array.isArray(entries)) return undefined;
      return (entries as [number, KubeObject][]).map(([document, object]) => ({ object, origin: { source, document } }));
    },
    put(sha256, resources) {
      values.put(sha256, resources.map((r) => [r.origin.document, r.object]));
    },
  };
}
