/**
 * Downloads files of GitLab generic packages with Node's fetch, as clusterctl's GitLab repository
 * does (`repository_gitlab.go` GetFile): one GET per file, the token (clusterctl's
 * `gitlab-access-token`) as `Authorization: Bearer`, a 30-second timeout, no retries, and
 * clusterctl's messages — its own one for a 401. A file is read up to the release-file limit
 * (128 MiB, source/http/body-limits.ts) and no further; error answers are not read. It also lists
 * a package's versions through the Packages API (gitlab-packages.ts), which clusterctl does not.
 *
 * Design notes: docs/internals.md "source/gitlab/gitlab-client.ts".
 */
import { FetchError, error, peerWording, type DiagnosticCode } from '../../errors.js';
import type { FetchProgress, FetchProgressListener } from '../fetch-progress.js';
import { networkReason, unreachableHint, unreachableTarget } from '../network-failure.js';
import { createEtagCache } from '../github/github-etag.js';
import { RELEASE_ASSET_LIMIT } from '../http/body-limits.js';
import { BodyLimitError, readBody } from '../http/bounded-body.js';
import type { FetchLike } from '../http/network-fetch.js';
import { TOKEN_HINT, gitLabHeaders, redactSecret as redact, shownUrl as shown } from './gitlab-http.js';
import { listPackageVersions, type GitLabPackageRef } from './gitlab-packages.js';

export type { FetchLike };
export type { GitLabPackageRef };
export { GITLAB_TOKEN_ENV, GITLAB_TOKEN_VARIABLE } from './gitlab-http.js';

export interface GitLabClientOptions {
  /** A personal, project or deploy token with read access to the package registry. Default: none (public projects). */
  token?: string;
  /** Sends one HTTP request. Default: `globalThis.fetch`. */
  fetch?: FetchLike;
  /** How long one file (or one listing, all pages) may take, redirects and body included. Default: 30 000 ms (clusterctl's). */
  timeoutMs?: number;
  /** Progress listener (CLI output, tests). Default: none. */
  onProgress?: FetchProgressListener;
}

/** What to download, named for messages. */
export interface GitLabFileRequest {
  /** The file's URL in clusterctl's form. */
  url: string;
  /** The version segment and the file name, as clusterctl names them in its messages. */
  version: string;
  file: string;
}

export interface GitLabClient {
  /** The file's bytes; FetchError `auth` (401/403), `source-not-found` (404) or `fetch` otherwise. */
  getFile(request: GitLabFileRequest): Promise<Uint8Array>;
  /**
   * The package's versions from the Packages API (every page), sorted as strings. A listing in
   * flight is shared; each page is asked again with its last ETag. Same FetchError codes as getFile.
   */
  listVersions(pkg: GitLabPackageRef): Promise<string[]>;
}

/** Redirect hops followed at most (GitLab may redirect a package download to object storage). */
const MAX_REDIRECTS = 5;
const DEFAULT_TIMEOUT_MS = 30_000;

/** Creates a client; nothing is sent until getFile is called. */
export function createGitLabClient(options: GitLabClientOptions = {}): GitLabClient {
  const send = options.fetch ?? ((url: string, init: RequestInit) => fetch(url, init));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const emit = (event: FetchProgress): void => {
    try {
      options.onProgress?.(event);
    } catch {
      // A broken listener must not break a fetch.
    }
  };
  const etags = createEtagCache();
  const listings = new Map<string, Promise<string[]>>();

  return {
    listVersions(pkg) {
      const key = `${pkg.host}/${pkg.projectSlug}/${pkg.packageName}`;
      let pending = listings.get(key);
      if (!pending) {
        pending = listPackageVersions(pkg, { send, token: options.token, timeoutMs, emit, etags });
        listings.set(key, pending);
        // A failure is kept (the build meets it once); a success is asked again next time.
        pending.then(
          () => listings.delete(key),
          () => undefined,
        );
      }
      return pending;
    },
    async getFile(request) {
      // clusterctl's prefix for every failure of this file; users search for it.
      const prefix = `failed to get file ${JSON.stringify(request.file)} with version ${JSON.stringify(request.version)} from ${JSON.stringify(request.url)}`;
      const fail = (code: DiagnosticCode, phrase: string, detail: string, hint: string): FetchError =>
        new FetchError(
          error(code, redact(peerWording('clusterctl', phrase, detail), options.token), {
            hint: redact(hint, options.token),
          }),
        );
      const signal = AbortSignal.timeout(timeoutMs);
      const origin = new URL(request.url).origin;
      let url = request.url;
      let response: Response;
      try {
        for (let hop = 0; ; hop++) {
          const headers = gitLabHeaders(url, origin, options.token);
          emit({ type: 'request', method: 'GET', url: shown(url), attempt: 0 });
          response = await send(url, { method: 'GET', headers, redirect: 'manual', signal });
          emit({ type: 'response', method: 'GET', url: shown(url), status: response.status, cached: false });
          const location = response.headers.get('location');
          if (response.status < 300 || response.status >= 400 || location === null) break;
          await response.body?.cancel().catch(() => undefined);
          if (hop === MAX_REDIRECTS)
            throw fail(
              'fetch',
              prefix,
              `more than ${MAX_REDIRECTS} redirects`,
              'check the GitLab instance and any proxy in between',
            );
          url = new URL(location, url).toString();
        }
      } catch (cause) {
        if (cause instanceof FetchError) throw cause;
        throw unreachable(cause);
      }
      if (response.status !== 200) {
        await response.body?.cancel().catch(() => undefined);
        throw statusError(response.status);
      }
      let bytes: Uint8Array;
      try {
        bytes = await readBody(response, shown(url), RELEASE_ASSET_LIMIT);
      } catch (cause) {
        // Over the limit: its own message. Broken off or timed out: clusterctl's prefix and why.
        if (cause instanceof BodyLimitError) throw cause;
        throw unreachable(cause);
      }
      emit({ type: 'download', url: request.url, bytes: bytes.length });
      return bytes;

      function statusError(status: number): FetchError {
        if (status === 401) {
          return fail(
            'auth',
            `${prefix}: unauthorized access, please check your credentials`,
            options.token ? 'GitLab rejected the token' : 'no token was sent',
            TOKEN_HINT,
          );
        }
        const phrase = `${prefix}, got ${status}`;
        if (status === 403) return fail('auth', phrase, 'GitLab refused access', TOKEN_HINT);
        if (status === 404) {
          return fail(
            'source-not-found',
            phrase,
            `no ${request.file} in that package version`,
            `check the project, package name and version in the URL (GitLab also answers 404 for a private project without a valid token: ${TOKEN_HINT})`,
          );
        }
        if (status >= 500)
          return fail(
            'fetch',
            phrase,
            'GitLab answered a server error',
            'the GitLab instance may be down or overloaded; try again later',
          );
        return fail('fetch', phrase, 'unexpected answer', 'check the provider URL');
      }

      function unreachable(cause: unknown): FetchError {
        const timedOut = signal.aborted;
        return fail(
          'fetch',
          prefix,
          timedOut
            ? `no complete answer within ${timeoutMs / 1000} s`
            : `could not reach ${unreachableTarget(new URL(url).host, cause)} (${networkReason(cause)})`,
          timedOut
            ? 'the GitLab instance is slow or unreachable; try again later'
            : unreachableHint(new URL(url).host, networkReason(cause)),
        );
      }
    },
  };
}
