/**
 * A minimal OCI distribution-spec client for one registry, on Node's global `fetch`: ping, list
 * tags (with `Link` pagination), get a manifest (digest verified against `Docker-Content-Digest`),
 * get a blob (sha256 verified), and push blobs and manifests. Enough to read and write provider
 * artifacts the way the operator (through oras-go) does; no image-pulling features.
 */
import type { FetchProgressListener } from '../fetch-progress.js';
import { FetchError, error } from '../../errors.js';
import {
  MANIFEST_LIMIT,
  REGISTRY_JSON_LIMIT,
  UNSIZED_BLOB_LIMIT,
  blobLimit,
  type BodyLimit,
} from '../http/body-limits.js';
import { BodyLimitError, readBody, readText } from '../http/bounded-body.js';
import type { OciCredentials } from './oci-credentials.js';
import { computeOciDigest, isOciDigest, verifyOciDigest, verifyStatedDigest } from './oci-digest.js';
import { createOciHttp, type OciHttp } from './oci-http.js';
import { ACCEPTED_MANIFEST_TYPES, MEDIA_TYPE_DOCKER_MANIFEST_LIST, MEDIA_TYPE_OCI_INDEX } from './oci-media-types.js';
import { parseOciManifest, type OciManifest } from './oci-manifest.js';
import { registryHostPort } from './oci-reference.js';
import { sortVersions } from '../../declarations/versions.js';

/** One registry to talk to, and how. */
export interface OciClientOptions {
  /** `host` or `host:port`. */
  registry: string;
  plainHttp: boolean;
  credentials?: OciCredentials;
  /** Default: the global `fetch`. */
  fetchImpl?: typeof fetch;
  /** Per request, including reading the body. Default: 30 000 ms. */
  timeoutMs?: number;
  /** Progress listener (request and response of every registry request). Default: none. */
  onProgress?: FetchProgressListener;
  /**
   * An HTTP layer to use instead of making one (the other transport options are then ignored), so
   * a caller that also sends its own requests to this registry shares one token cache with the client.
   */
  http?: OciHttp;
}

/** A fetched manifest: its bytes, their verified digest and the parsed content. */
export interface FetchedManifest {
  digest: string;
  mediaType: string;
  bytes: Uint8Array;
  manifest: OciManifest;
}

