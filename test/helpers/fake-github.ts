/**
 * A real HTTP server on 127.0.0.1 (random port) that answers like GitHub's REST API for releases:
 * list (pagination with Link headers and per_page), release by tag, asset metadata, asset download
 * (Accept: application/octet-stream → 302 to /_downloads/…, a second path standing in for the
 * download host), ETag/If-None-Match → 304, 404s, and scripted failures for the next N requests
 * (primary/secondary rate limit, 500, 401). Every request is recorded, headers included, so tests
 * can assert what reached the server — e.g. that no Authorization header reached the download path.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  buildRepos,
  DEFAULT_REPOS,
  DEFAULT_REPOSITORY_DIR,
  loadTemplates,
  type FakeReleaseSpec,
  type FakeRepo,
} from './fake-github-data.js';
import { answerPulls, matchPullsPath, type FakePull } from './fake-github-pulls.js';
import { answerGraphql } from './fake-github-graphql.js';

export type { FakeReleaseSpec } from './fake-github-data.js';
export type { FakePull } from './fake-github-pulls.js';

export type FakeRoute = 'list' | 'release' | 'asset' | 'download' | 'pulls' | 'other';
export type FailureKind = 'rate-limit' | 'secondary-rate-limit' | 'server-error' | 'unauthorized';

export interface RecordedRequest {
  method: string;
  /** Path and query as received. */
  url: string;
  route: FakeRoute;
  /** Lower-case request headers. */
  headers: Record<string, string | undefined>;
  status: number;
  /** Request body (pull-request writes), as received. */
  body?: string;
}

export interface FakeGitHubOptions {
  /** Local-repository tree the releases come from. Default: test/fixtures/repository. */
  repositoryDir?: string;
  /** `{owner}/{repo}` → labels. Default: {@link DEFAULT_REPOS}. */
  repos?: Readonly<Record<string, readonly string[]>>;
  /** Synthetic releases per `{owner}/{repo}`. Default: none. */
  extraReleases?: Readonly<Record<string, readonly FakeReleaseSpec[]>>;
  /** When set, an Authorization header with any other token is answered 401 (no header is fine). */
  validTokens?: readonly string[];
  /** Serve asset bytes from the API path itself instead of redirecting (some proxies do). Default: false. */
  directDownloads?: boolean;
}

export interface FailOptions {
  /** Only requests of this route fail. Default: every API route (not the download path). */
  route?: FakeRoute;
  /** Primary rate limit: seconds from now until `x-ratelimit-reset`. Default: 0. */
  resetInSeconds?: number;
}

export interface FakeGitHub {
  /** e.g. `http://127.0.0.1:41234`; use as the client's API base URL. */
  baseUrl: string;
  requests: RecordedRequest[];
  /** Pull requests created through the API (in creation order), updated in place. */
  pulls: FakePull[];
  /** The next `n` matching requests fail with `kind`. Queued failures are used in order. */
  failNext(kind: FailureKind, n: number, options?: FailOptions): void;
  close(): Promise<void>;
}

interface QueuedFailure {
  kind: FailureKind;
  left: number;
  options: FailOptions;
}

const DOCS = 'https://docs.github.com/rest';

