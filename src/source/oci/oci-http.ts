/**
 * The HTTP layer of the OCI client: one registry, `fetch` injected. It adds authentication
 * (answering one 401 challenge per request through an {@link OciAuthorizer}), follows redirects
 * itself so that credentials never travel to another origin (blob downloads are often redirected
 * to object storage), applies a timeout per request and turns transport failures into FetchErrors
 * that name the registry's host:port.
 */
import { FetchError, error } from '../../errors.js';
import { readMessage } from '../http/bounded-body.js';
import type { FetchProgress, FetchProgressListener } from '../fetch-progress.js';
import { isPermanentNetworkFailure, networkReason, unreachableHint, unreachableTarget } from '../network-failure.js';
import { CREDENTIAL_HINT, createOciAuthorizer } from './oci-auth.js';
import type { OciCredentials } from './oci-credentials.js';
import { credentialSecrets } from './oci-credentials.js';

/** One registry's address, credential, transport and timeout. */
export interface OciHttpOptions {
  /** `host` or `host:port`. */
  registry: string;
  /** `host:port` with the default port filled in, for messages. */
  hostPort: string;
  plainHttp: boolean;
  credentials?: OciCredentials;
  fetchImpl: typeof fetch;
  timeoutMs: number;
  /** Told of every request sent and every answer (no headers, so no credential). Default: none. */
  onProgress?: FetchProgressListener;
}

/** One request to the registry. */
export interface OciRequest {
  method: 'GET' | 'HEAD' | 'POST' | 'PUT';
  /** Path under the registry (`/v2/…`) or an absolute URL on the registry (upload locations, `Link`s). */
  target: string | URL;
  /** The token scope this request needs, e.g. `repository:capi/core:pull`. */
  scope: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
}

/** Sends requests to one registry. */
export interface OciHttp {
  readonly baseUrl: URL;
  readonly hostPort: string;
  /** The response (any status but 401/403, which throw FetchError `auth`); network problems throw `fetch`. */
  send(request: OciRequest): Promise<Response>;
  /** A FetchError for an unexpected answer, with the registry's error codes and no secret. */
  unexpected(response: Response, what: string): Promise<FetchError>;
}

const MAX_REDIRECTS = 5;

/** Creates the HTTP layer; it holds the authorizer (and so the token cache) of this registry. */
export function createOciHttp(options: OciHttpOptions): OciHttp {
  const baseUrl = new URL(`${options.plainHttp ? 'http' : 'https'}://${options.registry}/`);
  const authorizer = createOciAuthorizer({
    registryUrl: baseUrl,
    hostPort: options.hostPort,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    fetchImpl: options.fetchImpl,
    timeoutMs: options.timeoutMs,
  });
  const secrets = credentialSecrets(options.credentials);
  const emit = (event: FetchProgress): void => {
    try {
      options.onProgress?.(event);
    } catch {
      // A broken listener must not break a request.
    }
  };
  const redact = (text: string) => secrets.reduce((t, s) => t.split(s).join('[redacted]'), text);

  async function once(
    request: OciRequest,
    url: URL,
    authorization: string | undefined,
  ): Promise<{ response: Response; url: URL }> {
    let current = url;
    let method = request.method;
    for (let hop = 0; ; hop++) {
      const headers: Record<string, string> = { ...request.headers };
      // Credentials go to the registry's own origin only (oras does the same after GHSA-vh4v-2xq2-g5cg).
      if (authorization !== undefined && current.origin === baseUrl.origin) headers.authorization = authorization;
      let response: Response;
      const shown = `${current.origin}${current.pathname}`;
      emit({ type: 'request', method, url: shown, attempt: 0 });
      try {
        response = await options.fetchImpl(current, {
          method,
          headers,
          ...(request.body && method !== 'GET' && method !== 'HEAD' ? { body: request.body } : {}),
          redirect: 'manual',
          signal: AbortSignal.timeout(options.timeoutMs),
        });
      } catch (cause) {
        emit({ type: 'response', method, url: shown, status: 0, cached: false });
        throw transportError(cause, current);
      }
      emit({ type: 'response', method, url: shown, status: response.status, cached: false });
      const location = response.headers.get('location');
      if (response.status < 300 || response.status >= 400 || response.status === 304 || !location)
        return { response, url: current };
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS)
        throw new FetchError(
          error('fetch', `registry ${options.hostPort}: too many redirects for ${request.method} ${pathOf(url)}`),
        );
      current = new URL(location, current);
      if (response.status === 303) method = 'GET';
    }
  }

  function transportError(cause: unknown, url: URL): FetchError {
    const name = cause instanceof Error ? cause.name : '';
    const where =
      url.origin === baseUrl.origin
        ? `registry ${options.hostPort}`
        : `${url.host} (redirected from registry ${options.hostPort})`;
    if (name === 'TimeoutError' || name === 'AbortError') {
      return new FetchError(
        error('fetch', `${where} did not answer within ${options.timeoutMs / 1000}s`, {
          hint: 'check that the registry is up and reachable from here',
        }),
      );
    }
    const reason = networkReason(cause);
    const check = options.plainHttp
      ? 'check the host and port, and that the registry is running'
      : 'check the host and port; a registry without TLS needs an http:// reference';
    return new FetchError(
      error('fetch', `cannot reach ${unreachableTarget(where, cause)} (${reason})`, {
        hint: isPermanentNetworkFailure(cause) ? `${check}. ${unreachableHint(url.host, reason)}` : check,
      }),
    );
  }

  return {
    baseUrl,
    hostPort: options.hostPort,
    async send(request) {
      const url = new URL(request.target, baseUrl);
      let answer = await once(request, url, authorizer.cached(request.scope));
      if (answer.response.status === 401 && answer.url.origin === baseUrl.origin) {
        const challenge = answer.response.headers.get('www-authenticate');
        await answer.response.body?.cancel();
        const authorization = await authorizer.answer(challenge, request.scope);
        answer = await once(request, url, authorization);
      }
      const { response } = answer;
      if (response.status === 401 || response.status === 403) {
        const codes = await errorCodes(response);
        const sent = options.credentials ? 'the credentials were not accepted' : 'no credentials were given';
        throw new FetchError(
          error(
            'auth',
            redact(
              `registry ${options.hostPort} refused ${request.method} ${pathOf(url)} with HTTP ${response.status}${codes}: ${sent}`,
            ),
            {
              hint: options.credentials
                ? `check the credentials and that they may ${request.scope.endsWith('push') ? 'push to' : 'pull from'} this repository`
                : CREDENTIAL_HINT,
            },
          ),
        );
      }
      return response;
    },
    async unexpected(response, what) {
      const codes = await errorCodes(response);
      return new FetchError(
        error('fetch', redact(`registry ${options.hostPort}: ${what} failed with HTTP ${response.status}${codes}`)),
      );
    },
  };
}

/** The distribution error codes of a response body (`{"errors":[{"code":…}]}`), as ` (CODE: message)`; only its first 64 KiB are read. */
async function errorCodes(response: Response): Promise<string> {
  const text = await readMessage(response);
  try {
    const parsed = JSON.parse(text) as { errors?: { code?: unknown; message?: unknown }[] };
    const parts = (parsed.errors ?? [])
      .slice(0, 3)
      .map((e) => [e.code, e.message].filter((v) => typeof v === 'string' && v).join(': '))
      .filter(Boolean);
    return parts.length > 0 ? ` (${parts.join('; ').slice(0, 300)})` : '';
  } catch {
    return '';
  }
}

/** The path of a URL without its query (upload locations carry opaque state there). */
function pathOf(url: URL): string {
  return url.pathname;
}
