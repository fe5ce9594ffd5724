/**
 * A GitLab generic package as a {@link ReleaseSource}, with clusterctl's semantics
 * (`repository_gitlab.go`): files are read at `…/packages/generic/{package}/{version}/{file}`, and
 * the only version the source knows is the one in the URL — clusterctl's `GetVersions` returns just
 * that. So the source is marked {@link ReleaseSource.unlisted}: `latest`, ranges and `plan` say that
 * GitLab cannot list versions instead of choosing from a list of one.
 */
import type { Artifact, ReleaseSource } from '../release-source.js';
import type { GitLabClient } from './gitlab-client.js';
import { gitLabFileUrl, type GitLabPackageUrl } from './gitlab-url.js';

export { createGitLabClient, GITLAB_TOKEN_VARIABLE } from './gitlab-client.js';
export type { FetchLike, GitLabClient, GitLabClientOptions } from './gitlab-client.js';
export { GITLAB_URL_FORM, gitLabFileUrl, isGitLabUrl, parseGitLabPackageUrl } from './gitlab-url.js';
export type { GitLabPackageUrl } from './gitlab-url.js';

/**
 * The source of one package. Its id, `gitlab:{host}/{projectSlug}/{packageName}`, names what the
 * user wrote (never a test server or proxy), so the lock is the same on every machine.
 */
export function createGitLabSource(client: GitLabClient, pkg: Pick<GitLabPackageUrl, 'host' | 'projectSlug' | 'packageName' | 'version'>): ReleaseSource {
  const project = safeDecode(pkg.projectSlug);
  const description = `GitLab package ${pkg.packageName} of ${project} on ${pkg.host}`;
  return {
    id: `gitlab:${pkg.host}/${pkg.projectSlug}/${pkg.packageName}`,
    description,
    remote: true,
    unlisted: {
      reason: `${description} cannot be listed: like clusterctl, capi-render knows only the version in the provider URL (${pkg.version})`,
    },
    async listVersions() {
      return [pkg.version];
    },
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
