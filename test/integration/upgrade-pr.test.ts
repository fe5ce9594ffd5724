/**
 * `capi-render upgrade --pr` end to end: a git repository with a bare remote in a temp folder, and
 * the fake GitHub API for the pull request.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const TOKEN = 'ghp_upgradeTestToken0123456789';
const BRANCH = 'capi-render/upgrade-cluster-api-v1.12.0';
const BOOTSTRAP = (version: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-bootstrap-system\nspec:\n  version: ${version}\n`;

interface Setup {
  repo: string;
  remote: string;
  gh: FakeGitHub;
  env: Record<string, string>;
}

async function setup(): Promise<Setup> {
  const gh = await startFakeGitHub({ validTokens: [TOKEN] });
  onTestFinished(() => gh.close().catch(() => undefined));
  const repo = makeRepo({
    'capi-render.yaml': configYaml(`github:\n  apiUrl: ${gh.baseUrl}\n`),
    'providers/core.yaml': CORE('v1.11.0'),
    'providers/bootstrap.yaml': BOOTSTRAP('v1.11.0'),
  });
  const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir(), GITHUB_TOKEN: TOKEN };
  expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
  initRepo(repo, env);
  const remote = path.join(tempDir(), 'mgmt.git');
  git(path.dirname(remote), env, 'init', '-q', '--bare', remote);
  git(repo, env, 'remote', 'add', 'origin', remote);
  git(repo, env, 'push', '-q', 'origin', 'main');
  return { repo, remote, gh, env };
}

const upgrade = (s: Setup, ...extra: string[]) =>
  runCli(['upgrade', '--to', 'v1.12.0', '--pr', '--repository', 'acme/mgmt', ...extra], { cwd: s.repo, env: s.env });
/** The working tree (not .git) by content. */
const workTree = (repo: string) =>
  Object.fromEntries(Object.entries(snapshotTree(repo)).filter(([p]) => !p.startsWith('.git/')));
const pullWrites = (gh: FakeGitHub) =>
  gh.requests.filter((r) => r.route === 'pulls' && r.method !== 'GET').map((r) => `${r.method} ${r.url.split('?')[0]}`);

