import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import type { DiagnosticCode } from 'capi-render';
import { FetchError, SpecError } from '../../src/errors.js';
import type { FetchProgress } from '../../src/source/fetch-progress.js';
import {
  createGitHubClient,
  createGitHubSource,
  isSemverTag,
  type GitHubClientOptions,
} from '../../src/source/github/github-source.js';
import { thrownBy } from '../helpers/errors.js';
import { startFakeGitHub, type FakeGitHub, type FakeGitHubOptions } from '../helpers/fake-github.js';

const TOKEN = 'ghp_TestTokenThatMustNeverLeak0123456789';
const CAPI = { owner: 'kubernetes-sigs', repo: 'cluster-api' };
/** PROVENANCE.md, repository/cluster-api/v1.12.0/core-components.yaml. */
const CORE_V1_12_0_SHA256 = 'c6ffefca402b124766784aacfd76e37a4f01247177b08ea461751b7510fa9ccd';

async function fake(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const server = await startFakeGitHub(options);
  onTestFinished(() => server.close());
  return server;
}

function setup(server: FakeGitHub, options: Partial<GitHubClientOptions> = {}) {
  const events: FetchProgress[] = [];
  const client = createGitHubClient({
    baseUrl: server.baseUrl,
    retries: 2,
    retryAfterBaseMs: 1,
    maxRateLimitWaitMs: 100,
    onProgress: (event) => events.push(event),
    ...options,
  });
  return { client, events, source: createGitHubSource(client, CAPI) };
}

async function failure(promise: Promise<unknown>): Promise<FetchError> {
  try {
    await promise;
  } catch (e) {
    expect(e).toBeInstanceOf(FetchError);
    return e as FetchError;
  }
  throw new Error('expected the call to fail');
}

const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
const apiRequests = (server: FakeGitHub) => server.requests.filter((r) => r.route !== 'download');

describe('GitHub release source: listing', () => {
  it('follows Link pagination past 100 releases and keeps only semver, non-draft tags', async () => {
    const synthetic = Array.from({ length: 150 }, (_, i) => ({ tag: `v0.1.${i}` }));
    const server = await fake({
      extraReleases: {
        'kubernetes-sigs/cluster-api': [
          ...synthetic,
          { tag: 'v9.9.9', draft: true },
          { tag: 'nightly' },
          { tag: 'v2.0.0-alpha.1' },
        ],
      },
    });
    const { source } = setup(server);
    const versions = await source.listVersions();
    expect(versions).toHaveLength(9 + 150 + 1);
    expect(versions).toContain('v1.12.0');
    expect(versions).toContain('v0.1.149');
    expect(versions).toContain('v2.0.0-alpha.1');
    expect(versions).not.toContain('v9.9.9');
    expect(versions).not.toContain('nightly');
    const lists = server.requests.filter((r) => r.route === 'list');
    expect(lists.map((r) => r.url)).toEqual([
      '/repos/kubernetes-sigs/cluster-api/releases?per_page=100',
      expect.stringMatching(/^\/repositories\/\d+\/releases\?per_page=100&page=2$/),
    ]);
  });

  it('answers the second listing from 304s (ETag cache inside the client)', async () => {
    const server = await fake({
      extraReleases: { 'kubernetes-sigs/cluster-api': Array.from({ length: 120 }, (_, i) => ({ tag: `v0.2.${i}` })) },
    });
    const { source, events } = setup(server);
    const first = await source.listVersions();
    const second = await source.listVersions();
    expect(second).toEqual(first);
    const lists = server.requests.filter((r) => r.route === 'list');
    expect(lists).toHaveLength(4);
    expect(lists.slice(0, 2).map((r) => [r.status, r.headers['if-none-match']])).toEqual([
      [200, undefined],
      [200, undefined],
    ]);
    expect(lists.slice(2).map((r) => r.status)).toEqual([304, 304]);
    expect(lists.slice(2).every((r) => r.headers['if-none-match']?.startsWith('W/"'))).toBe(true);
    expect(events.filter((e) => e.type === 'response' && e.cached)).toHaveLength(2);
  });

  it('does not share the ETag cache between clients', async () => {
    const server = await fake();
    await setup(server).source.listVersions();
    await setup(server).source.listVersions();
    expect(server.requests.filter((r) => r.route === 'list').map((r) => r.status)).toEqual([200, 200]);
  });

  it('reports an unknown repository as source-not-found', async () => {
    const server = await fake();
    const source = createGitHubSource(setup(server).client, { owner: 'nobody', repo: 'nothing' });
    expect((await failure(source.listVersions())).code).toBe('source-not-found');
  });
});