/** Starts the server; close it with `close()` (e.g. in `onTestFinished`). */
export async function startFakeGitHub(options: FakeGitHubOptions = {}): Promise<FakeGitHub> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const repositoryDir = options.repositoryDir ?? DEFAULT_REPOSITORY_DIR;
  const repos = buildRepos(baseUrl, repositoryDir, options.repos ?? DEFAULT_REPOS, options.extraReleases ?? {});
  const byId = new Map([...repos.values()].map((repo) => [repo.id, repo]));
  const assets = new Map(
    [...repos.values()].flatMap((repo) =>
      repo.releases.flatMap((r) => r.assets.map((a) => [a.id, { repo, asset: a }] as const)),
    ),
  );
  const constantHeaders = loadTemplates().headers;
  const requests: RecordedRequest[] = [];
  const failures: QueuedFailure[] = [];
  const pulls: FakePull[] = [];

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    // GraphQL (releases only; Renovate's github-releases datasource asks it, at /graphql or /api/graphql).
    if (req.method === 'POST' && new URL(req.url ?? '/', baseUrl).pathname.endsWith('/graphql')) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const headers = Object.fromEntries(
          Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
        );
        const answer = answerGraphql(repos, body);
        requests.push({ method: 'POST', url: req.url ?? '/', route: 'other', headers, status: answer.status, body });
        const payload = Buffer.from(JSON.stringify(answer.body));
        res.writeHead(answer.status, {
          'content-type': 'application/json; charset=utf-8',
          'content-length': String(payload.length),
        });
        res.end(payload);
      });
      return;
    }
    // Pull requests carry a JSON body: read it first, then answer like the other routes.
    if (matchPullsPath(new URL(req.url ?? '/', baseUrl).pathname)) {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
      return;
    }
    handle(req, res, undefined);
  });

  const handle = (req: IncomingMessage, res: ServerResponse, requestBody: string | undefined): void => {
    const url = new URL(req.url ?? '/', baseUrl);
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    );
    const record: RecordedRequest = {
      method: req.method ?? 'GET',
      url: req.url ?? '/',
      route: 'other',
      headers,
      status: 0,
      ...(requestBody !== undefined ? { body: requestBody } : {}),
    };
    requests.push(record);
    const send = (status: number, body: unknown, extra: Record<string, string> = {}): void => {
      record.status = status;
      const isBytes = body instanceof Uint8Array;
      const payload = isBytes ? Buffer.from(body) : Buffer.from(body === undefined ? '' : JSON.stringify(body));
      const common = record.route === 'download' ? {} : { ...constantHeaders, ...rateHeaders(headers) };
      res.writeHead(status, { ...common, 'content-length': String(payload.length), ...extra });
      res.end(status === 304 || status === 302 ? undefined : payload);
    };
    const json = (body: unknown, extra: Record<string, string> = {}): void => {
      const etag = `W/"${createHash('sha1').update(JSON.stringify(body)).digest('hex')}"`;
      if (headers['if-none-match'] === etag) return send(304, undefined, { etag, ...extra });
      send(200, body, { etag, ...extra });
    };
    const notFound = (doc: string): void =>
      send(404, { message: 'Not Found', documentation_url: `${DOCS}/${doc}`, status: '404' });

    const route = matchRoute(url.pathname, repos, byId);
    record.route = route.route;
    const failure = takeFailure(failures, route.route);
    if (failure) return sendFailure(failure, send);
    if (options.validTokens && headers.authorization) {
      const presented = headers.authorization.replace(/^(token|bearer)\s+/i, '');
      if (!options.validTokens.includes(presented))
        return send(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
    }
    if (record.route === 'pulls') {
      if (req.method !== 'GET' && !headers.authorization)
        return send(401, { message: 'Requires authentication', documentation_url: DOCS, status: '401' });
      const answer = answerPulls(pulls, req.method ?? 'GET', url, requestBody ?? '');
      return send(answer.status, answer.body);
    }
    if (req.method !== 'GET') return send(404, { message: 'Not Found', documentation_url: DOCS, status: '404' });

    switch (route.route) {
      case 'list': {
        if (!route.repo) return notFound('repos/repos#get-a-repository');
        const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 30) || 30, 1), 100);
        const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
        const all = route.repo.releases;
        const body = all.slice((page - 1) * perPage, page * perPage).map((r) => r.json);
        const link = linkHeader(
          `${baseUrl}/repositories/${route.repo.id}/releases`,
          perPage,
          page,
          Math.max(Math.ceil(all.length / perPage), 1),
        );
        return json(body, link ? { link } : {});
      }
      case 'release': {
        const release = route.repo?.releases.find((r) => r.tag === route.tag && !r.json['draft']);
        return release ? json(release.json) : notFound('releases/releases#get-a-release-by-tag-name');
      }
      case 'asset': {
        const found = assets.get(route.assetId ?? -1);
        if (!found || found.repo !== route.repo) return notFound('releases/assets#get-a-release-asset');
        if (headers.accept !== 'application/octet-stream') return json(found.asset.json);
        if (options.directDownloads)
          return send(200, found.asset.bytes, { 'content-type': 'application/octet-stream' });
        const signature = createHash('sha1').update(`${found.asset.id}`).digest('hex').slice(0, 16);
        return send(302, undefined, {
          location: `${baseUrl}/_downloads/${found.asset.id}/${encodeURIComponent(found.asset.name)}?sig=${signature}`,
        });
      }
      case 'download': {
        const found = assets.get(route.assetId ?? -1);
        if (!found) return send(404, new TextEncoder().encode('Not Found'), { 'content-type': 'text/plain' });
        return send(200, found.asset.bytes, { 'content-type': 'application/octet-stream' });
      }
      default:
        return notFound('');
    }
  };

  return {
    baseUrl,
    requests,
    pulls,
    failNext(kind, n, failOptions = {}) {
      failures.push({ kind, left: n, options: failOptions });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

interface Match {
  route: FakeRoute;
  repo?: FakeRepo;
  tag?: string;
  assetId?: number;
}

function matchRoute(pathname: string, repos: Map<string, FakeRepo>, byId: Map<number, FakeRepo>): Match {
  const parts = pathname.split('/').slice(1).map(decodeURIComponent);
  const [head, a, b, c, d, e] = parts;
  if (head === '_downloads') return { route: 'download', assetId: Number(a) };
  if (matchPullsPath(pathname)) return { route: 'pulls' };
  // GitHub's Link headers use /repositories/{id}/…; both spellings reach the same repository.
  if (head === 'repositories' && b === 'releases' && parts.length === 3)
    return { route: 'list', repo: byId.get(Number(a)) };
  if (head !== 'repos' || c !== 'releases') return { route: 'other' };
  const repo = repos.get(`${a}/${b}`);
  if (parts.length === 4) return { route: 'list', repo };
  if (d === 'tags' && e !== undefined && parts.length === 6) return { route: 'release', repo, tag: e };
  if (d === 'assets' && e !== undefined && parts.length === 6) return { route: 'asset', repo, assetId: Number(e) };
  return { route: 'other' };
}

function takeFailure(failures: QueuedFailure[], route: FakeRoute): QueuedFailure | undefined {
  const failure = failures.find(
    (f) => f.left > 0 && (f.options.route ? f.options.route === route : route !== 'download'),
  );
  if (failure) failure.left--;
  return failure;
}

function sendFailure(
  failure: QueuedFailure,
  send: (status: number, body: unknown, extra?: Record<string, string>) => void,
): void {
  const now = Math.floor(Date.now() / 1000);
  switch (failure.kind) {
    case 'rate-limit':
      return send(
        403,
        {
          message: 'API rate limit exceeded for 127.0.0.1.',
          documentation_url: `${DOCS}/overview/rate-limits-for-the-rest-api`,
        },
        {
          'x-ratelimit-limit': '60',
          'x-ratelimit-remaining': '0',
          'x-ratelimit-used': '60',
          'x-ratelimit-reset': String(now + (failure.options.resetInSeconds ?? 0)),
        },
      );
    case 'secondary-rate-limit':
      return send(
        403,
        {
          message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
          documentation_url: DOCS,
        },
        { 'retry-after': '1' },
      );
    case 'server-error':
      return send(500, { message: 'Server Error' });
    case 'unauthorized':
      return send(401, { message: 'Bad credentials', documentation_url: DOCS, status: '401' });
  }
}

function rateHeaders(headers: Record<string, string | undefined>): Record<string, string> {
  const limit = headers.authorization ? 5000 : 60;
  return {
    'x-ratelimit-limit': String(limit),
    'x-ratelimit-remaining': String(limit - 1),
    'x-ratelimit-used': '1',
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600),
    'x-ratelimit-resource': 'core',
  };
}

function linkHeader(base: string, perPage: number, page: number, last: number): string | undefined {
  const at = (n: number): string => `<${base}?per_page=${perPage}&page=${n}>`;
  const links: string[] = [];
  if (page > 1) links.push(`${at(page - 1)}; rel="prev"`);
  if (page < last) links.push(`${at(page + 1)}; rel="next"`, `${at(last)}; rel="last"`);
  if (page > 1) links.push(`${at(1)}; rel="first"`);
  return links.length > 0 ? links.join(', ') : undefined;
}
