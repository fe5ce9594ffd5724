/**
 * A real HTTP server on 127.0.0.1 (random port) that answers like GitLab's generic-packages API:
 * `GET /api/v4/projects/{projectSlug}/packages/generic/{package}/{version}/{file}`, serving the real
 * release files of a clusterctl local-repository tree (`<dir>/<package>/<version>/<file>`, `.gz`
 * served gunzipped; the package name is the provider label). It checks `Authorization: Bearer`
 * tokens, can redirect downloads to an "object storage" host, and fails or hangs on request, so
 * tests cover 401/404/5xx and timeouts. Every request is recorded with its headers.
 *
 * Provider URLs keep clusterctl's form (`https://gitlab.example.com/api/v4/…`): the `fetch` it
 * returns is the transport a test injects, routing those hosts to this server.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { FetchLike } from '../../src/source/gitlab/gitlab-source.js';
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
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]));
    const record: RecordedGitLabRequest = { url: req.url ?? '/', headers, status: 0 };
    requests.push(record);
    const send = (status: number, body: string | Uint8Array, extra: Record<string, string> = {}): void => {
      record.status = status;
      const payload = typeof body === 'string' ? Buffer.from(body) : Buffer.from(body);
      res.writeHead(status, { 'content-length': String(payload.length), ...extra });
      res.end(payload);
    };
    const json = (status: number, value: unknown) => send(status, JSON.stringify(value), { 'content-type': 'application/json' });

    const storage = /^\/_storage\/(.+)$/.exec(record.url);
    if (storage) {
      const bytes = readPackageFile(repositoryDir, storage[1]!.split('/').map(decodeURIComponent));
      return bytes ? send(200, bytes, { 'content-type': 'application/octet-stream' }) : send(404, 'NoSuchKey');
    }
    const match = /^\/api\/v4\/projects\/([^/]+)\/packages\/generic\/([^/]+)\/([^/]+)\/([^/?]+)$/.exec(record.url);
    if (!match || req.method !== 'GET') return json(404, { error: '404 Not Found' });
    const failure = failures.find((f) => f.left > 0);
    if (failure) {
      failure.left--;
      if (failure.kind === 'hang') return; // closed by close(): closeAllConnections
      if (failure.kind === 'unauthorized') return json(401, { message: '401 Unauthorized' });
      return json(500, { message: '500 Internal Server Error' });
    }
    if (options.validTokens) {
      const presented = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
      if (presented === undefined || !options.validTokens.includes(presented)) return json(401, { message: '401 Unauthorized' });
    }
    const [, project, pkg, version, file] = match;
    if (project !== GITLAB_PROJECT) return json(404, { message: '404 Project Not Found' });
    const parts = [pkg!, version!, file!].map(decodeURIComponent);
    if (!readPackageFile(repositoryDir, parts)) return json(404, { message: '404 Package Not Found' });
    if (options.redirectDownloads) return send(302, '', { location: `https://${STORAGE_HOST}/_storage/${parts.map(encodeURIComponent).join('/')}` });
    return send(200, readPackageFile(repositoryDir, parts)!, { 'content-type': 'application/octet-stream' });
  });

  const routed = new Set([GITLAB_HOST, STORAGE_HOST]);
  return {
    origin,
    requests,
    fetch: (url, init) => {
      const parsed = new URL(url);
      // Keep the path exactly as written: the project slug must stay percent-encoded.
      const target = routed.has(parsed.host) ? `${origin}${url.slice(`${parsed.protocol}//${parsed.host}`.length)}` : url;
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
