/**
 * A small GitHub REST client for release listing and asset download, over the octokit transport
 * in github-transport.ts (retries, rate limits, ETags). Each client owns its state — the Octokit
 * instance, an ETag cache and a throttling group id — so two clients never share anything and
 * tests need no resets (unlike clusterctl's package-level caches).
 *
 * Design notes: docs/internals.md "source/github/github-client.ts".
 */
import { FetchError, error } from '../../errors.js';
import { RELEASE_ASSET_LIMIT, type BodyLimit } from '../http/body-limits.js';
import { BodyLimitError, readBody } from '../http/bounded-body.js';
import type { GitHubClientOptions } from './github-client-options.js';
import { toGitHubRelease, toGitHubReleases, type GitHubAsset, type GitHubRelease } from './github-release.js';
import { createGitHubTransport } from './github-transport.js';

export type { GitHubClientOptions } from './github-client-options.js';

/** The GitHub calls a release source needs. Methods throw FetchError (codes `fetch`, `auth`, `rate-limit`, `source-not-found`). */
export interface GitHubClient {
  /** The API base URL in use, without a trailing slash. */
  readonly baseUrl: string;
  /** Every release of the repository (all pages, 100 per page), drafts included, in API order. */
  listReleases(owner: string, repo: string): Promise<GitHubRelease[]>;
  /** The release with this tag, or undefined when GitHub has none (404). */
  getReleaseByTag(owner: string, repo: string, tag: string): Promise<GitHubRelease | undefined>;
  /** The asset's bytes, exactly as uploaded; follows the API's redirect without sending credentials. */
  downloadAsset(owner: string, repo: string, asset: GitHubAsset): Promise<Uint8Array>;
}

/** Pages followed at most per listing: 10 000 releases, far beyond any provider, but bounded. */
const MAX_PAGES = 100;

/** Creates a client; nothing is sent until a method is called. */
export function createGitHubClient(options: GitHubClientOptions = {}): GitHubClient {
  const { baseUrl, send, display, emit } = createGitHubTransport(options);
  const listings = new Map<string, Promise<GitHubRelease[]>>();
  const listAll = async (owner: string, repo: string): Promise<GitHubRelease[]> => {
    const first = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/releases?per_page=100`;
    const releases: GitHubRelease[] = [];
    const seen = new Set<string>();
    let next: string | undefined = first;
    while (next !== undefined && !seen.has(next) && seen.size < MAX_PAGES) {
      seen.add(next);
      const response = await send({ method: 'GET', url: next });
      if (!response) throw notFound(`repository ${owner}/${repo} was not found at ${baseUrl}`);
      releases.push(...toGitHubReleases(response.data, `${owner}/${repo} releases`));
      next = nextPageUrl(response.headers['link']);
    }
    return releases;
  };

  return {
    baseUrl,
    listReleases(owner, repo) {
      // Several providers share one repository (core, kubeadm and docker are all cluster-api's
      // releases): a listing in flight is shared, and a failed one is kept, so the build meets the
      // failure once instead of once per provider. A successful one is asked again next time
      // (an ETag revalidation, nearly free), so the list is never stale.
      const key = `${owner}/${repo}`;
      let pending = listings.get(key);
      if (!pending) {
        pending = listAll(owner, repo);
        listings.set(key, pending);
        pending.then(
          () => listings.delete(key),
          () => undefined,
        );
      }
      return pending;
    },
    async getReleaseByTag(owner, repo, tag) {
      const url = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/releases/tags/${encodeURIComponent(tag)}`;
      const response = await send({ method: 'GET', url });
      return response && toGitHubRelease(response.data, `${owner}/${repo} release ${tag}`);
    },
    async downloadAsset(owner, repo, asset) {
      const url = `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/releases/assets/${asset.id}`;
      const octetStream = { accept: 'application/octet-stream' };
      const limit = assetLimit(asset, `asset ${asset.name} of ${owner}/${repo}`);
      // Manual redirect: fetch would follow a same-origin redirect with the Authorization header
      // still attached; the download host is given no credentials at all, as clusterctl does.
      const apiSpec = {
        method: 'GET',
        url,
        headers: octetStream,
        request: { redirect: 'manual', parseSuccessResponseBody: false },
        limit,
      } as const;
      let shown = display(apiSpec);
      const gone = (): FetchError =>
        notFound(`asset ${asset.name} (id ${asset.id}) of ${owner}/${repo} is gone from ${shown}`);
      const first = await send(apiSpec);
      if (!first) throw gone();
      let body = first.data;
      if (first.status >= 300 && first.status < 400) {
        await cancelBody(first.data);
        const location = first.headers['location'];
        if (typeof location !== 'string') throw unexpected(`${shown} answered ${first.status} without a Location`);
        const blobSpec = {
          method: 'GET',
          url: new URL(location, display(apiSpec)).toString(),
          headers: octetStream,
          request: { parseSuccessResponseBody: false, anonymous: true },
          limit,
        } as const;
        shown = display(blobSpec);
        const blob = await send(blobSpec);
        if (!blob) throw gone();
        body = blob.data;
      }
      const bytes = await assetBytes(body, shown, limit);
      if (asset.size > 0 && bytes.length !== asset.size) {
        throw unexpected(`${shown} delivered ${bytes.length} bytes, the asset has ${asset.size}`);
      }
      emit({ type: 'download', url: asset.browserDownloadUrl || shown, bytes: bytes.length });
      return bytes;
    },
  };
}

/** The `rel="next"` target of a Link header, if any. */
export function nextPageUrl(link: string | number | undefined): string | undefined {
  if (typeof link !== 'string') return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match?.[1]) return match[1];
  }
  return undefined;
}

function notFound(message: string): FetchError {
  return new FetchError(
    error('source-not-found', message, {
      hint: 'check owner and repository in the provider URL; a private repository needs a token with read access',
    }),
  );
}

function unexpected(message: string): FetchError {
  return new FetchError(error('fetch', message, { hint: 'retry; if it persists, the download host is misbehaving' }));
}

async function cancelBody(body: unknown): Promise<void> {
  if (body instanceof ReadableStream) await body.cancel().catch(() => undefined);
}

/**
 * How much of an asset is read: the size the release lists for it (never more), refused before
 * any request when that is over the release-file limit; without a listed size, that limit.
 */
function assetLimit(asset: GitHubAsset, what: string): BodyLimit {
  if (asset.size > RELEASE_ASSET_LIMIT.maxBytes) {
    throw new BodyLimitError(
      error(
        'fetch',
        `${what}: the release lists ${asset.size} bytes, over ${RELEASE_ASSET_LIMIT.phrase}; not downloaded`,
        { hint: RELEASE_ASSET_LIMIT.hint },
      ),
    );
  }
  if (asset.size <= 0) return RELEASE_ASSET_LIMIT;
  return {
    maxBytes: asset.size,
    phrase: `the ${asset.size} bytes the release lists for it`,
    hint: 'the download host sent more than the release lists; retry, and check any proxy between here and it',
  };
}

/** The asset's bytes from octokit's unparsed body (the transport already read it under `limit`). */
async function assetBytes(body: unknown, from: string, limit: BodyLimit): Promise<Uint8Array> {
  if (body instanceof ReadableStream) return readBody(new Response(body), from, limit);
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (typeof body === 'string') return new TextEncoder().encode(body);
  return new Uint8Array(0);
}
