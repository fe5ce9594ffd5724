/**
 * The three pull-request calls an upgrade needs — find the open pull request of a branch, create
 * one, update one — over the same octokit transport as the release source (retries, rate limits,
 * token only to the API origin and scrubbed from every message). Each client owns its state.
 */
import { FetchError, error } from '../../errors.js';
import type { GitHubClientOptions } from './github-client-options.js';
import { createGitHubTransport, type RawResponse } from './github-transport.js';

/** What capi-render reads of a pull request. */
export interface PullRequest {
  number: number;
  /** The web page (`html_url`). */
  url: string;
  /** Head branch name. */
  head: string;
  base: string;
  title: string;
  body: string;
}

/** Title and markdown body of a pull request. */
export interface PullRequestContent {
  title: string;
  body: string;
}

/** Pull-request calls; each throws FetchError (codes `fetch`, `auth`, `rate-limit`, `source-not-found`). */
export interface GitHubPulls {
  /** The open pull request whose head is `owner:branch` (GET /repos/{owner}/{repo}/pulls?head=…&state=open), if any. */
  findOpen(owner: string, repo: string, branch: string): Promise<PullRequest | undefined>;
  /** POST /repos/{owner}/{repo}/pulls. */
  create(
    owner: string,
    repo: string,
    content: PullRequestContent & { head: string; base: string },
  ): Promise<PullRequest>;
  /** PATCH /repos/{owner}/{repo}/pulls/{number}: title and body. */
  update(owner: string, repo: string, number: number, content: PullRequestContent): Promise<PullRequest>;
}

/** Creates the client; nothing is sent until a method is called. */
export function createGitHubPulls(options: GitHubClientOptions): GitHubPulls {
  const { send } = createGitHubTransport(options);
  const base = (owner: string, repo: string) => `/repos/${encodeURIComponent(owner)}/${encodeURIComponent(repo)}/pulls`;
  const need = (response: RawResponse | undefined, what: string): RawResponse => {
    if (!response) {
      throw new FetchError(
        error('source-not-found', `${what}: GitHub answered 404`, {
          hint: 'check --repository (or the remote URL) and that the token may write pull requests to it',
        }),
      );
    }
    return response;
  };
  return {
    async findOpen(owner, repo, branch) {
      const head = encodeURIComponent(`${owner}:${branch}`);
      const response = need(
        await send({ method: 'GET', url: `${base(owner, repo)}?head=${head}&state=open&per_page=100` }),
        `listing pull requests of ${owner}/${repo}`,
      );
      const list = Array.isArray(response.data) ? response.data : [];
      const found = list
        .map((p) => toPullRequest(p))
        .filter((p): p is PullRequest => p !== undefined && p.head === branch);
      return found.sort((a, b) => a.number - b.number)[0];
    },
    async create(owner, repo, content) {
      const response = need(
        await send({ method: 'POST', url: base(owner, repo), data: content }),
        `creating a pull request in ${owner}/${repo}`,
      );
      return parsed(response, 'the created pull request');
    },
    async update(owner, repo, number, content) {
      const response = need(
        await send({ method: 'PATCH', url: `${base(owner, repo)}/${number}`, data: content }),
        `updating pull request #${number} of ${owner}/${repo}`,
      );
      return parsed(response, `pull request #${number}`);
    },
  };
}

function parsed(response: RawResponse, what: string): PullRequest {
  const pull = toPullRequest(response.data);
  if (!pull)
    throw new FetchError(
      error('fetch', `GitHub answered ${what} without a number and html_url`, {
        hint: 'the API base URL may not be a GitHub REST API',
      }),
    );
  return pull;
}

function toPullRequest(data: unknown): PullRequest | undefined {
  if (typeof data !== 'object' || data === null) return undefined;
  const d = data as Record<string, unknown>;
  const ref = (side: unknown) =>
    typeof side === 'object' && side !== null && typeof (side as { ref?: unknown }).ref === 'string'
      ? (side as { ref: string }).ref
      : '';
  if (typeof d.number !== 'number' || typeof d.html_url !== 'string') return undefined;
  return {
    number: d.number,
    url: d.html_url,
    head: ref(d.head),
    base: ref(d.base),
    title: String(d.title ?? ''),
    body: String(d.body ?? ''),
  };
}
