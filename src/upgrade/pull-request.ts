/**
 * `upgrade --pr`: commit an upgrade on its own branch, force-push it with plain `git`, and open —
 * or, when one is already open for the branch, update — the pull request through the GitHub API.
 * Split in two so nothing happens before everything needed is known: {@link preparePullRequest}
 * checks the repository, the remote, the token and the base branch without side effects;
 * {@link publishPullRequest} does the work and returns to the branch the user was on.
 * The token goes only to the GitHub API client; it is never put in a URL, a command line or a message.
 */
import { SpecError, error } from '../errors.js';
import type { GitHubConfig } from '../config/config-types.js';
import type { FetchLike } from '../source/http/network-fetch.js';
import { createGitHubPulls, type GitHubPulls, type PullRequest } from '../source/github/github-pulls.js';
import { GITHUB_API_BASE_URL, GITHUB_HOST, enterpriseApiBaseUrl } from '../source/github/github-url.js';
import type { GitRunner } from './git-command.js';

/** The `--pr` flags and the GitHub settings. */
export interface PullRequestSettings {
  /** Git remote to push to. Default: `origin`. */
  remote?: string;
  /** `owner/name` on GitHub. Default: parsed from the remote's URL. */
  repository?: string;
  /** Base branch of the pull request. Default: the branch checked out now. */
  base?: string;
  github: GitHubConfig;
  /** GitHub token (GITHUB_TOKEN / GH_TOKEN). Required. */
  token: string | undefined;
  /** Pull-request client factory, for tests and embedders. Default: octokit against the API base URL. */
  pulls?: (apiBaseUrl: string, token: string) => GitHubPulls;
  /** HTTP transport of the default client (the proxy-aware fetch). Default: the global fetch. */
  fetch?: FetchLike;
}

/** Everything {@link publishPullRequest} needs, checked. */
export interface PreparedPullRequest {
  git: GitRunner;
  remote: string;
  owner: string;
  repo: string;
  base: string;
  /** The branch (or commit, when detached) checked out before; restored at the end. */
  returnTo: string;
  pulls: GitHubPulls;
  /** The repository's web page (`https://github.com/o/r`), when the host is known. */
  webUrl?: string;
}

/** What to commit and what the pull request says. */
export interface PullRequestContent {
  branch: string;
  title: string;
  commitMessage: string;
  body: string;
  /** Repository-relative paths to commit (edited inputs, lock, output folder). */
  paths: readonly string[];
}

/** The branch, commit and pull request an upgrade published. */
export interface PublishedPullRequest {
  branch: string;
  commit: string;
  action: 'created' | 'updated';
  pull: PullRequest;
}

/** Checks that `--pr` can work; SpecError `auth`/`git` naming what is missing. No side effects. */
export async function preparePullRequest(git: GitRunner, settings: PullRequestSettings): Promise<PreparedPullRequest> {
  if (!settings.token) {
    throw new SpecError(
      error('auth', '--pr needs a GitHub token to open the pull request', {
        hint: 'set GITHUB_TOKEN or GH_TOKEN to a token that may push and open pull requests',
      }),
    );
  }
  await git(['rev-parse', '--show-toplevel']);
  const remote = settings.remote ?? 'origin';
  const url = (await git(['remote', 'get-url', remote])).toString('utf8').trim();
  const parsed = parseRemote(url, settings.github);
  const slug = settings.repository ?? (parsed ? `${parsed.owner}/${parsed.repo}` : undefined);
  const [owner, repo, ...extra] = (slug ?? '').split('/');
  if (!owner || !repo || extra.length > 0) {
    throw new SpecError(
      error(
        'git',
        slug
          ? `--repository must be owner/name, got ${slug}`
          : `cannot tell the GitHub repository from remote ${remote} (${redactUrl(url)})`,
        { hint: 'pass --repository owner/name' },
      ),
    );
  }
  const branch = (await git(['symbolic-ref', '-q', '--short', 'HEAD']).catch(() => Buffer.from('')))
    .toString('utf8')
    .trim();
  const base = settings.base ?? branch;
  if (!base)
    throw new SpecError(
      error('git', 'HEAD is detached, so the base branch of the pull request is unknown', {
        hint: 'pass --pr-base BRANCH',
      }),
    );
  const returnTo = branch || (await git(['rev-parse', 'HEAD'])).toString('utf8').trim();
  const apiBaseUrl = parsed?.apiBaseUrl ?? settings.github.apiUrl ?? GITHUB_API_BASE_URL;
  const pulls = (
    settings.pulls ??
    ((baseUrl, token) => createGitHubPulls({ baseUrl, token, ...(settings.fetch ? { fetch: settings.fetch } : {}) }))
  )(apiBaseUrl, settings.token);
  const webOrigin = parsed?.webOrigin ?? (apiBaseUrl === GITHUB_API_BASE_URL ? `https://${GITHUB_HOST}` : undefined);
  return {
    git,
    remote,
    owner,
    repo,
    base,
    returnTo,
    pulls,
    ...(webOrigin ? { webUrl: `${webOrigin}/${owner}/${repo}` } : {}),
  };
}