describe('GitHub release source: files', () => {
  it('reads the real v1.12.0 core components byte for byte', async () => {
    const server = await fake();
    const { source, events } = setup(server);
    const artifact = await source.readFile('v1.12.0', 'core-components.yaml');
    expect(sha256(artifact.bytes)).toBe(CORE_V1_12_0_SHA256);
    expect(artifact.url).toBe(
      'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/core-components.yaml',
    );
    expect(events).toContainEqual({ type: 'download', url: artifact.url, bytes: artifact.bytes.length });
  });

  it.each([
    {
      name: 'metadata.yaml of the same tag',
      version: 'v1.12.0',
      file: 'metadata.yaml',
      disk: 'cluster-api/v1.12.0/metadata.yaml',
    },
    {
      name: 'a plain (not gzipped) asset',
      version: 'v1.3.2',
      file: 'infrastructure-components.yaml',
      disk: 'infrastructure-vcd/v1.3.2/infrastructure-components.yaml',
      repo: { owner: 'vmware', repo: 'cluster-api-provider-cloud-director' },
    },
  ])('serves $name unchanged', async ({ version, file, disk, repo }) => {
    const server = await fake();
    const source = createGitHubSource(setup(server).client, repo ?? CAPI);
    const artifact = await source.readFile(version, file);
    const expected = readFileSync(new URL(`../fixtures/repository/${disk}`, import.meta.url));
    expect(Buffer.from(artifact.bytes).equals(expected)).toBe(true);
  });

  it('reads cert-manager from its own repository', async () => {
    const server = await fake();
    const source = createGitHubSource(setup(server).client, { owner: 'cert-manager', repo: 'cert-manager' });
    const artifact = await source.readFile('v1.19.4', 'cert-manager.yaml');
    expect(new TextDecoder().decode(artifact.bytes)).toContain('kind: CustomResourceDefinition');
    expect(await source.listVersions()).toEqual(expect.arrayContaining(['v1.13.2', 'v1.14.5', 'v1.16.1', 'v1.19.4']));
  });

  it('sends the token to the API but not to the download host it redirects to', async () => {
    const server = await fake({ validTokens: [TOKEN] });
    const { source, events } = setup(server, { token: TOKEN });
    await source.readFile('v1.12.0', 'core-components.yaml');
    // The signed query of the download URL is an access grant too: it stays out of events.
    expect(events.some((e) => e.type === 'request' && e.url.includes('/_downloads/'))).toBe(true);
    expect(JSON.stringify(events)).not.toContain('sig=');
    const api = apiRequests(server);
    const downloads = server.requests.filter((r) => r.route === 'download');
    expect(api.map((r) => r.route)).toEqual(['release', 'asset']);
    expect(api.every((r) => r.headers.authorization === `token ${TOKEN}`)).toBe(true);
    expect(api.find((r) => r.route === 'asset')?.status).toBe(302);
    expect(downloads).toHaveLength(1);
    expect(downloads[0]?.headers.authorization).toBeUndefined();
  });

  it('accepts asset bytes served directly by the API (no redirect)', async () => {
    const server = await fake({ directDownloads: true });
    const artifact = await setup(server).source.readFile('v1.12.0', 'core-components.yaml');
    expect(sha256(artifact.bytes)).toBe(CORE_V1_12_0_SHA256);
    expect(server.requests.map((r) => r.route)).toEqual(['release', 'asset']);
  });

  it('names the available tags when the release does not exist', async () => {
    const server = await fake();
    const err = await failure(setup(server).source.readFile('v9.0.0', 'core-components.yaml'));
    expect(err.code).toBe('version-not-found');
    expect(err.diagnostics[0]?.hint).toContain('v1.12.0');
  });

  it('caps the list of available tags in the hint', async () => {
    const server = await fake({
      extraReleases: { 'kubernetes-sigs/cluster-api': Array.from({ length: 40 }, (_, i) => ({ tag: `v0.3.${i}` })) },
    });
    const err = await failure(setup(server).source.readFile('v9.0.0', 'core-components.yaml'));
    expect(err.code).toBe('version-not-found');
    expect(err.diagnostics[0]?.hint).not.toContain('v0.3.0,');
    expect(err.diagnostics[0]?.hint).toContain('v1.12.0');
  });

  it('names the release assets when the file is missing', async () => {
    const server = await fake();
    const err = await failure(setup(server).source.readFile('v1.12.0', 'no-such-file.yaml'));
    expect(err.code).toBe('source-not-found');
    expect(err.diagnostics[0]?.hint).toContain('core-components.yaml');
  });

  it('joins the root path to the file name like clusterctl', async () => {
    const server = await fake({
      repos: {},
      extraReleases: { 'o/r': [{ tag: 'v1.0.0', assets: { 'sub/components.yaml': 'kind: List\n' } }] },
    });
    const source = createGitHubSource(setup(server).client, { owner: 'o', repo: 'r', rootPath: 'sub' });
    expect(new TextDecoder().decode((await source.readFile('v1.0.0', 'components.yaml')).bytes)).toBe('kind: List\n');
  });
});

