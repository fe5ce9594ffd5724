/**
 * Provider URLs that point at a GitLab generic package, read the way clusterctl's GitLab repository
 * reads them (cluster-api `cmd/clusterctl/client/repository/repository_gitlab.go`,
 * `NewGitLabRepository`), with the operator's host rule (cluster-api-operator `util/util.go`,
 * `IsGitLabDomain`):
 *
 *   https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{version}/{file}
 *
 * Design notes: docs/internals.md "source/gitlab/gitlab-url.ts".
 */
import { SpecError, error, peerWording, type Location } from '../../errors.js';

/** clusterctl's wording of the one form it accepts. */
export const GITLAB_URL_FORM =
  'invalid url: a GitLab repository url should be in the form https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{defaultVersion}/{componentsPath}';

const PACKAGES_API_PREFIX = '/api/v4/projects/';
/** `gitlab.` or `gitlab-<anything>.` at the start of the host (the operator's rule). */
const GITLAB_HOST = /^gitlab(-.*)?\./;

/** The parts of a generic-package URL; every segment as written (percent-encoding kept). */
export interface GitLabPackageUrl {
  /** `https://{host}` (host with port, if any). */
  origin: string;
  host: string;
  projectSlug: string;
  packageName: string;
  /** The version segment: the default version (may be `latest`, which GitLab does not resolve). */
  version: string;
  /** The components file name (clusterctl's componentsPath). */
  componentsFile: string;
}

/** True when clusterctl or the operator would hand this URL to their GitLab repository (dispatch only, not the full form). */
export function isGitLabUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    parsed.protocol === 'https:' && GITLAB_HOST.test(parsed.host) && parsed.pathname.startsWith(PACKAGES_API_PREFIX)
  );
}

/**
 * Parses a GitLab generic-package URL. Throws a SpecError `source-unsupported` carrying clusterctl's
 * "invalid url" wording when the URL is not of the one accepted form.
 */
export function parseGitLabPackageUrl(url: string, where: Location = {}): GitLabPackageUrl {
  const fail = (detail: string): never => {
    throw new SpecError(
      error('source-unsupported', peerWording('clusterctl', GITLAB_URL_FORM, `${JSON.stringify(url)} ${detail}`), {
        ...where,
        hint: 'e.g. https://gitlab.example.com/api/v4/projects/group%2Fproject/packages/generic/cluster-api/v1.12.0/core-components.yaml',
      }),
    );
  };
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return fail('is not a valid URL');
  }
  if (parsed.protocol !== 'https:') return fail('does not use https');
  // The URL parser keeps percent-escapes in the path, as Go's EscapedPath does.
  const segments = parsed.pathname.replace(/^\//, '').split('/');
  const [api, v4, projects, projectSlug, packages, generic, packageName, version, componentsFile] = segments;
  if (
    segments.length !== 9 ||
    api !== 'api' ||
    v4 !== 'v4' ||
    projects !== 'projects' ||
    packages !== 'packages' ||
    generic !== 'generic'
  ) {
    return fail(
      `has ${segments.length} path segments starting ${JSON.stringify(`/${segments.slice(0, 3).join('/')}`)}`,
    );
  }
  if (segments.some((s) => s === '')) return fail('has an empty path segment');
  return {
    origin: parsed.origin,
    host: parsed.host,
    projectSlug: projectSlug!,
    packageName: packageName!,
    version: version!,
    componentsFile: componentsFile!,
  };
}

/** The download URL of one file of one version, exactly as clusterctl builds it. */
export function gitLabFileUrl(
  pkg: Pick<GitLabPackageUrl, 'host' | 'projectSlug' | 'packageName'>,
  version: string,
  file: string,
): string {
  return `https://${pkg.host}${PACKAGES_API_PREFIX}${pkg.projectSlug}/packages/generic/${pkg.packageName}/${version}/${file}`;
}
