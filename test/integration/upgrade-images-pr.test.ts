/**
 * `capi-render upgrade --images --pr` end to end, published as a version upgrade is
 * (upgrade-pr.test.ts): a real registry (Debian's docker-registry) whose tag is re-pushed, a git
 * repository with a bare remote in a temp folder, and the fake GitHub API for the pull request. The
 * branch follows the upgrade scheme (`capi-render/upgrade-images-<id>`), the commit holds the lock and
 * rendered/ only, the body lists each environment's digest change above the safety report, a re-run
 * updates the same pull request, and nothing moved means no branch and no pull request.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { pushTestImage } from '../helpers/test-images.js';
import { tempDir } from '../helpers/tmp.js';

const skipRegistry = skipWithout(registryUnavailableReason(), 'the upgrade --images --pr tests');

const TOKEN = 'ghp_imagesPrTestToken0123456789';
const DEPLOYMENT = (env: string) => `rendered/${env}/cluster-api/deployment-capi-controller-manager.yaml`;

interface Setup {
  repo: string;
  remote: string;
  gh: FakeGitHub;
  env: Record<string, string>;
  /** The image every environment runs, and the digest locked on main. */
  image: string;
  locked: string;
  /** Re-pushes the tag: a new digest. */
  move(): Promise<string>;
}