describe('GitHub release source: failures', () => {
  it('retries a rate limit that resets now, then succeeds', async () => {
    const server = await fake();
    const { source, events } = setup(server);
    server.failNext('rate-limit', 1);
    expect(await source.listVersions()).toContain('v1.12.0');
    expect(server.requests.map((r) => r.status)).toEqual([403, 200]);
    expect(events).toContainEqual(expect.objectContaining({ type: 'retry', reason: 'rate-limit', retry: 1 }));
  });

  it('retries a secondary rate limit after retry-after', async () => {
    const server = await fake();
    const { source, events } = setup(server);
    server.failNext('secondary-rate-limit', 2);
    expect(await source.listVersions()).toContain('v1.12.0');
    expect(server.requests.map((r) => r.status)).toEqual([403, 403, 200]);
    expect(events.filter((e) => e.type === 'retry' && e.reason === 'secondary-rate-limit')).toHaveLength(2);
  });

  it('gives up on a persistent rate limit with code rate-limit', async () => {
    const server = await fake();
    server.failNext('rate-limit', 100);
    const err = await failure(setup(server).source.listVersions());
    expect(err.code).toBe('rate-limit');
    expect(server.requests).toHaveLength(3); // first try + 2 retries
  });

  it('does not wait for a far reset; the hint gives the reset time in UTC', async () => {
    const server = await fake();
    server.failNext('rate-limit', 100, { resetInSeconds: 3600 });
    const before = Date.now();
    const err = await failure(setup(server).source.listVersions());
    const after = Date.now();
    expect(err.code).toBe('rate-limit');
    expect(server.requests).toHaveLength(1);
    const hint = err.diagnostics[0]?.hint ?? '';
    expect(hint).toMatch(/GITHUB_TOKEN or GH_TOKEN/);
    const iso = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/.exec(hint)?.[0];
    expect(iso).toBeDefined();
    // The server's clock an hour on, in whole seconds: between the request and the answer, however long they took.
    const reset = Date.parse(iso ?? '');
    expect(reset).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000 + 3_600_000);
    expect(reset).toBeLessThanOrEqual(after + 3_600_000);
  });

  it('retries 500s with back-off and then succeeds', async () => {
    const server = await fake();
    const { source, events } = setup(server);
    server.failNext('server-error', 2);
    const artifact = await source.readFile('v1.12.0', 'metadata.yaml');
    expect(artifact.bytes.length).toBeGreaterThan(0);
    expect(server.requests.slice(0, 3).map((r) => r.status)).toEqual([500, 500, 200]);
    expect(events.filter((e) => e.type === 'retry').map((e) => e.type === 'retry' && e.waitMs)).toEqual([1, 4]);
  });

  it('retries a 500 on the download host too', async () => {
    const server = await fake();
    server.failNext('server-error', 1, { route: 'download' });
    const artifact = await setup(server).source.readFile('v1.12.0', 'metadata.yaml');
    expect(artifact.bytes.length).toBeGreaterThan(0);
    expect(server.requests.filter((r) => r.route === 'download').map((r) => r.status)).toEqual([500, 200]);
  });

  it.each<{ name: string; kind: 'server-error' | 'unauthorized'; code: DiagnosticCode; attempts: number }>([
    { name: 'persistent 500', kind: 'server-error', code: 'fetch', attempts: 3 },
    { name: '401 (not retried)', kind: 'unauthorized', code: 'auth', attempts: 1 },
  ])('maps $name to $code', async ({ kind, code, attempts }) => {
    const server = await fake();
    server.failNext(kind, 100);
    const err = await failure(setup(server).source.listVersions());
    expect(err.code).toBe(code);
    expect(server.requests).toHaveLength(attempts);
  });

  it('maps a refused connection to fetch, naming the host', async () => {
    const port = await closedPort();
    const client = createGitHubClient({ baseUrl: `http://127.0.0.1:${port}`, retries: 1, retryAfterBaseMs: 1 });
    const err = await failure(createGitHubSource(client, CAPI).listVersions());
    expect(err.code).toBe('fetch');
    expect(err.message).toContain(`127.0.0.1:${port}`);
    expect(err.message).toContain('ECONNREFUSED');
  });

  it('times out a server that never answers', async () => {
    const silent = createHttpServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          silent.closeAllConnections();
          silent.close(() => resolve());
        }),
    );
    const { port } = silent.address() as AddressInfo;
    const client = createGitHubClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retries: 1,
      retryAfterBaseMs: 1,
      timeoutMs: 50,
    });
    const err = await failure(createGitHubSource(client, CAPI).listVersions());
    expect(err.code).toBe('fetch');
    expect(err.message).toContain('timed out');
  });

  it('never puts the token into errors or progress events', async () => {
    const server = await fake({ validTokens: ['some-other-token'] });
    const port = await closedPort();
    const errors: FetchError[] = [];
    const events: FetchProgress[] = [];
    const run = async (
      baseUrl: string,
      prepare: () => void,
      call: (s: ReturnType<typeof createGitHubSource>) => Promise<unknown>,
    ) => {
      prepare();
      const client = createGitHubClient({
        baseUrl,
        token: TOKEN,
        retries: 1,
        retryAfterBaseMs: 1,
        maxRateLimitWaitMs: 100,
        onProgress: (e) => events.push(e),
      });
      errors.push(await failure(call(createGitHubSource(client, CAPI))));
    };
    await run(
      server.baseUrl,
      () => undefined,
      (s) => s.listVersions(),
    ); // 401: token rejected
    const open = await fake();
    await run(
      open.baseUrl,
      () => open.failNext('rate-limit', 1, { resetInSeconds: 3600 }),
      (s) => s.listVersions(),
    );
    await run(
      open.baseUrl,
      () => open.failNext('server-error', 2),
      (s) => s.readFile('v1.12.0', 'metadata.yaml'),
    );
    await run(
      open.baseUrl,
      () => undefined,
      (s) => s.readFile('v0.0.0', 'metadata.yaml'),
    );
    await run(
      open.baseUrl,
      () => undefined,
      (s) => s.readFile('v1.12.0', 'missing.yaml'),
    );
    await run(
      `http://127.0.0.1:${port}`,
      () => undefined,
      (s) => s.listVersions(),
    );
    expect(errors.map((e) => e.code)).toEqual([
      'auth',
      'rate-limit',
      'fetch',
      'version-not-found',
      'source-not-found',
      'fetch',
    ]);
    for (const err of errors) {
      const text = [
        err.message,
        String(err),
        err.stack ?? '',
        JSON.stringify(err.diagnostics),
        JSON.stringify(err),
      ].join('\n');
      expect(text).not.toContain(TOKEN);
    }
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain(TOKEN);
  });
});

