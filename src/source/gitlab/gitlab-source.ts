/**
 * A GitLab generic package as a {@link ReleaseSource}. Files are read as clusterctl reads them
 * (`repository_gitlab.go`): `…/packages/generic/{package}/{version}/{file}`. Versions are listed
 * through GitLab's Packages API (gitlab-packages.ts), where clusterctl's GetVersions returns only
 * the URL's version — so `latest`, ranges and `plan` work for GitLab as for GitHub; an empty
 * spec.version still takes the URL's version, as clusterctl's default version (source/catalog.ts).
 */
import { releaseSourceId, type Artifact, type ReleaseSource } from '../release-source.js';
import type { GitLabClient } from './gitlab-client.js';
import { gitLabFileUrl, type GitLabPackageUrl } from './gitlab-url.js';

export { createGitLabClient, GITLAB_TOKEN_ENV, GITLAB_TOKEN_VARIABLE } from './gitlab-client.js';
export type { FetchLike, GitLabClient, GitLabClientOptions, GitLabPackageRef } from './gitlab-client.js';
export { GITLAB_URL_FORM, gitLabFileUrl, isGitLabUrl, parseGitLabPackageUrl } from './gitlab-url.js';
export type { GitLabPackageUrl } from './gitlab-url.js';
export { packageListUrl } from './gitlab-packages.js';

/**
 * The source of one package. Its id, `gitlab:{host}/{projectSlug}/{packageName}`, names what the
 * user wrote (never a test server or proxy), so the lock is the same on every machine.
 */
export function createGitLabSource(
  client: GitLabClient,
  pkg: Pick<GitLabPackageUrl, 'host' | 'projectSlug' | 'packageName'>,
): ReleaseSource {
  const project = safeDecode(pkg.projectSlug);
  return {
    id: releaseSourceId('gitlab', `${pkg.host}/${pkg.projectSlug}/${pkg.packageName}`),
    description: `GitLab package ${pkg.packageName} of ${project} on ${pkg.host}`,
    remote: true,
    listVersions: () => client.listVersions(pkg),
    async readFile(version, fileName): Promise<Artifact> {
      const url = gitLabFileUrl(pkg, version, fileName);
      return { bytes: await client.getFile({ url, version, file: fileName }), url };
    },
  };
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
