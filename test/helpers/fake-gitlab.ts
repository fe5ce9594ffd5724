/**
 * A real HTTP server on 127.0.0.1 (random port) that answers like GitLab's generic-packages API:
 * `GET /api/v4/projects/{projectSlug}/packages/generic/{package}/{version}/{file}`, serving the real
 * release files of a clusterctl local-repository tree (`<dir>/<package>/<version>/<file>`, `.gz`
 * served gunzipped; the package name is the provider label). It checks `Authorization: Bearer`
 * tokens, can redirect downloads to an "object storage" host, and fails or hangs on request, so
 * tests cover 401/404/5xx and timeouts. Every request is recorded with its headers.
 *
 * It also answers the Packages API listing, `GET /api/v4/projects/{projectSlug}/packages`, in the
 * shape of GitLab's API docs ("List packages · For a project"): entries with id, name, version,
 * package_type, status, created_at, _links, tags; `package_type` and a fuzzy `package_name` filter;
 * offset pagination with `page`/`per_page` (default 20, at most 100, lower with `maxPerPage`) and
 * GitLab's headers (`Link` rel next/prev/first/last with absolute URLs, `X-Page`, `X-Per-Page`,
 * `X-Next-Page`, `X-Prev-Page`, `X-Total`, `X-Total-Pages`). Answers carry a weak `ETag` of the
 * body, as GitLab's do; `If-None-Match` is ignored unless `honourIfNoneMatch` (gitlab-org/gitlab#14357).
 *
 * Provider URLs keep clusterctl's form (`https://gitlab.example.com/api/v4/…`): the `fetch` it
 * returns is the transport a test injects, routing those hosts to this server.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FetchLike } from 'capi-render';
import { FIXTURES } from './fixtures.js';

/** The host provider URLs name in tests, and the object-storage host downloads may redirect to. */
export const GITLAB_HOST = 'gitlab.example.com';
export const STORAGE_HOST = 'objects.example.com';
/** The project the fixture packages live in, as it appears (encoded) in URLs. */
export const GITLAB_PROJECT = 'capi%2Freleases';

export type GitLabFailure = 'server-error' | 'unauthorized' | 'hang';

export interface RecordedGitLabRequest {
  /** Path and query as received (percent-encoding kept). */
  url: string;
  /** Lower-case request headers. */
  headers: Record<string, string | undefined>;
  status: number;
}

export interface FakeGitLabOptions {
  /** Local-repository tree served as packages. Default: test/fixtures/repository. */
  repositoryDir?: string;
  /** When set, a request without one of these Bearer tokens is answered 401. Default: no auth. */
  validTokens?: readonly string[];
  /** Answer downloads with a 302 to https://objects.example.com/… (GitLab with object storage). Default: false. */
  redirectDownloads?: boolean;
  /** The largest page the listing serves (GitLab's is 100). Default: 100. */
  maxPerPage?: number;
  /** Answer a matching `If-None-Match` with 304 (Rails' conditional GET). Default: false. */
  honourIfNoneMatch?: boolean;
  /** Listed besides the tree's packages (other names, types or states; no files). Default: none. */
  extraPackages?: readonly { name: string; version: string | null; package_type?: string; status?: string }[];
}

export interface FakeGitLab {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  /** The transport to inject: routes https://gitlab.example.com and https://objects.example.com here. */
  fetch: FetchLike;
  requests: RecordedGitLabRequest[];
  /** The next `n` package requests fail with `kind` (`hang`: never answered). */
  failNext(kind: GitLabFailure, n: number): void;
  close(): Promise<void>;
}

/** A generic-package URL of the fake, in clusterctl's form. */
export function gitLabUrl(label: string, version: string, file: string, project = GITLAB_PROJECT): string {
  return `https://${GITLAB_HOST}/api/v4/projects/${project}/packages/generic/${label}/${version}/${file}`;
}

