/**
 * A GitHub client whose code (github-client.ts: the octokit transport, retries, ETags, bounded
 * bodies) is imported on its first request. The catalog makes one per API origin for every GitHub
 * provider it is asked about, while a build of local repositories never sends a request: such a
 * build then never loads or compiles that code.
 */
import type { GitHubClient } from './github-client.js';
import type { GitHubClientOptions } from './github-client-options.js';
import { GITHUB_API_BASE_URL } from './github-url.js';

/** createGitHubClient(options), created on the first request; nothing is sent until then either. */
export function createLazyGitHubClient(options: GitHubClientOptions = {}): GitHubClient {
  let client: Promise<GitHubClient> | undefined;
  const loaded = () => (client ??= import('../remote-clients.js').then((m) => m.createGitHubClient(options)));
  return {
    // As the transport reads it (github-transport.ts), without loading it.
    baseUrl: (options.baseUrl ?? GITHUB_API_BASE_URL).replace(/\/+$/, ''),
    listReleases: async (owner, repo) => (await loaded()).listReleases(owner, repo),
    getReleaseByTag: async (owner, repo, tag) => (await loaded()).getReleaseByTag(owner, repo, tag),
    downloadAsset: async (owner, repo, asset) => (await loaded()).downloadAsset(owner, repo, asset),
  };
}
