/**
 * GitHub releases as a {@link ReleaseSource}, following clusterctl's API path
 * (cluster-api v1.12.0 `repository_github.go`: `getVersions`, `getReleaseByTag`,
 * `downloadFilesFromRelease`). clusterctl asks the Go module proxy first; this source is the API
 * path only — a goproxy listing is a separate source to compose in front of it.
 */
import semver from 'semver';
import { FetchError, error, peerWording } from '../../errors.js';
import { releaseSourceId, type Artifact, type ReleaseSource } from '../release-source.js';
import { GITHUB_API_BASE_URL } from './github-url.js';
import type { GitHubClient } from './github-client.js';

export { createGitHubClient } from './github-client.js';
export type { GitHubClient, GitHubClientOptions } from './github-client.js';

/** The repository a source reads, and clusterctl's rootPath (`.`: assets sit at the top level). */
export interface GitHubRepositoryRef {
  owner: string;
  repo: string;
  /** Folder prefix joined to every file name to form the asset name. Default: `.` (none). */
  rootPath?: string;
  /** Host of the web origin the provider URL names (`github.com`, a GHE host). Default: derived from the client's API URL. */
  webHost?: string;
}

/** How many tags a "version not found" hint lists before saying how many more exist. */
const HINT_TAG_LIMIT = 10;

/**
 * A source over the releases of one repository.
 * - `listVersions()`: tags of non-draft releases that are valid semver (with or without `v`),
 *   pre-releases kept; order as GitHub returns them (callers sort).
 * - `readFile(version, file)`: the asset named `rootPath/file` of the release tagged `version`.
 *   FetchError `version-not-found` (hint: the newest available tags) when there is no such release,
 *   `source-not-found` (hint: the release's asset names) when the release lacks the asset.
 * The source keeps no state of its own; repeated calls are cheap through the client's ETag cache.
 */
export function createGitHubSource(client: GitHubClient, ref: GitHubRepositoryRef): ReleaseSource {
  const { owner, repo } = ref;
  const rootPath = ref.rootPath ?? '.';
  // The id names the web host users write in URLs, not the API endpoint this client happens to
  // talk to (a proxy or test server), so the lock is the same on every machine.
  const webHost = ref.webHost ?? (client.baseUrl === GITHUB_API_BASE_URL ? 'github.com' : new URL(client.baseUrl).host);
  const slug = webHost === 'github.com' ? `${owner}/${repo}` : `${webHost}/${owner}/${repo}`;

  const listVersions = async (): Promise<string[]> => {
    const releases = await client.listReleases(owner, repo);
    // clusterctl drops tags that are not semantic versions; drafts are not releases yet.
    return releases
      .filter((release) => !release.draft && isSemverTag(release.tagName))
      .map((release) => release.tagName);
  };

  return {
    id: releaseSourceId('github', slug),
    description: `GitHub releases of ${slug}`,
    remote: true,
    listVersions,
    async readFile(version: string, fileName: string): Promise<Artifact> {
      const release = await client.getReleaseByTag(owner, repo, version);
      if (!release) {
        // The hint is best effort: if listing fails too, the missing release is still the news.
        const available = await listVersions().catch(() => undefined);
        throw new FetchError(
          error(
            'version-not-found',
            peerWording(
              'clusterctl',
              `release not found for version ${version}`,
              `${slug} has no release tagged ${version}`,
            ),
            {
              hint: versionHint(available),
            },
          ),
        );
      }
      const assetName = rootPath === '.' || rootPath === '' ? fileName : `${rootPath}/${fileName}`;
      const asset = release.assets.find((candidate) => candidate.name === assetName);
      if (!asset) {
        const names = release.assets.map((candidate) => candidate.name).sort();
        throw new FetchError(
          error(
            'source-not-found',
            peerWording(
              'clusterctl',
              `failed to get file ${JSON.stringify(assetName)} from ${JSON.stringify(version)} release`,
              `release ${version} of ${slug} has no asset ${assetName}`,
            ),
            {
              hint: names.length > 0 ? `the release has: ${names.join(', ')}` : 'the release has no assets (yet)',
            },
          ),
        );
      }
      const bytes = await client.downloadAsset(owner, repo, asset);
      return {
        bytes,
        url: asset.browserDownloadUrl || `${client.baseUrl}/repos/${owner}/${repo}/releases/assets/${asset.id}`,
      };
    },
  };
}

/** clusterctl's `version.ParseSemantic`: strict semver with an optional leading `v`. */
export function isSemverTag(tag: string): boolean {
  return /^v?\d/.test(tag) && semver.valid(tag) !== null;
}

function versionHint(available: string[] | undefined): string {
  if (available === undefined) return 'check the version; the list of releases could not be read either';
  if (available.length === 0) return 'the repository has no releases with a semantic-version tag';
  const newest = [...available].sort((a, b) => semver.rcompare(a, b) || (a < b ? -1 : a > b ? 1 : 0));
  const shown = newest.slice(0, HINT_TAG_LIMIT).join(', ');
  const more = newest.length > HINT_TAG_LIMIT ? ` and ${newest.length - HINT_TAG_LIMIT} more` : '';
  return `available releases: ${shown}${more}; a tag can exist before its release is published (clusterctl #7889)`;
}