export async function startFakeGitLab(options: FakeGitLabOptions = {}): Promise<FakeGitLab> {
  const repositoryDir = options.repositoryDir ?? path.join(FIXTURES, 'repository');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const requests: RecordedGitLabRequest[] = [];
  const failures: { kind: GitLabFailure; left: number }[] = [];

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    /** A queued failure or a missing token: what to answer instead (`hang`: nothing, closed by close()). */
    const refuse = (): 'hang' | { status: number; body: unknown } | undefined => {
      const failure = failures.find((f) => f.left > 0);
      if (failure) {
        failure.left--;
        if (failure.kind === 'hang') return 'hang';
        if (failure.kind === 'unauthorized') return { status: 401, body: { message: '401 Unauthorized' } };
        return { status: 500, body: { message: '500 Internal Server Error' } };
      }
      if (options.validTokens) {
        const presented = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
        if (presented === undefined || !options.validTokens.includes(presented))
          return { status: 401, body: { message: '401 Unauthorized' } };
      }
      return undefined;
    };
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    );
    const record: RecordedGitLabRequest = { url: req.url ?? '/', headers, status: 0 };
    requests.push(record);
    const send = (status: number, body: string | Uint8Array, extra: Record<string, string> = {}): void => {
      record.status = status;
      const payload = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
      res.writeHead(status, { 'content-length': String(payload.length), ...extra });
      res.end(payload);
    };
    const json = (status: number, value: unknown) =>
      send(status, JSON.stringify(value), { 'content-type': 'application/json' });

    const storage = /^\/_storage\/(.+)$/.exec(record.url);
    if (storage) {
      const bytes = readPackageFile(repositoryDir, storage[1]!.split('/').map(decodeURIComponent));
      return bytes ? send(200, bytes, { 'content-type': 'application/octet-stream' }) : send(404, 'NoSuchKey');
    }
    const list = /^\/api\/v4\/projects\/([^/]+)\/packages(\?.*)?$/.exec(record.url);
    if (list && req.method === 'GET') {
      const refused = refuse();
      if (refused) return refused === 'hang' ? undefined : json(refused.status, refused.body);
      if (list[1] !== GITLAB_PROJECT) return json(404, { message: '404 Project Not Found' });
      const page = listPage(
        packagesOf(repositoryDir, options.extraPackages ?? []),
        new URLSearchParams(list[2] ?? ''),
        options.maxPerPage ?? 100,
      );
      const body = JSON.stringify(page.entries);
      const etag = `W/"${createHash('md5').update(body).digest('hex')}"`;
      const base = `https://${GITLAB_HOST}/api/v4/projects/${list[1]}/packages`;
      const headers = { 'content-type': 'application/json', etag, ...page.headers(base) };
      if (options.honourIfNoneMatch && headers.etag === req.headers['if-none-match']) return send(304, '', headers);
      return send(200, body, headers);
    }
    const match = /^\/api\/v4\/projects\/([^/]+)\/packages\/generic\/([^/]+)\/([^/]+)\/([^/?]+)$/.exec(record.url);
    if (!match || req.method !== 'GET') return json(404, { error: '404 Not Found' });
    const refused = refuse();
    if (refused) return refused === 'hang' ? undefined : json(refused.status, refused.body);
    const [, project, pkg, version, file] = match;
    if (project !== GITLAB_PROJECT) return json(404, { message: '404 Project Not Found' });
    const parts = [pkg!, version!, file!].map(decodeURIComponent);
    if (!readPackageFile(repositoryDir, parts)) return json(404, { message: '404 Package Not Found' });
    if (options.redirectDownloads)
      return send(302, '', { location: `https://${STORAGE_HOST}/_storage/${parts.map(encodeURIComponent).join('/')}` });
    return send(200, readPackageFile(repositoryDir, parts)!, { 'content-type': 'application/octet-stream' });
  });

  const routed = new Set([GITLAB_HOST, STORAGE_HOST]);
  return {
    origin,
    requests,
    fetch: (url, init) => {
      const parsed = new URL(url);
      // Keep the path exactly as written: the project slug must stay percent-encoded.
      const target = routed.has(parsed.host)
        ? `${origin}${url.slice(`${parsed.protocol}//${parsed.host}`.length)}`
        : url;
      return fetch(target, init);
    },
    failNext(kind, n) {
      failures.push({ kind, left: n });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

function readPackageFile(dir: string, [label, version, file]: string[]): Uint8Array | undefined {
  if ([label, version, file].some((s) => s === undefined || s.includes('/') || s.startsWith('.'))) return undefined;
  const plain = path.join(dir, label!, version!, file!);
  if (existsSync(plain)) return new Uint8Array(readFileSync(plain));
  if (existsSync(`${plain}.gz`)) return new Uint8Array(gunzipSync(readFileSync(`${plain}.gz`)));
  return undefined;
}

interface ListedPackage {
  id: number;
  name: string;
  version: string | null;
  package_type: string;
  status: string;
  created_at: string;
  _links: { web_path: string; delete_api_path: string };
  tags: string[];
}

/** The tree's packages (one per label and version folder) and the extra ones, ids in a fixed order. */
function packagesOf(dir: string, extra: NonNullable<FakeGitLabOptions['extraPackages']>): ListedPackage[] {
  const rows: { name: string; version: string | null; package_type: string; status: string }[] = [];
  for (const label of readdirSync(dir).sort()) {
    if (!statSync(path.join(dir, label)).isDirectory()) continue;
    for (const version of readdirSync(path.join(dir, label)).sort())
      rows.push({ name: label, version, package_type: 'generic', status: 'default' });
  }
  for (const e of extra)
    rows.push({
      name: e.name,
      version: e.version,
      package_type: e.package_type ?? 'generic',
      status: e.status ?? 'default',
    });
  return rows.map((r, i) => ({
    id: i + 1,
    ...r,
    created_at: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(),
    _links: {
      web_path: `/capi/releases/-/packages/${i + 1}`,
      delete_api_path: `https://${GITLAB_HOST}/api/v4/projects/${GITLAB_PROJECT}/packages/${i + 1}`,
    },
    tags: [],
  }));
}

/** GitLab's filters and offset pagination over the listing. */
function listPage(all: ListedPackage[], query: URLSearchParams, maxPerPage: number) {
  const type = query.get('package_type');
  const name = query.get('package_name');
  // By default GitLab lists packages in the default, deprecated and error states.
  const matching = all.filter(
    (p) =>
      (!type || p.package_type === type) &&
      (!name || p.name.includes(name)) &&
      ['default', 'deprecated', 'error'].includes(p.status),
  );
  const perPage = Math.min(Math.max(Number(query.get('per_page') ?? 20) || 20, 1), maxPerPage);
  const totalPages = Math.max(1, Math.ceil(matching.length / perPage));
  const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
  const entries = matching.slice((page - 1) * perPage, page * perPage);
  return {
    entries,
    headers(base: string): Record<string, string> {
      const at = (n: number) => {
        const q = new URLSearchParams(query);
        q.set('page', String(n));
        q.set('per_page', String(perPage));
        return `${base}?${q.toString()}`;
      };
      const links = [
        ...(page > 1 ? [`<${at(page - 1)}>; rel="prev"`] : []),
        ...(page < totalPages ? [`<${at(page + 1)}>; rel="next"`] : []),
        `<${at(1)}>; rel="first"`,
        `<${at(totalPages)}>; rel="last"`,
      ];
      return {
        link: links.join(', '),
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-next-page': page < totalPages ? String(page + 1) : '',
        'x-prev-page': page > 1 ? String(page - 1) : '',
        'x-total': String(matching.length),
        'x-total-pages': String(totalPages),
      };
    },
  };
}