describe('capi-render upgrade --pr', () => {
  it('commits on the upgrade branch, pushes it and opens a pull request whose body is the safety report', async () => {
    const s = await setup();
    const before = workTree(s.repo);
    const r = await upgrade(s);
    expect(r.code, r.stderr).toBe(0);
    expect(pullWrites(s.gh)).toEqual(['POST /repos/acme/mgmt/pulls']);
    const post = s.gh.requests.find((q) => q.method === 'POST')!;
    const sent = JSON.parse(post.body!) as { title: string; head: string; base: string; body: string };
    expect(sent).toMatchObject({ title: 'chore(capi): upgrade cluster-api to v1.12.0', head: BRANCH, base: 'main' });
    expect(sent.body).toContain('Upgrades Cluster API providers with `capi-render upgrade --to v1.12.0`.');
    expect(
      sent.body.startsWith('| Environment | Provider | Version | Contract | Danger | Warning | Info | Set in |\n'),
    ).toBe(true);
    expect(sent.body).toMatch(
      /^\| default \| `cluster-api` \| v1\.11\.0 → v1\.12\.0 \| v1beta2 \| 0 \| \d+ \| \d+ \| `providers\/core\.yaml:7` \|$/m,
    );
    expect(sent.body).toContain('## Upgrade safety report');
    expect(sent.body).toContain('(`image-changed`)');
    expect(sent.body).toContain('#### default/cluster-api');
    // Where the same review is as one page (the remote's host is not GitHub here, so no runs link).
    expect(sent.body).toContain(
      '`capi-render report --base main --out capi-render-report.html`; the CI workflow of `capi-render init` uploads it as the `capi-render-report` artifact.',
    );
    expect(r.stderr).toContain(`pull request #1 created: https://github.com/acme/mgmt/pull/1`);

    // The branch on the remote holds the edit, the lock and rendered/, with a conventional message.
    expect(git(s.remote, s.env, 'log', '-1', '--format=%s', BRANCH)).toBe(
      'chore(capi): upgrade cluster-api to v1.12.0',
    );
    expect(git(s.remote, s.env, 'log', '-1', '--format=%b', BRANCH)).toContain(
      '- default: CoreProvider/capi-system/cluster-api v1.11.0 → v1.12.0',
    );
    const files = git(s.remote, s.env, 'diff', '--name-only', 'main', BRANCH).split('\n');
    expect(files).toContain('providers/core.yaml');
    expect(files).toContain('capi-render.lock');
    expect(files).toContain('rendered/default/cluster-api/deployment-capi-controller-manager.yaml');
    expect(git(s.remote, s.env, 'show', `${BRANCH}:providers/core.yaml`)).toContain('version: v1.12.0');
    // The user is back on main with a clean working tree.
    expect(git(s.repo, s.env, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(git(s.repo, s.env, 'status', '--porcelain')).toBe('');
    expect(workTree(s.repo)).toEqual(before);
    for (const text of [r.stdout, r.stderr, git(s.remote, s.env, 'log', '-1', '--format=%B', BRANCH)])
      expect(text).not.toContain(TOKEN);
  });

  it('re-running after main moved force-pushes the branch and updates the same pull request (PATCH, no second POST)', async () => {
    const s = await setup();
    expect((await upgrade(s)).code).toBe(0);
    const first = git(s.remote, s.env, 'rev-parse', BRANCH);
    writeFileSync(path.join(s.repo, 'README.md'), '# management clusters\n');
    git(s.repo, s.env, 'add', 'README.md');
    git(s.repo, s.env, 'commit', '-q', '-m', 'docs: readme');
    const again = await upgrade(s);
    expect(again.code, again.stderr).toBe(0);
    expect(pullWrites(s.gh)).toEqual(['POST /repos/acme/mgmt/pulls', 'PATCH /repos/acme/mgmt/pulls/1']);
    expect(s.gh.pulls).toHaveLength(1);
    expect(s.gh.pulls[0]!.body).toContain('## Upgrade safety report');
    expect(again.stderr).toContain('pull request #1 updated');
    const second = git(s.remote, s.env, 'rev-parse', BRANCH);
    expect(second).not.toBe(first);
    expect(git(s.remote, s.env, 'rev-parse', `${BRANCH}~1`)).toBe(git(s.repo, s.env, 'rev-parse', 'main'));
    expect(again.stderr).not.toContain(TOKEN);
  });

  it('opens nothing when nothing changes: no branch, no commit, no pull request', async () => {
    const s = await setup();
    writeFileSync(path.join(s.repo, 'providers/core.yaml'), CORE('v1.12.0'));
    writeFileSync(path.join(s.repo, 'providers/bootstrap.yaml'), BOOTSTRAP('v1.12.0'));
    expect((await runCli(['build'], { cwd: s.repo, env: s.env })).code).toBe(0);
    git(s.repo, s.env, 'commit', '-q', '-am', 'already upgraded');
    const head = git(s.repo, s.env, 'rev-parse', 'HEAD');
    const r = await upgrade(s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('nothing to upgrade; no pull request');
    expect(s.gh.requests.filter((q) => q.route === 'pulls')).toEqual([]);
    expect(git(s.remote, s.env, 'branch', '--list')).not.toContain('capi-render/');
    expect(git(s.repo, s.env, 'branch', '--list')).not.toContain('capi-render/');
    expect(git(s.repo, s.env, 'rev-parse', 'HEAD')).toBe(head);
  });

  it('without a token it stops before touching anything', async () => {
    const s = await setup();
    const before = workTree(s.repo);
    const { GITHUB_TOKEN: _t, ...noToken } = s.env;
    const r = await runCli(['upgrade', '--to', 'v1.12.0', '--pr', '--repository', 'acme/mgmt'], {
      cwd: s.repo,
      env: noToken,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[auth]');
    expect(workTree(s.repo)).toEqual(before);
    expect(s.gh.requests.filter((q) => q.route === 'pulls')).toEqual([]);
  });

  it('a remote whose URL names no GitHub repository needs --repository', async () => {
    const s = await setup();
    const r = await runCli(['upgrade', '--to', 'v1.12.0', '--pr'], { cwd: s.repo, env: s.env });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[git]');
    expect(r.stderr).toContain('--repository owner/name');
  });
});