describe('createGitHubClient', () => {
  it('rejects an API base URL that is not a URL as a config error', () => {
    expect(thrownBy(SpecError, () => createGitHubClient({ baseUrl: 'api.github.com' })).code).toBe('config');
  });

  it('names the source after the API host for GitHub Enterprise', () => {
    const ghe = createGitHubSource(createGitHubClient({ baseUrl: 'https://ghe.example.com/api/v3' }), CAPI);
    expect(ghe.id).toBe('github:ghe.example.com/kubernetes-sigs/cluster-api');
    expect(createGitHubSource(createGitHubClient(), CAPI).id).toBe('github:kubernetes-sigs/cluster-api');
  });
});

describe('isSemverTag', () => {
  it.each([
    { input: 'v1.12.0', expected: true },
    { input: '1.12.0', expected: true },
    { input: 'v0.4.3-alpha', expected: true },
    { input: 'v1.0.0+build.5', expected: true },
    { input: 'foo', expected: false },
    { input: 'v1.0', expected: false },
    { input: 'v01.0.0', expected: false },
    { input: '=1.0.0', expected: false },
    { input: 'release-1.0', expected: false },
  ])('$input → $expected', ({ input, expected }) => {
    expect(isSemverTag(input)).toBe(expected);
  });
});

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}
