/**
 * A GitLab client whose code (gitlab-client.ts and the Packages API listing under it) is imported
 * on its first request, so a build that reads no GitLab package never loads or compiles it.
 */
import type { GitLabClient, GitLabClientOptions } from './gitlab-client.js';

/** createGitLabClient(options), created on the first request; nothing is sent until then either. */
export function createLazyGitLabClient(options: GitLabClientOptions = {}): GitLabClient {
  let client: Promise<GitLabClient> | undefined;
  const loaded = () => (client ??= import('../remote-clients.js').then((m) => m.createGitLabClient(options)));
  return {
    getFile: async (request) => (await loaded()).getFile(request),
    listVersions: async (pkg) => (await loaded()).listVersions(pkg),
  };
}
