/**
 * Turns what octokit throws into capi-render's FetchError, classified by HTTP status and headers
 * (never by message text). Every message and hint passes through {@link redactSecret}, so a token
 * can never reach the terminal or a log even if some layer echoed it back.
 */
import { FetchError, error, peerWording, type DiagnosticCode } from '../../errors.js';
import { isPermanentNetworkFailure, networkReason, unreachableHint, unreachableTarget } from '../network-failure.js';

/** What the mapping needs from a failed request (the shape of octokit's RequestError, duck-typed). */
interface HttpFailure {
  status?: number;
  response?: { status: number; headers: Record<string, string | number | undefined>; data?: unknown };
  cause?: unknown;
}

/** The request that failed, for messages. */
export interface FailedRequest {
  method: string;
  url: string;
  /** How many retries the client was configured to make (for the message). */
  retries: number;
  /** The token in use, only so it can be scrubbed from any text; never printed. */
  token?: string;
  /** Clock for the reset time when only `retry-after` is given. Default: Date.now. */
  now?: () => number;
}

const TOKEN_HINT = 'set GITHUB_TOKEN or GH_TOKEN to a personal access token';

/** Replaces every occurrence of the secret in the text; a no-op without a secret. */
export function redactSecret(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('***') : text;
}

/** The HTTP status of a failed octokit request, when there was a response. */
export function failureStatus(cause: unknown): number | undefined {
  const failure = cause as HttpFailure | undefined;
  return typeof failure?.response?.status === 'number' ? failure.response.status : undefined;
}

/** clusterctl's message for a rate-limited GitHub API (repository_github.go errRateLimit). */
const CLUSTERCTL_RATE_LIMIT =
  'rate limit for github api has been reached. Please wait one hour or get a personal API token and assign it to the GITHUB_TOKEN environment variable';

/**
 * Classifies a failure: 401 → `auth`; 403/429 carrying rate-limit headers (or any 429) →
 * `rate-limit` with the reset time; other 403 → `auth`; 5xx and other statuses → `fetch`;
 * no response at all (refused, reset, DNS, timeout) → `fetch` naming the host. FetchErrors pass
 * through, also when octokit wrapped one (its fetch throws them for an answer over its limit).
 */
export function toFetchError(cause: unknown, request: FailedRequest): FetchError {
  const own = ownFailure(cause);
  if (own) return own;
  const failure = (typeof cause === 'object' && cause !== null ? cause : {}) as HttpFailure;
  const what = `${request.method} ${request.url}`;
  const make = (code: DiagnosticCode, message: string, hint: string): FetchError =>
    new FetchError(error(code, redactSecret(message, request.token), { hint: redactSecret(hint, request.token) }));

  const response = failure.response;
  if (!response) {
    const host = hostOf(request.url);
    const reason = networkReason(cause);
    // A failure no retry can fix was not retried (see network-failure.ts); say so only when it was.
    const retried =
      isPermanentNetworkFailure(cause) || request.retries === 0 ? '' : `, retried ${request.retries} times`;
    return make(
      'fetch',
      `could not reach ${unreachableTarget(host, cause)} (${reason}${retried}) for ${what}`,
      unreachableHint(host, reason),
    );
  }
  const status = response.status;
  const header = (name: string): string | undefined => {
    const value = response.headers[name];
    return value === undefined ? undefined : String(value);
  };
  if (status === 401) {
    return make(
      'auth',
      `GitHub rejected the token (401) for ${what}`,
      'the token in GITHUB_TOKEN / GH_TOKEN is invalid, expired or revoked; fix it or unset it to make unauthenticated requests',
    );
  }
  const rateLimited =
    status === 429 ||
    (status === 403 && (header('x-ratelimit-remaining') === '0' || header('retry-after') !== undefined));
  if (rateLimited) {
    const resetAt = resetTime(header('x-ratelimit-reset'), header('retry-after'), request.now ?? Date.now);
    const until = resetAt ? ` until ${resetAt}` : '';
    return make(
      'rate-limit',
      peerWording(
        'clusterctl',
        CLUSTERCTL_RATE_LIMIT,
        `${status} for ${what}${until ? `; the limit resets at ${until.slice(' until '.length)}` : ''}`,
      ),
      `wait${until || ' an hour'} or ${TOKEN_HINT} (authenticated requests get a much higher limit)`,
    );
  }
  if (status === 403) {
    return make(
      'auth',
      `GitHub refused access (403) to ${what}`,
      `the repository may be private or the token may lack access to it; ${TOKEN_HINT} with read access`,
    );
  }
  if (status >= 500) {
    return make(
      'fetch',
      `GitHub answered ${status} for ${what} after ${request.retries} retries`,
      'GitHub may be having an outage (https://www.githubstatus.com); try again later',
    );
  }
  return make('fetch', `GitHub answered ${status} for ${what}`, 'check the provider URL and version');
}

/**
 * A FetchError capi-render made, as thrown or as the cause octokit wrapped it in (an answer over
 * its limit, or one that broke off, fails inside octokit's fetch): it already says what and why.
 */
function ownFailure(cause: unknown): FetchError | undefined {
  let current: unknown = cause;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if (current instanceof FetchError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The reset moment as an ISO UTC time: `x-ratelimit-reset` (epoch seconds) first, else now + `retry-after`. */
function resetTime(reset: string | undefined, retryAfter: string | undefined, now: () => number): string | undefined {
  const epochSeconds = Number(reset);
  if (reset !== undefined && Number.isFinite(epochSeconds) && epochSeconds > 0) {
    return new Date(epochSeconds * 1000).toISOString();
  }
  const seconds = Number(retryAfter);
  if (retryAfter !== undefined && Number.isFinite(seconds) && seconds >= 0) {
    return new Date(now() + seconds * 1000).toISOString();
  }
  return undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
