/**
 * GitLab generic-package URLs (clusterctl's repository_gitlab.go form and the operator's host rule)
 * and the client's behaviour against a local fake GitLab: Bearer token, clusterctl's messages,
 * timeout, unreachable host.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { FetchError, SpecError } from '../../src/errors.js';
import {
  createGitLabClient,
  createGitLabSource,
  isGitLabUrl,
  packageListUrl,
  parseGitLabPackageUrl,
} from '../../src/source/gitlab/gitlab-source.js';
import {
  GITLAB_HOST,
  gitLabUrl,
  startFakeGitLab,
  type FakeGitLab,
  type FakeGitLabOptions,
} from '../helpers/fake-gitlab.js';
import { fixtureText } from '../helpers/fixtures.js';

const VALID = 'https://gitlab.example.org/api/v4/projects/group%2Fproject/packages/generic/my-package/v1.0/path';

describe('isGitLabUrl (the dispatch of clusterctl and the operator)', () => {
  it.each([
    { url: VALID, expected: true },
    { url: VALID.replace('gitlab.example.org', 'gitlab-ee.corp.example'), expected: true }, // the operator's gitlab-*.
    { url: VALID.replace('gitlab.example.org', 'gitlab.example.org:8443'), expected: true },
    { url: VALID.replace('gitlab.example.org', 'gitlabx.example.org'), expected: false },
    { url: VALID.replace('gitlab.example.org', 'code.example.org'), expected: false },
    { url: VALID.replace('https:', 'http:'), expected: false },
    { url: VALID.replace('/api/v4/', '/sub/api/v4/'), expected: false },
    { url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml', expected: false },
    { url: 'not a url', expected: false },
  ])('$url → $expected', ({ url, expected }) => {
    expect(isGitLabUrl(url)).toBe(expected);
  });
});

describe('parseGitLabPackageUrl (clusterctl NewGitLabRepository)', () => {
  it('reads host, encoded project slug, package, default version and file', () => {
    expect(parseGitLabPackageUrl(VALID)).toEqual({
      origin: 'https://gitlab.example.org',
      host: 'gitlab.example.org',
      projectSlug: 'group%2Fproject',
      packageName: 'my-package',
      version: 'v1.0',
      componentsFile: 'path',
    });
  });

  it.each([
    { name: 'http instead of https', url: VALID.replace('https:', 'http:') },
    { name: 'a tenth path segment', url: `${VALID}/grrr` },
    { name: 'a subpath before /api/v4', url: VALID.replace('/api/v4/', '/subpath/api/v4/') },
    { name: 'not packages', url: VALID.replace('/packages/', '/packages-invalid/') },
    { name: 'not generic', url: VALID.replace('/generic/', '/generic-invalid/') },
    { name: 'not a URL', url: '%gh&%ij' },
  ])('refuses $name with clusterctl\'s "invalid url" wording and the location', ({ url }) => {
    const where = { file: 'providers/x.yaml', line: 3, field: 'spec.fetchConfig.url' };
    let caught: unknown;
    try {
      parseGitLabPackageUrl(url, where);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SpecError);
    const d = (caught as SpecError).diagnostics[0]!;
    expect(d).toMatchObject({ code: 'source-unsupported', ...where });
    expect(d.message).toContain(
      'clusterctl: "invalid url: a GitLab repository url should be in the form https://{host}/api/v4/projects/{projectSlug}/packages/generic/{packageName}/{defaultVersion}/{componentsPath}"',
    );
  });
});

describe('the GitLab source and client against a local fake GitLab', () => {
  const serve = async (options: FakeGitLabOptions = {}) => {
    const gl = await startFakeGitLab(options);
    onTestFinished(() => gl.close().catch(() => undefined));
    return gl;
  };
  const pkg = { host: GITLAB_HOST, projectSlug: 'capi%2Freleases', packageName: 'cluster-api', version: 'v1.12.0' };

  it('reads a file with the Bearer token at the URL clusterctl builds', async () => {
    const gl = await serve({ validTokens: ['t0ken'] });
    const source = createGitLabSource(createGitLabClient({ token: 't0ken', fetch: gl.fetch }), pkg);
    expect(source).toMatchObject({
      id: 'gitlab:gitlab.example.com/capi%2Freleases/cluster-api',
      description: 'GitLab package cluster-api of capi/releases on gitlab.example.com',
      remote: true,
    });
    expect(source.unlisted).toBeUndefined();
    const artifact = await source.readFile('v1.11.0', 'metadata.yaml');
    expect(artifact.url).toBe(gitLabUrl('cluster-api', 'v1.11.0', 'metadata.yaml'));
    expect(new TextDecoder().decode(artifact.bytes)).toBe(fixtureText('repository/cluster-api/v1.11.0/metadata.yaml'));
    expect(gl.requests).toEqual([
      expect.objectContaining({
        url: '/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.11.0/metadata.yaml',
        status: 200,
      }),
    ]);
    expect(gl.requests[0]!.headers.authorization).toBe('Bearer t0ken');
  });

  it.each([
    {
      name: 'no answer within the timeout',
      fail: 'hang' as const,
      code: 'fetch',
      detail: 'no complete answer within 0.2 s',
    },
    { name: 'a 500', fail: 'server-error' as const, code: 'fetch', detail: 'got 500"; GitLab answered a server error' },
    {
      name: 'a 401',
      fail: 'unauthorized' as const,
      code: 'auth',
      detail: 'unauthorized access, please check your credentials"; GitLab rejected the token',
    },
  ])("$name: FetchError $code with clusterctl's prefix, the token never shown", async ({ fail, code, detail }) => {
    const gl = await serve();
    gl.failNext(fail, 1);
    const client = createGitLabClient({ token: 'secret-t0ken', fetch: gl.fetch, timeoutMs: 200 });
    const url = gitLabUrl('cluster-api', 'v1.12.0', 'metadata.yaml');
    const error = await client.getFile({ url, version: 'v1.12.0', file: 'metadata.yaml' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchError);
    const d = (error as FetchError).diagnostics[0]!;
    expect(d.code).toBe(code);
    expect(d.message).toContain(`clusterctl: "failed to get file "metadata.yaml" with version "v1.12.0" from "${url}"`);
    expect(d.message).toContain(detail);
    expect(JSON.stringify(d)).not.toContain('secret-t0ken');
  });

  it('an unreachable host names the host and the reason', async () => {
    const refused = async (): Promise<Response> => {
      throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } });
    };
    const client = createGitLabClient({ fetch: refused });
    const error = await client
      .getFile({ url: gitLabUrl('cluster-api', 'v1.12.0', 'metadata.yaml'), version: 'v1.12.0', file: 'metadata.yaml' })
      .catch((e: unknown) => e);
    expect((error as FetchError).diagnostics[0]!.message).toContain(
      'could not reach gitlab.example.com (ECONNREFUSED)',
    );
  });
});

describe('listing versions through the Packages API (GET /projects/:id/packages)', () => {
  const serve = async (options: FakeGitLabOptions = {}) => {
    const gl = await startFakeGitLab(options);
    onTestFinished(() => gl.close().catch(() => undefined));
    return gl;
  };
  const pkg = { host: GITLAB_HOST, projectSlug: 'capi%2Freleases', packageName: 'cluster-api' };
  const FIXTURE_VERSIONS = [
    'v1.10.4',
    'v1.11.0',
    'v1.12.0',
    'v1.4.2',
    'v1.4.3',
    'v1.5.4',
    'v1.6.0',
    'v1.7.7',
    'v1.8.0',
  ];
  const listings = (gl: FakeGitLab) => gl.requests.filter((q) => q.url.includes('/packages?'));

  it('asks for generic packages of that name, 100 a page, with the token', async () => {
    const gl = await serve({ validTokens: ['t0ken'] });
    const versions = await createGitLabSource(
      createGitLabClient({ token: 't0ken', fetch: gl.fetch }),
      pkg,
    ).listVersions();
    expect(versions).toEqual(FIXTURE_VERSIONS);
    expect(listings(gl).map((q) => q.url)).toEqual([
      '/api/v4/projects/capi%2Freleases/packages?package_type=generic&package_name=cluster-api&per_page=100',
    ]);
    expect(packageListUrl(pkg)).toBe(
      `https://${GITLAB_HOST}/api/v4/projects/capi%2Freleases/packages?package_type=generic&package_name=cluster-api&per_page=100`,
    );
    expect(gl.requests[0]!.headers.authorization).toBe('Bearer t0ken');
  });

  it.each([
    { name: 'pages of 1 (nine pages)', maxPerPage: 1, pages: 9 },
    { name: 'pages of 4 (three pages)', maxPerPage: 4, pages: 3 },
    { name: 'one page of 100', maxPerPage: 100, pages: 1 },
  ])('follows every page: $name', async ({ maxPerPage, pages }) => {
    const gl = await serve({ maxPerPage });
    expect(await createGitLabClient({ fetch: gl.fetch }).listVersions(pkg)).toEqual(FIXTURE_VERSIONS);
    expect(listings(gl)).toHaveLength(pages);
  });

  it('keeps only exact names, generic packages, usable states and semantic versions (package_name is a fuzzy search)', async () => {
    const gl = await serve({
      extraPackages: [
        { name: 'cluster-api-addons', version: 'v9.0.0' }, // matched by the fuzzy filter, another package
        { name: 'cluster-api', version: 'v1.13.0', status: 'error' }, // upload failed
        { name: 'cluster-api', version: 'v1.13.1', status: 'processing' }, // not listed by GitLab by default either
        { name: 'cluster-api', version: 'v1.12.1', status: 'deprecated' }, // still a release
        { name: 'cluster-api', version: 'nightly' }, // not a semantic version (clusterctl drops those)
        { name: 'cluster-api', version: null }, // versionless
        { name: 'cluster-api', version: 'v1.12.0' }, // the same version twice
      ],
    });
    expect(await createGitLabClient({ fetch: gl.fetch }).listVersions(pkg)).toEqual(
      [...FIXTURE_VERSIONS.slice(0, 3), 'v1.12.1', ...FIXTURE_VERSIONS.slice(3)].sort(),
    );
  });

  it('sends the last ETag back; a 304 reuses the stored pages', async () => {
    const gl = await serve({ maxPerPage: 4, honourIfNoneMatch: true });
    const client = createGitLabClient({ fetch: gl.fetch });
    expect(await client.listVersions(pkg)).toEqual(FIXTURE_VERSIONS);
    expect(await client.listVersions(pkg)).toEqual(FIXTURE_VERSIONS);
    const [first, second] = [listings(gl).slice(0, 3), listings(gl).slice(3)];
    expect(first.map((q) => [q.status, q.headers['if-none-match']])).toEqual([
      [200, undefined],
      [200, undefined],
      [200, undefined],
    ]);
    expect(second.map((q) => q.status)).toEqual([304, 304, 304]);
    expect(second.every((q) => /^W\/"[0-9a-f]{32}"$/.test(q.headers['if-none-match'] ?? ''))).toBe(true);
  });

  it('where GitLab ignores If-None-Match (gitlab-org/gitlab#14357), the full answer is read again', async () => {
    const gl = await serve();
    const client = createGitLabClient({ fetch: gl.fetch });
    await client.listVersions(pkg);
    expect(await client.listVersions(pkg)).toEqual(FIXTURE_VERSIONS);
    expect(listings(gl).map((q) => [q.status, q.headers['if-none-match'] !== undefined])).toEqual([
      [200, false],
      [200, true],
    ]);
  });

  it.each([
    {
      name: 'a 401',
      options: { validTokens: ['right'] },
      project: 'capi%2Freleases',
      code: 'auth',
      detail: '401 Unauthorized (GitLab rejected the token)',
      hint: 'GITLAB_ACCESS_TOKEN',
    },
    {
      name: 'a 404 (no such project)',
      options: {},
      project: 'capi%2Fmissing',
      code: 'source-not-found',
      detail: '404 Not Found: no such project',
      hint: 'private project without a valid token',
    },
    {
      name: 'a 500',
      options: {},
      project: 'capi%2Freleases',
      fail: true,
      code: 'fetch',
      detail: 'GitLab answered 500',
      hint: 'try again later',
    },
  ])(
    '$name: FetchError $code naming the package, the token never shown',
    async ({ options, project, fail, code, detail, hint }) => {
      const gl = await serve(options);
      if (fail) gl.failNext('server-error', 1);
      const error = await createGitLabClient({ token: 'secret-t0ken', fetch: gl.fetch })
        .listVersions({ ...pkg, projectSlug: project })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FetchError);
      const d = (error as FetchError).diagnostics[0]!;
      expect(d.code).toBe(code);
      expect(
        d.message.startsWith(
          `failed to list the versions of GitLab package cluster-api of ${decodeURIComponent(project)} on ${GITLAB_HOST}: `,
        ),
      ).toBe(true);
      expect(d.message).toContain(detail);
      expect(d.hint).toContain(hint);
      expect(JSON.stringify(d)).not.toContain('secret-t0ken');
    },
  );

  it('a listing in flight is shared; a failed one is not asked again in the same run', async () => {
    const gl = await serve();
    gl.failNext('server-error', 1);
    const client = createGitLabClient({ fetch: gl.fetch });
    const [a, b] = await Promise.allSettled([client.listVersions(pkg), client.listVersions(pkg)]);
    expect([a.status, b.status]).toEqual(['rejected', 'rejected']);
    expect(listings(gl)).toHaveLength(1);
  });
});
