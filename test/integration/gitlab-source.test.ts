/**
 * GitLab generic-package sources end to end through the CLI, against a local server that answers
 * like GitLab's packages API and serves the real release files. Provider URLs keep clusterctl's
 * form (https://gitlab.example.com/api/v4/projects/…); the injected transport routes them to the
 * server, as a user's network would route them to GitLab.
 */
import { readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { parseLock } from '../../src/lock/lock-file.js';
import { sha256Hex } from '../../src/source/artifact-cache.js';
import { runCli } from '../helpers/cli.js';
import {
  GITLAB_HOST,
  gitLabUrl,
  startFakeGitLab,
  type FakeGitLab,
  type FakeGitLabOptions,
} from '../helpers/fake-gitlab.js';
import { fixtureText } from '../helpers/fixtures.js';
import { configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const TOKEN = 'glpat-fixture-token-0123456789';

const KUBEADM = [
  {
    kind: 'CoreProvider',
    name: 'cluster-api',
    namespace: 'capi-system',
    label: 'cluster-api',
    file: 'core-components.yaml',
  },
  {
    kind: 'BootstrapProvider',
    name: 'kubeadm',
    namespace: 'capi-kubeadm-bootstrap-system',
    label: 'bootstrap-kubeadm',
    file: 'bootstrap-components.yaml',
  },
  {
    kind: 'ControlPlaneProvider',
    name: 'kubeadm',
    namespace: 'capi-kubeadm-control-plane-system',
    label: 'control-plane-kubeadm',
    file: 'control-plane-components.yaml',
  },
] as const;

/** A provider CR; with `url`, fetched from it; `secret` names a configSecret. */
function providerCr(
  p: (typeof KUBEADM)[number],
  version: string,
  options: { url?: string; secret?: string } = {},
): string {
  const fetch = options.url ? `  fetchConfig:\n    url: ${options.url}\n` : '';
  const secret = options.secret ? `  configSecret:\n    name: ${options.secret}\n` : '';
  return `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${p.kind}\nmetadata:\n  name: ${p.name}\n  namespace: ${p.namespace}\nspec:\n  version: "${version}"\n${fetch}${secret}`;
}

const tokenSecret = (namespace: string, token: string) =>
  `---\napiVersion: v1\nkind: Secret\nmetadata:\n  name: gitlab-credentials\n  namespace: ${namespace}\nstringData:\n  gitlab-access-token: ${token}\n`;

/** A repository whose kubeadm set comes from the fake GitLab (cert-manager from the local fixtures). */
function gitLabRepo(options: { version?: string; urlVersion?: string; secret?: string; config?: string } = {}): string {
  const version = options.version ?? 'v1.12.0';
  const files: Record<string, string> = { 'capi-render.yaml': configYaml(options.config ?? '') };
  for (const p of KUBEADM) {
    const url = gitLabUrl(p.label, options.urlVersion ?? 'v1.12.0', p.file);
    files[`providers/${p.label}.yaml`] =
      providerCr(p, version, { url, ...(options.secret ? { secret: 'gitlab-credentials' } : {}) }) +
      (options.secret ? tokenSecret(p.namespace, options.secret) : '');
  }
  return makeRepo(files);
}

async function fake(options: FakeGitLabOptions = {}): Promise<FakeGitLab> {
  const gl = await startFakeGitLab(options);
  onTestFinished(() => gl.close().catch(() => undefined));
  return gl;
}

const lockOf = (repo: string) => parseLock(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8'));
const firstLine = (text: string) => text.split('\n')[0] ?? '';

/** Every file under dir, as text (to look for a token that must never be stored). */
function allText(dir: string): string {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d)) {
      const p = path.join(d, e);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(readFileSync(p, 'latin1'));
    }
  };
  walk(dir);
  return out.join('\n');
}

