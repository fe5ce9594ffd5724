/**
 * The HTTP layer under {@link GitHubClient}: `@octokit/core` with `@octokit/plugin-retry` (5xx and
 * network errors, (n+1)² back-off units) and `@octokit/plugin-throttling` (primary and secondary
 * rate limits, waiting what GitHub asks up to a cap), plus two hooks of our own — attempt
 * reporting, and credentials + ETag revalidation — and a fetch that reads every answer under a
 * limit before octokit sees it (source/http/bounded-body.ts). Everything lives in the returned
 * object; the only shared state is plugin-throttling's limiter groups, isolated per transport by a
 * random id.
 */
import { randomUUID } from 'node:crypto';
import type { Octokit } from '@octokit/core';
import { SpecError, error } from '../../errors.js';
import type { FetchProgress } from '../fetch-progress.js';
import type { GitHubClientOptions } from './github-client-options.js';
import { createEtagCache, etagKey } from './github-etag.js';
import { API_PAGE_LIMIT, type BodyLimit } from '../http/body-limits.js';
import { BodyLimitError, bufferResponse } from '../http/bounded-body.js';
import { isPermanentNetworkFailure } from '../network-failure.js';
import { failureStatus, redactSecret, toFetchError } from './github-errors.js';
import { GITHUB_API_BASE_URL } from './github-url.js';

/** Statuses the retry plugin must leave alone: client errors, and 429, which the throttling plugin owns. */
const DO_NOT_RETRY = [400, 401, 403, 404, 410, 422, 429, 451];

export type ResponseHeaders = Record<string, string | number | undefined>;

/** A successful (2xx/3xx) response; `data` is parsed JSON, or a ReadableStream when parsing was turned off. */
export interface RawResponse {
  status: number;
  url: string;
  headers: ResponseHeaders;
  data: unknown;
}

/**
 * One request. `url` is relative to the API base or absolute (Link targets, redirect locations).
 * Releases only read (GET); pull requests also write (POST, PATCH with a JSON `data` body), and
 * writes are never served from the ETag cache.
 */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'PATCH';
  /** JSON body of a POST/PATCH. */
  data?: unknown;
  url: string;
  headers?: Record<string, string>;
  /** `anonymous`: never attach the token (download hosts). */
  request?: { redirect?: 'manual' | 'follow'; parseSuccessResponseBody?: boolean; anonymous?: boolean };
  /** How much of a success body is read (source/http/body-limits.ts). Default: the API-answer limit (32 MiB). */
  limit?: BodyLimit;
  [parameter: string]: unknown;
}

/** What {@link GitHubTransport.display} reads from a request (ours or octokit's endpoint options). */
export interface DisplayableRequest {
  url: string;
  request?: { [option: string]: unknown };
}

export interface GitHubTransport {
  /** API base URL without a trailing slash. */
  baseUrl: string;
  /** Sends one logical request (retries included); undefined on 404; FetchError for any other failure. */
  send(spec: RequestSpec): Promise<RawResponse | undefined>;
  /**
   * The absolute URL of a spec, for messages and events. For anonymous requests (download hosts)
   * the query is dropped: it carries a signed, short-lived access grant.
   */
  display(spec: DisplayableRequest): string;
  /** Reports a progress event to the configured listener; a throwing listener is ignored. */
  emit(event: FetchProgress): void;
}

/**
 * Builds the Octokit instance and its hooks for one client. Hook order, innermost first:
 * attempt reporting → plugin-retry (5xx, network) → plugin-throttling (rate limits) → auth + ETag.
 */