/** The distribution API operations capi-render uses; every failure is a FetchError with a code. */
export interface OciClient {
  /** `host:port` of the registry (default port filled in), as messages name it. */
  readonly hostPort: string;
  /** GET /v2/: checks the registry speaks the distribution API and the credentials work. */
  ping(): Promise<void>;
  /** Every tag of the repository, in the registry's order. Unknown repository → `source-not-found`. */
  listTags(repository: string): Promise<string[]>;
  /** The manifest a tag or digest points to. Unknown tag → `version-not-found` listing the tags. */
  getManifest(repository: string, reference: string): Promise<FetchedManifest>;
  /**
   * A blob's bytes, verified against `digest` and `size`: `digest-mismatch` otherwise. Never reads
   * more than `size`, and refuses a `size` over `options.limit` before asking. Without a size, at
   * most `options.limit` is read (default: 4 MiB).
   */
  getBlob(repository: string, digest: string, size?: number, options?: { limit?: BodyLimit }): Promise<Uint8Array>;
  /** True when the repository already has the blob (HEAD). */
  hasBlob(repository: string, digest: string): Promise<boolean>;
  /** Uploads a blob (POST then PUT, monolithic) unless it exists; returns its digest. */
  pushBlob(repository: string, bytes: Uint8Array): Promise<string>;
  /** PUTs a manifest under a tag; returns its digest. */
  pushManifest(repository: string, tag: string, bytes: Uint8Array, mediaType: string): Promise<string>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const TAG_PAGE_SIZE = 1000;
const MAX_TAG_PAGES = 100;
/** How many tags a version-not-found hint shows. */
const HINT_TAGS = 20;

/** Creates a client; it keeps its token cache to itself. */
export function createOciClient(options: OciClientOptions): OciClient {
  const hostPort = registryHostPort(options);
  const http: OciHttp =
    options.http ??
    createOciHttp({
      registry: options.registry,
      hostPort,
      plainHttp: options.plainHttp,
      ...(options.credentials ? { credentials: options.credentials } : {}),
      fetchImpl: options.fetchImpl ?? fetch,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(options.onProgress ? { onProgress: options.onProgress } : {}),
    });
  const pull = (repository: string) => `repository:${repository}:pull`;
  const push = (repository: string) => `repository:${repository}:pull,push`;

  async function listTags(repository: string): Promise<string[]> {
    const tags: string[] = [];
    let target: string | URL = `/v2/${repository}/tags/list?n=${TAG_PAGE_SIZE}`;
    for (let page = 0; page < MAX_TAG_PAGES; page++) {
      const response = await http.send({
        method: 'GET',
        target,
        scope: pull(repository),
        headers: { accept: 'application/json' },
      });
      if (response.status === 404) {
        await response.body?.cancel();
        throw new FetchError(
          error('source-not-found', `registry ${hostPort} has no repository ${repository}`, {
            hint: 'check the repository path in spec.fetchConfig.oci, or publish the artifact first',
          }),
        );
      }
      if (response.status !== 200) throw await http.unexpected(response, `listing the tags of ${repository}`);
      const text = await readText(response, `registry ${hostPort}: the tag list of ${repository}`, REGISTRY_JSON_LIMIT);
      const body = parseJsonObject(text) as { tags?: unknown };
      if (Array.isArray(body.tags)) tags.push(...body.tags.filter((t): t is string => typeof t === 'string'));
      const next = nextLink(response.headers.get('link'), response.url || new URL(target, http.baseUrl).toString());
      // A Link to another origin is not followed: the credentials belong to this registry.
      if (next === undefined || next.origin !== http.baseUrl.origin) return tags;
      target = next;
    }
    return tags;
  }

  async function hasBlob(repository: string, digest: string): Promise<boolean> {
    const response = await http.send({
      method: 'HEAD',
      target: `/v2/${repository}/blobs/${digest}`,
      scope: push(repository),
    });
    await response.body?.cancel();
    if (response.status === 200) return true;
    if (response.status === 404) return false;
    throw await http.unexpected(response, `checking blob ${digest} in ${repository}`);
  }

  return {
    hostPort,
    async ping() {
      const response = await http.send({ method: 'GET', target: '/v2/', scope: '' });
      await response.body?.cancel();
      if (response.status !== 200) throw await http.unexpected(response, 'GET /v2/');
    },
    listTags,
    async getManifest(repository, reference) {
      const response = await http.send({
        method: 'GET',
        target: `/v2/${repository}/manifests/${reference}`,
        scope: pull(repository),
        headers: { accept: ACCEPTED_MANIFEST_TYPES.join(', ') },
      });
      if (response.status === 404) {
        await response.body?.cancel();
        const tags = await listTags(repository);
        throw new FetchError(
          error('version-not-found', `registry ${hostPort} has no tag ${reference} in ${repository}`, {
            hint:
              tags.length === 0
                ? 'the repository has no tags; publish the artifact first'
                : `tags there: ${formatTags(tags)}`,
          }),
        );
      }
      if (response.status !== 200)
        throw await http.unexpected(response, `fetching manifest ${repository}:${reference}`);
      const what = `manifest ${repository}:${reference} from ${hostPort}`;
      const bytes = await readBody(response, what, MANIFEST_LIMIT);
      const digest = computeOciDigest(bytes);
      const announced = response.headers.get('docker-content-digest');
      // Verify against the digest we asked for, and the one the registry states (when it is one we can compute).
      if (isOciDigest(reference)) verifyOciDigest(bytes, reference, what);
      if (announced && isOciDigest(announced)) verifyStatedDigest(bytes, announced, what);
      const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
      if (mediaType === MEDIA_TYPE_OCI_INDEX || mediaType === MEDIA_TYPE_DOCKER_MANIFEST_LIST) {
        throw new FetchError(
          error('source-unsupported', `${what} is an index (${mediaType}), not an artifact manifest`, {
            hint: 'publish the provider files as one artifact (capioperator publish or oras push)',
          }),
        );
      }
      const manifest = parseOciManifest(bytes, what);
      // Both were verified above, so this is the digest the registry addresses the manifest by.
      const resolved = isOciDigest(reference) ? reference : announced && isOciDigest(announced) ? announced : digest;
      return { digest: resolved, mediaType: mediaType || manifest.mediaType || '', bytes, manifest };
    },
    async getBlob(repository, digest, size, limits = {}) {
      const what = `blob ${digest} of ${repository} from ${hostPort}`;
      const cap = limits.limit;
      if (size !== undefined && cap !== undefined && size > cap.maxBytes) {
        throw new BodyLimitError(
          error('fetch', `${what}: its descriptor declares ${size} bytes, over ${cap.phrase}; not read`, {
            hint: cap.hint,
          }),
        );
      }
      const response = await http.send({
        method: 'GET',
        target: `/v2/${repository}/blobs/${digest}`,
        scope: pull(repository),
      });
      if (response.status !== 200) throw await http.unexpected(response, `fetching blob ${digest} of ${repository}`);
      const bytes = await readBody(response, what, size === undefined ? (cap ?? UNSIZED_BLOB_LIMIT) : blobLimit(size));
      verifyOciDigest(bytes, digest, what, size);
      return bytes;
    },
    hasBlob,
    async pushBlob(repository, bytes) {
      const digest = computeOciDigest(bytes);
      if (await hasBlob(repository, digest)) return digest;
      const start = await http.send({
        method: 'POST',
        target: `/v2/${repository}/blobs/uploads/`,
        scope: push(repository),
      });
      await start.body?.cancel();
      const location = start.headers.get('location');
      if (start.status !== 202 || !location) throw await http.unexpected(start, `starting an upload to ${repository}`);
      const upload = new URL(location, http.baseUrl);
      upload.searchParams.set('digest', digest);
      const done = await http.send({
        method: 'PUT',
        target: upload,
        scope: push(repository),
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      if (done.status !== 201 && done.status !== 204)
        throw await http.unexpected(done, `uploading blob ${digest} to ${repository}`);
      await done.body?.cancel();
      return digest;
    },
    async pushManifest(repository, tag, bytes, mediaType) {
      const digest = computeOciDigest(bytes);
      const response = await http.send({
        method: 'PUT',
        target: `/v2/${repository}/manifests/${tag}`,
        scope: push(repository),
        headers: { 'content-type': mediaType },
        body: bytes,
      });
      if (response.status !== 201) throw await http.unexpected(response, `pushing manifest ${repository}:${tag}`);
      await response.body?.cancel();
      const stored = response.headers.get('docker-content-digest');
      if (stored && isOciDigest(stored) && stored !== digest) {
        throw new FetchError(
          error(
            'digest-mismatch',
            `registry ${hostPort} stored manifest ${repository}:${tag} as ${stored}, expected ${digest}`,
          ),
        );
      }
      return digest;
    },
  };
}

/** The `rel="next"` target of a `Link` header, resolved against the request URL. */
function nextLink(header: string | null, base: string): URL | undefined {
  if (!header) return undefined;
  for (const part of header.split(',')) {
    const match = /^\s*<([^>]*)>\s*;(.*)$/.exec(part);
    if (match && /(?:^|;)\s*rel="?next"?\s*(?:;|$)/i.test(match[2] ?? '')) return new URL(match[1] ?? '', base);
  }
  return undefined;
}

/** The JSON object `text` holds, or `{}` when it holds something else (a registry's quirk, not an error). */
function parseJsonObject(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** Tags for a hint: newest version first, capped, with the count left off. */
function formatTags(tags: readonly string[]): string {
  const sorted = sortVersions([...new Set(tags)]).reverse();
  const shown = sorted.slice(0, HINT_TAGS).join(', ');
  return sorted.length > HINT_TAGS ? `${shown} … and ${sorted.length - HINT_TAGS} more` : shown;
}
