/**
 * Parses provider URLs that point at GitHub releases, the way clusterctl's GitHub repository does
 * (cluster-api v1.12.0 `cmd/clusterctl/client/repository/repository_github.go`,
 * `NewGitHubRepository`), plus a few forms people actually paste, each marked in `form` so callers
 * can warn that clusterctl and the operator would reject them.
 *
 * Design notes: docs/internals.md "source/github/github-url.ts".
 */
import { SpecError, error, peerWording, type Location } from '../../errors.js';
import { kindInfo, type ProviderKind } from '../../declarations/provider-kinds.js';

/** The public GitHub web host and its REST API. */
export const GITHUB_HOST = 'github.com';
export const GITHUB_API_BASE_URL = 'https://api.github.com';

/** clusterctl's wording of the one form it accepts; used as the hint of every rejection. */
const EXPECTED_FORM =
  'a GitHub repository url should be in the form https://github.com/{owner}/{Repository}/releases/{latest|version-tag}/{componentsClient.yaml}';

/** A GitHub Enterprise Server (or other self-hosted) web origin whose URLs are accepted too. */
export interface GitHubEnterpriseHost {
  /** Web origin as users write it in provider URLs, e.g. `https://ghe.example.com`. */
  origin: string;
  /** REST API base URL. Default: `{origin}/api/v3` (GitHub Enterprise Server's layout). */
  apiBaseUrl?: string;
}

export interface ParseGitHubUrlOptions {
  /** Provider kind: its default components asset names the file of the short forms. */
  kind?: ProviderKind;
  /** Self-hosted origins to accept besides `https://github.com`. Default: none. */
  enterpriseHosts?: readonly GitHubEnterpriseHost[];
  /** Where the URL came from (object, field, file), copied into the diagnostic on failure. */
  where?: Location;
}

export type GitHubUrlForm = 'clusterctl' | 'download' | 'release-page' | 'short';

export interface GitHubReleaseUrl {
  /** Web origin, e.g. `https://github.com`. */
  origin: string;
  /** REST API base URL to talk to for this origin. */
  apiBaseUrl: string;
  owner: string;
  repo: string;
  /** The tag, `latest`, or undefined when the URL names no version (the caller's spec does). */
  version: string | 'latest' | undefined;
  /** clusterctl's rootPath: the folder part of the path after the version, `.` when there is none. */
  rootPath: string;
  /** clusterctl's componentsPath: the file name of the components asset. */
  componentsFile: string;
  form: GitHubUrlForm;
}

/**
 * Parses a GitHub release URL. Throws a SpecError with code `source-unsupported` (hint: the form
 * clusterctl expects) when the URL is not a GitHub release URL of a known host.
 */
export function parseGitHubReleaseUrl(url: string, options: ParseGitHubUrlOptions = {}): GitHubReleaseUrl {
  const fail = (message: string): never => {
    throw new SpecError(
      error(
        'source-unsupported',
        peerWording('clusterctl', `invalid url: ${EXPECTED_FORM}`, `${JSON.stringify(url)}: ${message}`),
        {
          ...options.where,
          hint: `${EXPECTED_FORM} (capi-render also reads …/releases, …/releases/download/{tag}/{file} and …/releases/tag/{tag})`,
        },
      ),
    );
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('not a valid URL');
  }
  const host = findHost(parsed, options.enterpriseHosts ?? []);
  if (!host) return fail('a GitHub repository url should start with https://github.com');
  const segments = splitPath(parsed.pathname) ?? fail('the path has an empty or badly escaped segment');
  const [owner, repo, releases, ...rest] = segments;
  if (owner === undefined || repo === undefined || releases !== 'releases') {
    return fail('the path must start with /{owner}/{repo}/releases');
  }
  const located = locateVersion(rest);
  let file = located.path;
  if (file === undefined) {
    if (!options.kind) return fail('the URL names no file and no provider kind is known to pick the default asset');
    file = kindInfo(options.kind).componentsAsset;
  }
  const slash = file.lastIndexOf('/');
  return {
    origin: host.origin,
    apiBaseUrl: host.apiBaseUrl,
    owner,
    repo,
    version: located.version,
    rootPath: slash < 0 ? '.' : file.slice(0, slash),
    componentsFile: slash < 0 ? file : file.slice(slash + 1),
    form: located.form,
  };
}

/** True when the URL's origin is github.com or one of the enterprise hosts (dispatch test only). */
export function isGitHubUrl(url: string, enterpriseHosts: readonly GitHubEnterpriseHost[] = []): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return findHost(parsed, enterpriseHosts) !== undefined;
}

/** Resolves an enterprise host entry's API base URL (default `{origin}/api/v3`), without a trailing slash. */
export function enterpriseApiBaseUrl(host: GitHubEnterpriseHost): string {
  return (host.apiBaseUrl ?? `${originOf(host)}/api/v3`).replace(/\/+$/, '');
}

/** The configured origin, normalised; a SpecError `config` when it is not a URL (a settings mistake). */
function originOf(host: GitHubEnterpriseHost): string {
  try {
    return new URL(host.origin).origin;
  } catch {
    throw new SpecError(
      error('config', `GitHub Enterprise host ${JSON.stringify(host.origin)} is not a URL`, {
        hint: 'give the web origin, e.g. https://ghe.example.com',
      }),
    );
  }
}

function findHost(
  parsed: URL,
  enterpriseHosts: readonly GitHubEnterpriseHost[],
): { origin: string; apiBaseUrl: string } | undefined {
  // clusterctl compares scheme and host exactly: http://github.com and www.github.com are rejected.
  if (parsed.protocol === 'https:' && parsed.host === GITHUB_HOST) {
    return { origin: `https://${GITHUB_HOST}`, apiBaseUrl: GITHUB_API_BASE_URL };
  }
  for (const entry of enterpriseHosts) {
    if (originOf(entry) === parsed.origin) {
      return { origin: parsed.origin, apiBaseUrl: enterpriseApiBaseUrl(entry) };
    }
  }
  return undefined;
}

/** Path segments, percent-decoded; a trailing slash is ignored; undefined if any segment is empty or badly escaped. */
function splitPath(pathname: string): string[] | undefined {
  const trimmed = pathname.replace(/^\/+/, '').replace(/\/+$/, '');
  if (trimmed === '') return [];
  const segments: string[] = [];
  for (const raw of trimmed.split('/')) {
    if (raw === '') return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return undefined;
    }
    // Go decodes the path before clusterctl splits it, so an escaped `/` separates segments too; an
    // escaped dot segment would walk up the API path the owner and repo are put into.
    for (const part of decoded.split('/')) {
      if (part === '' || part === '.' || part === '..') return undefined;
      segments.push(part);
    }
  }
  return segments;
}

/**
 * Splits what follows `/releases` into version and asset path (undefined: the kind's default asset).
 * Order matters: GitHub's own download URLs are recognised before clusterctl's generic form, which
 * would otherwise read `download` as the version.
 */
function locateVersion(rest: string[]): { version: string | undefined; path: string | undefined; form: GitHubUrlForm } {
  const [first, second, ...tail] = rest;
  const path = tail.length > 0 ? tail.join('/') : undefined;
  if (first === undefined) return { version: undefined, path: undefined, form: 'short' };
  if (second === undefined) return { version: first, path: undefined, form: 'short' };
  if (first === 'download') return { version: second, path, form: 'download' };
  if (first === 'latest' && second === 'download') return { version: 'latest', path, form: 'download' };
  if (first === 'tag' && path === undefined) return { version: second, path: undefined, form: 'release-page' };
  return { version: first, path: [second, ...tail].join('/'), form: 'clusterctl' };
}