export function createGitHubTransport(options: GitHubClientOptions): GitHubTransport {
  const baseUrl = (options.baseUrl ?? GITHUB_API_BASE_URL).replace(/\/+$/, '');
  const apiOrigin = originOf(baseUrl);
  const retries = options.retries ?? 3;
  const unitMs = options.retryAfterBaseMs ?? 1000;
  const maxWaitMs = options.maxRateLimitWaitMs ?? 60_000;
  const timeoutMs = options.timeoutMs ?? 60_000;
  const token = options.token;
  const emit = (event: FetchProgress): void => {
    try {
      options.onProgress?.(event);
    } catch {
      // A broken listener must not break a fetch.
    }
  };
  const warn = (message: string): void => emit({ type: 'warning', message: redactSecret(message, token) });
  const display = (spec: DisplayableRequest): string => {
    const url = new URL(spec.url.replace(/^\//, ''), `${baseUrl}/`);
    if (spec.request?.['anonymous'] === true) url.search = '';
    return url.toString();
  };

  // octokit reads every body itself, whole: each answer reaches it already read under a limit (a
  // success body under the request's limit, an error or redirect body cut at 64 KiB), so no answer
  // can make it hold more. Over the limit, the fetch fails with a BodyLimitError, never retried.
  const boundedFetch =
    (limit: BodyLimit) =>
    async (input: string | URL, init?: RequestInit): Promise<Response> => {
      const url = String(input);
      const response = await (options.fetch ?? fetch)(url, {
        ...init,
        signal: init?.signal ?? AbortSignal.timeout(timeoutMs),
      });
      return bufferResponse(response, shownUrl(url), limit);
    };
  /** A URL for messages: without its query off the API origin (a download's query is a signed grant). */
  const shownUrl = (url: string): string => {
    const parsed = new URL(url);
    if (parsed.origin !== apiOrigin) parsed.search = '';
    return parsed.toString();
  };

  // Octokit is loaded on the first request: a build that needs no GitHub never pays for it.
  const build = async (): Promise<Octokit> => {
    // Innermost hook: sees every attempt the retry and throttling plugins make.
    const attempts = (octokit: Octokit): void => {
      octokit.hook.wrap('request', async (request, endpoint) => {
        const { method } = endpoint;
        const url = display(octokit.request.endpoint.parse(endpoint));
        const attempt = Number(endpoint.request?.['retryCount'] ?? 0);
        emit({ type: 'request', method, url, attempt });
        try {
          const response = await request(endpoint);
          emit({ type: 'response', method, url, status: response.status, cached: false });
          return response;
        } catch (cause) {
          const status = failureStatus(cause);
          // A 304 is reported once, by the ETag hook, as a cache hit.
          if (status !== undefined && status !== 304) emit({ type: 'response', method, url, status, cached: false });
          // A name that does not resolve or a refused connection fails alike on every try: tell
          // plugin-retry (which reads the options' `retries`) not to retry it.
          // Nor one whose answer is over its limit: the same server would send it again.
          const permanent =
            status === undefined && (isPermanentNetworkFailure(cause) || findBodyLimitError(cause) !== undefined);
          if (permanent && endpoint.request) endpoint.request.retries = 0;
          // Mirror plugin-retry's schedule ((n+1)² units) so the CLI can say why it is waiting.
          const retryable = !permanent && (status === undefined || status >= 500);
          if (retryable && attempt < retries) {
            const reason = status === undefined ? 'network' : 'server-error';
            emit({ type: 'retry', reason, method, url, retry: attempt + 1, waitMs: (attempt + 1) ** 2 * unitMs });
          }
          throw cause;
        }
      });
    };

    type LimitedRequest = { method?: string; url?: string; request?: { [option: string]: unknown } };
    const onLimit =
      (reason: 'rate-limit' | 'secondary-rate-limit') =>
      (retryAfterSeconds: number, endpoint: LimitedRequest, _octokit: unknown, retryCount: number): boolean => {
        const waitMs = retryAfterSeconds * unitMs;
        if (retryCount >= retries || waitMs > maxWaitMs) return false;
        const url = display({ url: endpoint.url ?? '', request: endpoint.request });
        emit({ type: 'retry', reason, method: endpoint.method ?? 'GET', url, retry: retryCount + 1, waitMs });
        return true;
      };

    const [{ Octokit: OctokitClass }, { retry }, { throttling }] = await Promise.all([
      import('@octokit/core'),
      import('@octokit/plugin-retry'),
      import('@octokit/plugin-throttling'),
    ]);
    const ClientOctokit = OctokitClass.plugin(attempts, retry, throttling);
    const octokit = new ClientOctokit({
      baseUrl,
      userAgent: options.userAgent ?? 'capi-render',
      log: { debug: () => undefined, info: () => undefined, warn, error: warn },
      request: {
        fetch: boundedFetch(API_PAGE_LIMIT),
        log: { debug: () => undefined, info: () => undefined, warn, error: warn },
      },
      retry: { retries, retryAfterBaseValue: unitMs, doNotRetry: DO_NOT_RETRY },
      throttle: {
        // plugin-throttling keys its (module-level) limiter groups by id: a fresh id per client keeps
        // clients from queueing behind each other.
        id: randomUUID(),
        retryAfterBaseValue: unitMs,
        onRateLimit: onLimit('rate-limit'),
        onSecondaryRateLimit: onLimit('secondary-rate-limit'),
      },
    });

    // Outer hook, registered after the plugins so it runs once per logical request. It edits the
    // endpoint options in place: before-after-hook binds the same options object to every hook in the
    // chain and ignores what a hook passes on.
    const etags = createEtagCache();
    octokit.hook.wrap('request', async (request, endpoint) => {
      const parsed = octokit.request.endpoint.parse(endpoint);
      const anonymous = endpoint.request?.['anonymous'] === true;
      const headers = endpoint.headers;
      // The token goes to the API origin only: never to a redirect target, a Link from another host,
      // or a request marked anonymous.
      if (token && !anonymous && new URL(parsed.url).origin === apiOrigin) headers['authorization'] = `token ${token}`;
      const cacheable = parsed.method === 'GET' && endpoint.request?.parseSuccessResponseBody !== false;
      const key = etagKey(parsed.method, parsed.url, headers.accept);
      const cached = cacheable ? etags.get(key) : undefined;
      if (cached) headers['if-none-match'] = cached.etag;
      try {
        const response = await request(endpoint);
        const etag = response.headers.etag;
        if (cacheable && typeof etag === 'string') {
          etags.set(key, {
            etag,
            status: response.status,
            url: parsed.url,
            headers: response.headers,
            data: response.data,
          });
        }
        return response;
      } catch (cause) {
        if (cached && failureStatus(cause) === 304) {
          emit({ type: 'response', method: parsed.method, url: parsed.url, status: 304, cached: true });
          // retryCount: plugin-throttling declares it on every response; a cache hit was never retried.
          return { status: cached.status, url: cached.url, headers: cached.headers, data: cached.data, retryCount: 0 };
        }
        throw cause;
      }
    });
    return octokit;
  };
  let pending: Promise<Octokit> | undefined;

  const send = async (spec: RequestSpec): Promise<RawResponse | undefined> => {
    try {
      const octokit = await (pending ??= build());
      const { limit = API_PAGE_LIMIT, ...rest } = spec;
      const response = await octokit.request({ ...rest, request: { ...rest.request, fetch: boundedFetch(limit) } });
      return {
        status: response.status,
        url: response.url,
        headers: response.headers,
        data: response.data as unknown,
      };
    } catch (cause) {
      if (failureStatus(cause) === 404) return undefined;
      throw toFetchError(cause, { method: spec.method, url: display(spec), retries, token });
    }
  };

  return { baseUrl, send, display, emit };
}

/** The BodyLimitError in an error's cause chain (octokit wraps what its fetch throws), if any. */
function findBodyLimitError(cause: unknown): BodyLimitError | undefined {
  let current: unknown = cause;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof BodyLimitError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The origin of the API base URL; a SpecError `config` when it is not an absolute URL. */
function originOf(baseUrl: string): string {
  try {
    return new URL(baseUrl).origin;
  } catch {
    throw new SpecError(
      error('config', `GitHub API base URL ${JSON.stringify(baseUrl)} is not a URL`, {
        hint: 'use e.g. https://api.github.com or https://ghe.example.com/api/v3',
      }),
    );
  }
}
