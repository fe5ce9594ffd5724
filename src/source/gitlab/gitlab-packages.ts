/**
 * Lists the versions of one GitLab generic package through the Packages API
 * (`GET /api/v4/projects/:id/packages?package_type=generic&package_name=…`), which clusterctl's
 * GitLab repository never calls: its GetVersions knows only the URL's version. capi-render lists so
 * that `latest`, ranges and `plan` work for GitLab as they do for GitHub (docs/fidelity.md).
 *
 * Design notes: docs/internals.md "source/gitlab/gitlab-packages.ts".
 */
import { FetchError, error, type DiagnosticCode } from '../../errors.js';
import type { EtagCache } from '../github/github-etag.js';
import { isSemverTag } from '../github/github-source.js';
import type { FetchProgress } from '../fetch-progress.js';
import { API_PAGE_LIMIT } from '../http/body-limits.js';
import { BodyLimitError, readText } from '../http/bounded-body.js';
import type { FetchLike } from '../http/network-fetch.js';
import { networkReason, unreachableHint, unreachableTarget } from '../network-failure.js';
import { TOKEN_HINT, gitLabHeaders, redactSecret, shownUrl } from './gitlab-http.js';

/** The package whose versions are listed; segments as written in the provider URL. */
export interface GitLabPackageRef {
  host: string;
  /** The project id or its URL-encoded path, as in the URL (`group%2Fproject`). */
  projectSlug: string;
  packageName: string;
}

export interface PackageListerDeps {
  send: FetchLike;
  token: string | undefined;
  timeoutMs: number;
  emit: (event: FetchProgress) => void;
  /** Last answer per page URL that carried an ETag (memory only). */
  etags: EtagCache;
}

/** Pages followed at most: 10 000 package versions, far beyond any provider, but bounded. */
const MAX_PAGES = 100;
/** Package states whose files may be missing or going away (GitLab's `status` values). */
const UNUSABLE_STATUS = new Set(['processing', 'error', 'pending_destruction', 'hidden']);

/** The first page's URL for a package. */
export function packageListUrl(pkg: GitLabPackageRef): string {
  return `https://${pkg.host}/api/v4/projects/${pkg.projectSlug}/packages?package_type=generic&package_name=${encodeURIComponent(pkg.packageName)}&per_page=100`;
}