describe.skipIf(skipRegistry)('capi-render upgrade --images --pr', { timeout: 120_000 }, () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry();
  });
  afterAll(async () => {
    await registry?.stop();
  });

  /** dev and prod run one image (every provider image renamed to it), pinned by digest and committed on main, pushed to the remote. */
  async function setup(name: string): Promise<Setup> {
    const repository = `capi/${name}`;
    const first = await pushTestImage(registry.host, repository, 'v1.12.0', { platforms: ['linux/amd64'] });
    const gh = await startFakeGitHub({ validTokens: [TOKEN] });
    onTestFinished(() => gh.close().catch(() => undefined));
    const config = [
      'apiVersion: capi-render/v1alpha1',
      'kind: Config',
      'certManager:',
      '  install: false',
      'repositories:',
      `  - path: ${FIXTURES}repository`,
      'images:',
      `  all: {repository: ${registry.host}/capi, name: ${name}}`,
      'imagePolicy:',
      '  pinDigests: true',
      `  insecureRegistries: [${registry.host}]`,
      'github:',
      `  apiUrl: ${gh.baseUrl}`,
      '',
    ].join('\n');
    const overlay = 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n';
    const repo = makeRepo({
      'capi-render.yaml': config,
      'providers/core.yaml': CORE(),
      'overlays/dev/overlay.yaml': overlay,
      'overlays/prod/overlay.yaml': overlay,
    });
    const env = { ...gitEnv(tempDir()), CAPI_RENDER_CACHE_DIR: tempDir(), GITHUB_TOKEN: TOKEN };
    const build = await runCli(['build'], { cwd: repo, env });
    expect(build.code, build.stderr).toBe(0);
    initRepo(repo, env);
    const remote = path.join(tempDir(), 'mgmt.git');
    git(path.dirname(remote), env, 'init', '-q', '--bare', remote);
    git(repo, env, 'remote', 'add', 'origin', remote);
    git(repo, env, 'push', '-q', 'origin', 'main');
    const move = async () =>
      (await pushTestImage(registry.host, repository, 'v1.12.0', { platforms: ['linux/amd64', 'linux/arm64'] })).digest;
    // The lock, and so the re-pin, names the image as released; images: sends it to the test registry.
    return {
      repo,
      remote,
      gh,
      env,
      image: 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0',
      locked: first.digest,
      move,
    };
  }

  const upgrade = (s: Setup, ...extra: string[]) =>
    runCli(['upgrade', '--images', '--pr', '--repository', 'acme/mgmt', ...extra], { cwd: s.repo, env: s.env });
  const workTree = (repo: string) =>
    Object.fromEntries(Object.entries(snapshotTree(repo)).filter(([p]) => !p.startsWith('.git/')));
  const pullWrites = (gh: FakeGitHub) =>
    gh.requests
      .filter((r) => r.route === 'pulls' && r.method !== 'GET')
      .map((r) => `${r.method} ${r.url.split('?')[0]}`);
  /** The branch the upgrade scheme names for these re-pins: sha256 of the sorted `image@digest` lines, 12 hex digits. */
  const branchFor = (pins: string[]) =>
    `capi-render/upgrade-images-${createHash('sha256')
      .update(
        pins
          .sort()
          .map((p) => `${p}\n`)
          .join(''),
      )
      .digest('hex')
      .slice(0, 12)}`;

  it('commits the lock and rendered/ on the images branch, pushes it and opens a pull request listing each environment’s digest change', async () => {
    const s = await setup('pr-controller');
    const moved = await s.move();
    expect(moved).not.toBe(s.locked);
    const branch = branchFor([`${s.image}@${moved}`]);
    const before = workTree(s.repo);
    const r = await upgrade(s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`re-pinned ${s.image}: ${s.locked} → ${moved} (dev, prod)`);
    expect(pullWrites(s.gh)).toEqual(['POST /repos/acme/mgmt/pulls']);
    const sent = JSON.parse(s.gh.requests.find((q) => q.method === 'POST')!.body!) as {
      title: string;
      head: string;
      base: string;
      body: string;
    };
    const title = `chore(capi): re-pin ${s.image} (tag moved)`;
    expect(sent).toMatchObject({ title, head: branch, base: 'main' });
    expect(sent.body).toContain(
      'Re-pins images whose tags moved since capi-render.lock pinned them, with `capi-render upgrade --images`.',
    );
    expect(sent.body).toContain(
      `| dev | \`${s.image}\` | \`${s.locked}\` | \`${moved}\` |\n| prod | \`${s.image}\` | \`${s.locked}\` | \`${moved}\` |`,
    );
    expect(sent.body).toContain('## Upgrade safety report');
    expect(sent.body).toContain('(`image-changed`)');
    expect(sent.body).toContain('#### dev/cluster-api');
    expect(sent.body).toContain('#### prod/cluster-api');
    expect(sent.body).toContain(
      '`capi-render report --base main --out capi-render-report.html`; the CI workflow of `capi-render init` uploads it as the `capi-render-report` artifact.',
    );
    expect(r.stderr).toContain(`pushed ${branch} (`);
    expect(r.stderr).toContain('pull request #1 created: https://github.com/acme/mgmt/pull/1');

    // The branch holds the lock and both environments' output, never an input, with the upgrades' message form.
    expect(git(s.remote, s.env, 'log', '-1', '--format=%s', branch)).toBe(title);
    expect(git(s.remote, s.env, 'log', '-1', '--format=%b', branch)).toBe(
      `- dev: ${s.image} ${s.locked} → ${moved}\n- prod: ${s.image} ${s.locked} → ${moved}\n\nFindings: 0 dangers, 0 warnings, 2 info.\nGenerated by \`capi-render upgrade --images\`.`,
    );
    const files = git(s.remote, s.env, 'diff', '--name-only', 'main', branch).split('\n');
    expect(files).toEqual(expect.arrayContaining(['capi-render.lock', DEPLOYMENT('dev'), DEPLOYMENT('prod')]));
    expect(files.filter((f) => !f.startsWith('rendered/') && f !== 'capi-render.lock')).toEqual([]);
    for (const e of ['dev', 'prod'])
      expect(git(s.remote, s.env, 'show', `${branch}:${DEPLOYMENT(e)}`)).toContain(`@${moved}`);
    // The user is back on main with a clean working tree, the old pin still there.
    expect(git(s.repo, s.env, 'symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(git(s.repo, s.env, 'status', '--porcelain')).toBe('');
    expect(workTree(s.repo)).toEqual(before);
    for (const text of [r.stdout, r.stderr, git(s.remote, s.env, 'log', '-1', '--format=%B', branch)])
      expect(text).not.toContain(TOKEN);
  });

  it('re-running after main moved force-pushes the same branch and updates the same pull request; --env names its own', async () => {
    const s = await setup('rerun-controller');
    const moved = await s.move();
    const branch = branchFor([`${s.image}@${moved}`]);
    expect((await upgrade(s)).code).toBe(0);
    const first = git(s.remote, s.env, 'rev-parse', branch);
    writeFileSync(path.join(s.repo, 'README.md'), '# management clusters\n');
    git(s.repo, s.env, 'add', 'README.md');
    git(s.repo, s.env, 'commit', '-q', '-m', 'docs: readme');
    const again = await upgrade(s);
    expect(again.code, again.stderr).toBe(0);
    expect(pullWrites(s.gh)).toEqual(['POST /repos/acme/mgmt/pulls', 'PATCH /repos/acme/mgmt/pulls/1']);
    expect(again.stderr).toContain('pull request #1 updated');
    expect(git(s.remote, s.env, 'rev-parse', `${branch}~1`)).toBe(git(s.repo, s.env, 'rev-parse', 'main'));
    expect(git(s.remote, s.env, 'rev-parse', branch)).not.toBe(first);

    // Limited to prod: the branch and title say so (the digest still moves wherever the image runs).
    const prod = await upgrade(s, '--env', 'prod');
    expect(prod.code, prod.stderr).toBe(0);
    const post = JSON.parse(s.gh.requests.filter((q) => q.method === 'POST').at(-1)!.body!) as {
      title: string;
      head: string;
      body: string;
    };
    expect(post).toMatchObject({ title: `chore(capi): re-pin ${s.image} (tag moved) in prod`, head: `${branch}-prod` });
    expect(post.body).toContain('with `capi-render upgrade --env prod --images`.');
  });

  it('opens nothing when no tag moved: no branch, no commit, no pull request', async () => {
    const s = await setup('still-controller');
    const head = git(s.repo, s.env, 'rev-parse', 'HEAD');
    const r = await upgrade(s);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('nothing re-pinned; no pull request');
    expect(s.gh.requests.filter((q) => q.route === 'pulls')).toEqual([]);
    expect(git(s.remote, s.env, 'branch', '--list')).not.toContain('capi-render/');
    expect(git(s.repo, s.env, 'branch', '--list')).not.toContain('capi-render/');
    expect(git(s.repo, s.env, 'rev-parse', 'HEAD')).toBe(head);
    expect(git(s.repo, s.env, 'status', '--porcelain')).toBe('');
  });

  it('without a token it stops before asking the registry or touching anything', async () => {
    const s = await setup('token-controller');
    await s.move();
    const before = workTree(s.repo);
    const { GITHUB_TOKEN: _t, ...noToken } = s.env;
    const r = await runCli(['upgrade', '--images', '--pr', '--repository', 'acme/mgmt'], { cwd: s.repo, env: noToken });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[auth]');
    expect(r.stderr).not.toContain('re-pinned');
    expect(workTree(s.repo)).toEqual(before);
    expect(readFileSync(path.join(s.repo, DEPLOYMENT('dev')), 'utf8')).toContain(`@${s.locked}`);
    expect(s.gh.requests.filter((q) => q.route === 'pulls')).toEqual([]);
  });
});