/**
 * Commits `paths` on `branch` (created or reset at the current commit), force-pushes it, opens or
 * updates the pull request, and checks out the previous branch again. Undefined — and no branch,
 * commit or pull request — when `paths` hold no change.
 */
export async function publishPullRequest(
  p: PreparedPullRequest,
  content: PullRequestContent,
): Promise<PublishedPullRequest | undefined> {
  const { git } = p;
  const status = (await git(['status', '--porcelain', '-z', '--untracked-files=all', '--', ...content.paths])).toString(
    'utf8',
  );
  if (status === '') return undefined;
  let commit: string;
  await git(['checkout', '-q', '-B', content.branch]);
  try {
    await git(['add', '-A', '--', ...content.paths]);
    await git(['commit', '-q', '-F', '-', '--', ...content.paths], { input: content.commitMessage });
    commit = (await git(['rev-parse', 'HEAD'])).toString('utf8').trim();
  } finally {
    await git(['checkout', '-q', p.returnTo]);
  }
  await git(['push', '--force', '--quiet', p.remote, `${commit}:refs/heads/${content.branch}`]);
  const open = await p.pulls.findOpen(p.owner, p.repo, content.branch);
  if (open) {
    const pull = await p.pulls.update(p.owner, p.repo, open.number, { title: content.title, body: content.body });
    return { branch: content.branch, commit, action: 'updated', pull };
  }
  const pull = await p.pulls.create(p.owner, p.repo, {
    title: content.title,
    body: content.body,
    head: content.branch,
    base: p.base,
  });
  return { branch: content.branch, commit, action: 'created', pull };
}

/**
 * owner/repo and API base of a GitHub remote URL: `https://github.com/o/r(.git)`,
 * `git@github.com:o/r.git`, `ssh://git@github.com/o/r.git`, or the same on a configured GitHub
 * Enterprise host. Undefined for anything else (a local path, another forge).
 */
export function parseRemote(
  url: string,
  config: GitHubConfig,
): { owner: string; repo: string; apiBaseUrl: string; webOrigin: string } | undefined {
  const scp = /^(?:[^@/]+@)?([^:/]+):(?!\/)(.+)$/.exec(url);
  let host: string;
  let pathname: string;
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) {
    host = scp[1]!;
    pathname = scp[2]!;
  } else {
    try {
      const u = new URL(url);
      if (!['https:', 'http:', 'ssh:', 'git:'].includes(u.protocol)) return undefined;
      host = u.host;
      pathname = u.pathname;
    } catch {
      return undefined;
    }
  }
  const m = /^\/?([^/]+)\/([^/]+?)(?:\.git)?\/?$/.exec(pathname);
  if (!m) return undefined;
  if (host === GITHUB_HOST)
    return {
      owner: m[1]!,
      repo: m[2]!,
      apiBaseUrl: config.apiUrl ?? GITHUB_API_BASE_URL,
      webOrigin: `https://${GITHUB_HOST}`,
    };
  const enterprise = (config.enterpriseHosts ?? []).find((h) => hostOf(h.origin) === host);
  return enterprise
    ? {
        owner: m[1]!,
        repo: m[2]!,
        apiBaseUrl: enterpriseApiBaseUrl(enterprise),
        webOrigin: enterprise.origin.replace(/\/+$/, ''),
      }
    : undefined;
}

function hostOf(origin: string): string | undefined {
  try {
    return new URL(origin).host;
  } catch {
    return undefined;
  }
}

/** A remote URL for messages, without any user:password part. */
function redactUrl(url: string): string {
  return url.replace(/\/\/[^/@]+@/, '//');
}