/** Every version of the package, sorted as strings (callers order by semver). FetchError `auth`, `source-not-found` or `fetch`. */
export async function listPackageVersions(pkg: GitLabPackageRef, deps: PackageListerDeps): Promise<string[]> {
  const what = `the versions of GitLab package ${pkg.packageName} of ${safeDecode(pkg.projectSlug)} on ${pkg.host}`;
  const fail = (code: DiagnosticCode, detail: string, hint: string): FetchError =>
    new FetchError(
      error(code, redactSecret(`failed to list ${what}: ${detail}`, deps.token), {
        hint: redactSecret(hint, deps.token),
      }),
    );
  const first = packageListUrl(pkg);
  const origin = new URL(first).origin;
  const signal = AbortSignal.timeout(deps.timeoutMs);
  const versions = new Set<string>();
  const seen = new Set<string>();
  for (let url: string | undefined = first; url !== undefined;) {
    if (seen.has(url)) break;
    if (seen.size === MAX_PAGES)
      throw fail('fetch', `more than ${MAX_PAGES} pages`, 'check the GitLab instance and any proxy in between');
    seen.add(url);
    const page = await readPage(url);
    for (const entry of page.entries) {
      if (
        entry.name === pkg.packageName &&
        entry.package_type === 'generic' &&
        !UNUSABLE_STATUS.has(entry.status ?? 'default') &&
        isSemverTag(entry.version)
      ) {
        versions.add(entry.version);
      }
    }
    url = nextPage(url, page.link, page.nextPage);
    if (url !== undefined && new URL(url).origin !== origin)
      throw fail(
        'fetch',
        `the next page is on another origin (${new URL(url).origin})`,
        "check the GitLab instance's external URL setting and any proxy in between",
      );
  }
  return [...versions].sort();

  async function readPage(
    url: string,
  ): Promise<{ entries: PackageEntry[]; link: string | null; nextPage: string | null }> {
    const stored = deps.etags.get(url);
    const headers = gitLabHeaders(url, origin, deps.token, {
      accept: 'application/json',
      ...(stored ? { 'if-none-match': stored.etag } : {}),
    });
    let response: Response;
    try {
      deps.emit({ type: 'request', method: 'GET', url: shownUrl(url), attempt: 0 });
      response = await deps.send(url, { method: 'GET', headers, redirect: 'manual', signal });
      deps.emit({
        type: 'response',
        method: 'GET',
        url: shownUrl(url),
        status: response.status,
        cached: response.status === 304,
      });
    } catch (cause) {
      throw unreachable(url, cause);
    }
    if (response.status === 304 && stored) {
      await response.body?.cancel().catch(() => undefined);
      return {
        entries: stored.data as PackageEntry[],
        link: header(stored.headers.link),
        nextPage: header(stored.headers['x-next-page']),
      };
    }
    if (response.status !== 200) {
      await response.body?.cancel().catch(() => undefined);
      throw statusError(response.status);
    }
    let text: string;
    try {
      text = await readText(response, shownUrl(url), API_PAGE_LIMIT);
    } catch (cause) {
      if (cause instanceof BodyLimitError) throw cause;
      throw unreachable(url, cause);
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw fail(
        'fetch',
        'GitLab answered something that is not JSON',
        'check the provider URL: it must name a GitLab instance (and any proxy must pass its answers through)',
      );
    }
    const entries = toEntries(body);
    if (!entries)
      throw fail(
        'fetch',
        'GitLab answered a list of unexpected shape',
        'check that the instance is GitLab 13.0 or newer (package_type filter) and the provider URL',
      );
    const link = response.headers.get('link');
    const next = response.headers.get('x-next-page');
    const etag = response.headers.get('etag');
    if (etag)
      deps.etags.set(url, {
        etag,
        status: 200,
        url,
        headers: { link: link ?? undefined, 'x-next-page': next ?? undefined },
        data: entries,
      });
    return { entries, link, nextPage: next };
  }

  function statusError(status: number): FetchError {
    if (status === 401)
      return fail(
        'auth',
        `401 Unauthorized (${deps.token ? 'GitLab rejected the token' : 'no token was sent'})`,
        TOKEN_HINT,
      );
    if (status === 403)
      return fail('auth', '403 Forbidden (the token may read the project but not its package registry)', TOKEN_HINT);
    if (status === 404) {
      return fail(
        'source-not-found',
        '404 Not Found: no such project, or the package registry is disabled',
        `check the project in the provider URL (GitLab also answers 404 for a private project without a valid token: ${TOKEN_HINT})`,
      );
    }
    if (status >= 500)
      return fail(
        'fetch',
        `GitLab answered ${status}`,
        'the GitLab instance may be down or overloaded; try again later',
      );
    return fail('fetch', `GitLab answered ${status}`, 'check the provider URL');
  }

  function unreachable(url: string, cause: unknown): FetchError {
    if (signal.aborted)
      return fail(
        'fetch',
        `no complete answer within ${deps.timeoutMs / 1000} s`,
        'the GitLab instance is slow or unreachable; try again later',
      );
    const host = new URL(url).host;
    return fail(
      'fetch',
      `could not reach ${unreachableTarget(host, cause)} (${networkReason(cause)})`,
      unreachableHint(host, networkReason(cause)),
    );
  }
}

/** The fields of one package entry the lister reads (GitLab sends many more). */
interface PackageEntry {
  name: string;
  version: string;
  package_type: string;
  status?: string;
}

function toEntries(body: unknown): PackageEntry[] | undefined {
  if (!Array.isArray(body)) return undefined;
  const entries: PackageEntry[] = [];
  for (const item of body) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { name, version, package_type: type, status } = item as Record<string, unknown>;
    if (typeof name !== 'string' || typeof type !== 'string') return undefined;
    // Versionless packages (GitLab's include_versionless) have a null version: nothing to choose.
    if (typeof version !== 'string') continue;
    entries.push({ name, version, package_type: type, ...(typeof status === 'string' ? { status } : {}) });
  }
  return entries;
}

/** The next page: `Link: <…>; rel="next"` first, else the `X-Next-Page` number on the current URL. */
function nextPage(current: string, link: string | null, nextPageNumber: string | null): string | undefined {
  for (const part of (link ?? '').split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part);
    if (match?.[1]) return new URL(match[1], current).toString();
  }
  if (nextPageNumber && /^\d+$/.test(nextPageNumber.trim())) {
    const url = new URL(current);
    url.searchParams.set('page', nextPageNumber.trim());
    return url.toString();
  }
  return undefined;
}

function header(value: string | number | undefined): string | null {
  return value === undefined ? null : String(value);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