describe('GitLab generic-package sources', () => {
  it('a build from GitLab equals the build from the local repository, and the lock records GitLab', async () => {
    const gl = await fake();
    const cache = tempDir();
    const fromGitLab = gitLabRepo();
    const r = await runCli(['build'], { cwd: fromGitLab, env: { CAPI_RENDER_CACHE_DIR: cache }, fetch: gl.fetch });
    expect(r.code, r.stderr).toBe(0);

    const local = makeRepo(
      Object.fromEntries(KUBEADM.map((p) => [`providers/${p.label}.yaml`, providerCr(p, 'v1.12.0')])),
    );
    const l = await runCli(['build'], { cwd: local, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(l.code, l.stderr).toBe(0);
    expect(snapshotTree(path.join(fromGitLab, 'rendered'))).toEqual(snapshotTree(path.join(local, 'rendered')));

    const lock = lockOf(fromGitLab);
    const core = lock.environments[0]!.providers.find((p) => p.provider === 'CoreProvider/capi-system/cluster-api')!;
    expect(core).toMatchObject({ version: 'v1.12.0', source: `gitlab:${GITLAB_HOST}/capi%2Freleases/cluster-api` });
    const artifact = lock.artifacts.find((a) => a.file === 'core-components.yaml')!;
    expect(artifact).toEqual({
      source: `gitlab:${GITLAB_HOST}/capi%2Freleases/cluster-api`,
      version: 'v1.12.0',
      file: 'core-components.yaml',
      url: `https://${GITLAB_HOST}/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.12.0/core-components.yaml`,
      sha256: sha256Hex(new TextEncoder().encode(fixtureText('repository/cluster-api/v1.12.0/core-components.yaml'))),
    });
    // The packages API paths clusterctl requests, project slug still encoded, no token without one configured.
    expect(gl.requests.map((q) => q.url)).toContain(
      '/api/v4/projects/capi%2Freleases/packages/generic/bootstrap-kubeadm/v1.12.0/metadata.yaml',
    );
    expect(gl.requests.every((q) => q.headers.authorization === undefined)).toBe(true);
  });

  it('--offline builds from the cache without a connection', async () => {
    const gl = await fake();
    const cache = tempDir();
    const repo = gitLabRepo();
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache }, fetch: gl.fetch })).code).toBe(
      0,
    );
    const rendered = snapshotTree(path.join(repo, 'rendered'));
    rmSync(path.join(repo, 'rendered'), { recursive: true });
    await gl.close();
    const refuse = async (): Promise<Response> => {
      throw new Error('--offline opened a connection');
    };
    const r = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache }, fetch: refuse });
    expect(r.code, r.stderr).toBe(0);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(rendered);

    // With an empty cache, --offline names what is missing instead of connecting.
    rmSync(path.join(repo, 'rendered'), { recursive: true });
    const empty = await runCli(['build', '--offline'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: tempDir() },
      fetch: refuse,
    });
    expect(empty.code).toBe(1);
    expect(firstLine(empty.stderr)).toMatch(
      /error\[offline\]: .*--offline: .* of GitLab package cluster-api of capi\/releases on gitlab\.example\.com v1\.12\.0 is not in the cache/,
    );
  });

  it.each([
    { name: "from the provider's configSecret (as the operator reads it)", secret: TOKEN, config: '', env: {} },
    {
      name: 'from capi-render.yaml gitlab.accessToken (an environment variable)',
      secret: undefined,
      config: 'gitlab:\n  accessToken: {fromEnv: GITLAB_ACCESS_TOKEN}\n',
      env: { GITLAB_ACCESS_TOKEN: TOKEN },
    },
    {
      name: 'the configSecret wins over capi-render.yaml',
      secret: TOKEN,
      config: 'gitlab:\n  accessToken: {fromEnv: GITLAB_ACCESS_TOKEN}\n',
      env: { GITLAB_ACCESS_TOKEN: 'glpat-other' },
    },
  ])('sends the token as Bearer $name, and stores it nowhere', async ({ secret, config, env }) => {
    const gl = await fake({ validTokens: [TOKEN] });
    const cache = tempDir();
    const repo = gitLabRepo({ config, ...(secret ? { secret } : {}) });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache, ...env }, fetch: gl.fetch });
    expect(r.code, r.stderr).toBe(0);
    expect(gl.requests.length).toBeGreaterThan(0);
    expect(gl.requests.every((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    for (const text of [
      r.stdout,
      r.stderr,
      readFileSync(path.join(repo, 'capi-render.lock'), 'utf8'),
      allText(path.join(repo, 'rendered')),
      allText(cache),
    ]) {
      expect(text).not.toContain(TOKEN);
    }
  });

  it('a redirect to object storage gets no credentials', async () => {
    const gl = await fake({ validTokens: [TOKEN], redirectDownloads: true });
    const repo = gitLabRepo({ secret: TOKEN });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() }, fetch: gl.fetch });
    expect(r.code, r.stderr).toBe(0);
    const storage = gl.requests.filter((q) => q.url.startsWith('/_storage/'));
    expect(storage.length).toBeGreaterThan(0);
    expect(storage.every((q) => q.headers.authorization === undefined)).toBe(true);
  });

  it.each([
    {
      name: "401 with a wrong token: clusterctl's own message",
      setup: (gl: FakeGitLab) => void gl,
      options: { validTokens: ['glpat-right'] },
      code: 'auth',
      phrase: `clusterctl: "failed to get file "metadata.yaml" with version "v1.12.0" from "https://${GITLAB_HOST}/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.12.0/metadata.yaml": unauthorized access, please check your credentials"`,
    },
    {
      name: '404 for a version the package does not have',
      setup: (gl: FakeGitLab) => void gl,
      options: {},
      version: 'v1.99.0',
      code: 'source-not-found',
      phrase:
        'clusterctl: "failed to read "metadata.yaml" from the repository for provider "cluster-api""; clusterctl: "failed to get file "metadata.yaml" with version "v1.99.0"',
    },
    {
      name: '5xx',
      setup: (gl: FakeGitLab) => gl.failNext('server-error', 100),
      options: {},
      code: 'fetch',
      phrase: `from "https://${GITLAB_HOST}/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.12.0/metadata.yaml", got 500"`,
    },
  ])('$name', async ({ setup, options, version, code, phrase }) => {
    const gl = await fake(options);
    setup(gl);
    const repo = gitLabRepo({ secret: TOKEN, ...(version ? { version } : {}) });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() }, fetch: gl.fetch });
    expect(r.code).toBe(1);
    expect(firstLine(r.stderr)).toContain(`error[${code}]: `);
    expect(firstLine(r.stderr)).toContain(phrase);
    expect(r.stderr).not.toContain(TOKEN);
    expect(statSync(path.join(repo, 'rendered'), { throwIfNoEntry: false })).toBeUndefined();
  });

  it.each([
    { name: 'spec.version latest', version: 'latest', urlVersion: 'v1.12.0', requested: 'latest', expected: 'v1.12.0' },
    { name: 'a range', version: '~1.11', urlVersion: 'v1.12.0', requested: '~1.11', expected: 'v1.11.0' },
    { name: 'a range with an x', version: '1.10.x', urlVersion: 'v1.12.0', requested: '1.10.x', expected: 'v1.10.4' },
    {
      name: 'an empty spec.version with latest in the URL',
      version: '',
      urlVersion: 'latest',
      requested: '',
      expected: 'v1.12.0',
    },
  ])(
    '$name resolves from the Packages API listing, and the lock records the resolved version',
    async ({ version, urlVersion, requested, expected }) => {
      // Pages of 2 entries: cluster-api's nine fixture versions take five pages.
      const gl = await fake({ maxPerPage: 2 });
      const repo = gitLabRepo({ version, urlVersion });
      const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() }, fetch: gl.fetch });
      expect(r.code, r.stderr).toBe(0);
      const providers = lockOf(repo).environments[0]!.providers.filter((p) => p.provider !== 'cert-manager');
      expect(providers.map((p) => [p.requested, p.version])).toEqual(KUBEADM.map(() => [requested, expected]));
      const listed = gl.requests.filter((q) => q.url.startsWith('/api/v4/projects/capi%2Freleases/packages?'));
      // Every page of each package's listing, following Link rel="next" to the last page.
      expect(
        listed
          .filter((q) => q.url.includes('package_name=cluster-api&'))
          .map((q) => new URLSearchParams(q.url.split('?')[1]).get('page')),
      ).toEqual([null, '2', '3', '4', '5']);
      expect(listed.every((q) => q.status === 200 && q.url.includes('package_type=generic'))).toBe(true);
      // The rendered files are those of the resolved release.
      expect(
        lockOf(repo)
          .artifacts.filter((a) => a.file === 'core-components.yaml')
          .map((a) => a.url),
      ).toEqual([gitLabUrl('cluster-api', expected, 'core-components.yaml')]);
    },
  );

  it("an empty spec.version takes the URL's version, as clusterctl's default version, without listing", async () => {
    const gl = await fake();
    const repo = gitLabRepo({ version: '', urlVersion: 'v1.11.0' });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() }, fetch: gl.fetch });
    expect(r.code, r.stderr).toBe(0);
    const versions = lockOf(repo)
      .environments[0]!.providers.filter((p) => p.provider !== 'cert-manager')
      .map((p) => p.version);
    expect(versions).toEqual(['v1.11.0', 'v1.11.0', 'v1.11.0']);
    expect(gl.requests.some((q) => q.url.includes('/packages?'))).toBe(false);
  });

  it('plan lists newer GitLab versions, and upgrade moves to them', async () => {
    const gl = await fake();
    const repo = gitLabRepo({ version: 'v1.11.0' });
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    expect((await runCli(['build'], { cwd: repo, env, fetch: gl.fetch })).code).toBe(0);
    const json = await runCli(['plan', '--json'], { cwd: repo, env, fetch: gl.fetch });
    expect(json.code, json.stderr).toBe(0);
    const rows = (
      JSON.parse(json.stdout) as {
        environments: {
          providers: { label: string; version: string; sameContract: string | null; versions: { source: string } }[];
        }[];
      }
    ).environments[0]!.providers;
    expect(rows.map((p) => [p.label, p.version, p.sameContract, p.versions.source])).toEqual(
      KUBEADM.map((p) => [p.label, 'v1.11.0', 'v1.12.0', 'live']),
    );
    const text = await runCli(['plan'], { cwd: repo, env, fetch: gl.fetch });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).not.toContain('cannot be listed');

    const upgrade = await runCli(['upgrade', '--provider', 'cluster-api', '--to', 'v1.12.0'], {
      cwd: repo,
      env,
      fetch: gl.fetch,
    });
    expect(upgrade.code, upgrade.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'providers/cluster-api.yaml'), 'utf8')).toContain('version: "v1.12.0"');
  });

  it('--offline with a warm cache: build from the lock, plan from the list saved online, no connection', async () => {
    const gl = await fake();
    const cache = tempDir();
    const repo = gitLabRepo({ version: 'latest' });
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache }, fetch: gl.fetch })).code).toBe(
      0,
    );
    expect((await runCli(['plan'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache }, fetch: gl.fetch })).code).toBe(
      0,
    );
    const rendered = snapshotTree(path.join(repo, 'rendered'));
    await gl.close();
    const refuse = async (): Promise<Response> => {
      throw new Error('--offline opened a connection');
    };
    rmSync(path.join(repo, 'rendered'), { recursive: true });
    const build = await runCli(['build', '--offline'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: cache },
      fetch: refuse,
    });
    expect(build.code, build.stderr).toBe(0);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(rendered);
    expect(
      lockOf(repo).environments[0]!.providers.find((p) => p.provider === 'CoreProvider/capi-system/cluster-api'),
    ).toMatchObject({ requested: 'latest', version: 'v1.12.0' });

    const plan = await runCli(['plan', '--offline', '--json'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: cache },
      fetch: refuse,
    });
    expect(plan.code, plan.stderr).toBe(0);
    const rows = (
      JSON.parse(plan.stdout) as {
        environments: { providers: { versions: { source: string; fetchedAt: string | null } }[] }[];
      }
    ).environments[0]!.providers;
    expect(rows.map((p) => p.versions.source)).toEqual(['cached', 'cached', 'cached']);

    // A cold cache: --offline says what is missing instead of connecting.
    const cold = await runCli(['plan', '--offline'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: tempDir() },
      fetch: refuse,
    });
    expect(cold.code).toBe(1);
    expect(firstLine(cold.stderr)).toMatch(
      /error\[offline\]: --offline: .*GitLab package cluster-api of capi\/releases on gitlab\.example\.com.* (is not in the cache|was saved by an earlier online run)/,
    );
  });

  it.each([
    {
      name: 'a 401 on the listing (wrong token)',
      options: { validTokens: ['glpat-right'] },
      url: gitLabUrl('cluster-api', 'v1.12.0', 'core-components.yaml'),
      code: 'auth',
      message:
        'failed to list the versions of GitLab package cluster-api of capi/releases on gitlab.example.com: 401 Unauthorized (GitLab rejected the token)',
      hint: 'GITLAB_ACCESS_TOKEN in the environment',
    },
    {
      name: 'a 404 on the listing (no such project)',
      options: {},
      url: gitLabUrl('cluster-api', 'v1.12.0', 'core-components.yaml', 'capi%2Fmissing'),
      code: 'source-not-found',
      message:
        'failed to list the versions of GitLab package cluster-api of capi/missing on gitlab.example.com: 404 Not Found: no such project, or the package registry is disabled',
      hint: 'check the project in the provider URL',
    },
  ])('$name: a clear error at the provider, the token never shown', async ({ options, url, code, message, hint }) => {
    const gl = await fake(options);
    const p = KUBEADM[0];
    const repo = makeRepo({
      'capi-render.yaml': configYaml(),
      'providers/cluster-api.yaml':
        providerCr(p, 'latest', { url, secret: 'gitlab-credentials' }) + tokenSecret(p.namespace, TOKEN),
    });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() }, fetch: gl.fetch });
    expect(r.code).toBe(1);
    expect(firstLine(r.stderr)).toContain(`providers/cluster-api.yaml:7:12: error[${code}]: ${message}`);
    expect(r.stderr).toContain(hint);
    expect(r.stderr).not.toContain(TOKEN);
  });

  it('GITLAB_ACCESS_TOKEN, the variable clusterctl reads, is the token when capi-render.yaml names none', async () => {
    const gl = await fake({ validTokens: [TOKEN] });
    const repo = gitLabRepo({ version: 'latest' });
    const r = await runCli(['build'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: tempDir(), GITLAB_ACCESS_TOKEN: TOKEN },
      fetch: gl.fetch,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(gl.requests.every((q) => q.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);
    expect(r.stdout + r.stderr + readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).not.toContain(TOKEN);
  });
});

describe('GitLab provider URLs that clusterctl refuses', () => {
  it.each([
    {
      name: 'a subpath before /api/v4',
      url: `https://${GITLAB_HOST}/gitlab/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.12.0/core-components.yaml`,
      phrase: 'clusterctl: "invalid provider url. Only GitHub and GitLab are supported for "https" schema"',
    },
    {
      name: 'a tenth path segment',
      url: `${gitLabUrl('cluster-api', 'v1.12.0', 'core-components.yaml')}/extra`,
      phrase:
        'clusterctl: "invalid url: a GitLab repository url should be in the form https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{defaultVersion}/{componentsPath}"',
    },
    {
      name: 'not generic packages',
      url: gitLabUrl('cluster-api', 'v1.12.0', 'core-components.yaml').replace('/generic/', '/maven/'),
      phrase: 'clusterctl: "invalid url: a GitLab repository url should be in the form',
    },
  ])('$name', async ({ url, phrase }) => {
    const repo = makeRepo({ 'providers/core.yaml': providerCr(KUBEADM[0], 'v1.12.0', { url }) });
    writeFileSync(path.join(repo, 'capi-render.yaml'), configYaml());
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code).toBe(1);
    expect(firstLine(r.stderr)).toContain(phrase);
  });
});
