/**
 * Conditional-request cache for GitHub's JSON endpoints. GitHub answers `If-None-Match` with 304
 * when nothing changed, and 304s do not count against the rate limit, so repeated listings in one
 * process are almost free. The cache is an object owned by one client instance — never module
 * state — and lives only in memory (content on disk is the artifact cache's job).
 */

/** A stored successful response. */
export interface CachedResponse {
  etag: string;
  status: number;
  url: string;
  headers: Record<string, string | number | undefined>;
  data: unknown;
}

/** Map from request key to the last response that carried an ETag. */
export interface EtagCache {
  get(key: string): CachedResponse | undefined;
  set(key: string, response: CachedResponse): void;
}

/** Default capacity: enough for every page of every provider repository of a large install. */
const DEFAULT_MAX_ENTRIES = 500;

/**
 * Creates an empty cache holding at most `maxEntries` responses; the oldest entry is evicted first.
 * Default: 500 entries.
 */
export function createEtagCache(maxEntries = DEFAULT_MAX_ENTRIES): EtagCache {
  const entries = new Map<string, CachedResponse>();
  return {
    get: (key) => entries.get(key),
    set: (key, response) => {
      entries.delete(key);
      entries.set(key, response);
      // A Map iterates in insertion order, so the first key is the least recently stored one.
      while (entries.size > maxEntries) {
        const oldest = entries.keys().next().value;
        if (oldest === undefined) break;
        entries.delete(oldest);
      }
    },
  };
}

/** The cache key of a request: method, absolute URL (with query) and the media type asked for. */
export function etagKey(method: string, url: string, accept: string | undefined): string {
  return `${method.toUpperCase()} ${url} ${accept ?? ''}`;
}
