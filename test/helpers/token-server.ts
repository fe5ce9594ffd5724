/**
 * A registry token service (distribution's token auth spec) for integration tests: it signs ES256
 * JWTs with a throw-away self-signed certificate (made by `openssl`), which the test registry trusts
 * through `auth.token.rootcertbundle`. It grants every requested scope to the one user (Basic
 * credentials on GET) or to the one refresh token (OAuth2 POST), and refuses everyone else.
 */
import { spawnSync } from 'node:child_process';
import { createPrivateKey, randomUUID, sign } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';

export const OPENSSL_BINARY = '/usr/bin/openssl';

export interface TokenServer {
  /** The realm URL to configure and to expect in challenges. */
  realm: string;
  service: string;
  issuer: string;
  /** PEM file of the signing certificate, for the registry's rootcertbundle. */
  certPath: string;
  /** How many token requests came in, by grant kind. */
  counts: { password: number; refresh: number; anonymous: number };
  /** A token for `scope`, minted directly (what an OCI_ACCESS_TOKEN would be). */
  mint(scopes: string[]): string;
  stop(): Promise<void>;
}

export interface TokenServerOptions {
  dir: string;
  user: { username: string; password: string };
  refreshToken: string;
}

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

/** Starts the token service on 127.0.0.1 with a random port. */
export async function startTokenServer(options: TokenServerOptions): Promise<TokenServer> {
  const keyPath = path.join(options.dir, 'token.key');
  const certPath = path.join(options.dir, 'token.crt');
  const made = spawnSync(
    OPENSSL_BINARY,
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '2',
      '-subj',
      '/CN=capi-render-test-token',
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0 || !existsSync(certPath)) throw new Error(`openssl failed: ${made.stderr}`);
  const key = createPrivateKey(readFileSync(keyPath));
  const certDer = readFileSync(certPath, 'utf8')
    .replace(/-----[^-]+-----/g, '')
    .replace(/\s+/g, '');
  const service = 'capi-render-test';
  const issuer = 'capi-render-test-issuer';
  const counts = { password: 0, refresh: 0, anonymous: 0 };

  const mint = (scopes: string[]): string => {
    const now = Math.floor(Date.now() / 1000);
    const access = scopes.map((s) => {
      const parts = s.split(':');
      return { type: parts[0], name: parts.slice(1, -1).join(':'), actions: (parts.at(-1) ?? '').split(',') };
    });
    const header = b64url(JSON.stringify({ typ: 'JWT', alg: 'ES256', x5c: [certDer] }));
    const claims = b64url(
      JSON.stringify({
        iss: issuer,
        sub: options.user.username,
        aud: service,
        exp: now + 300,
        nbf: now - 10,
        iat: now,
        jti: randomUUID(),
        access,
      }),
    );
    const signature = sign('sha256', Buffer.from(`${header}.${claims}`), { key, dsaEncoding: 'ieee-p1363' });
    return `${header}.${claims}.${b64url(signature)}`;
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://token');
      const deny = () => {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"details":"denied"}');
      };
      if (url.pathname !== '/token' || url.searchParams.get('service') === 'wrong') return deny();
      if (req.method === 'POST') {
        const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
        if (
          form.get('grant_type') !== 'refresh_token' ||
          form.get('refresh_token') !== options.refreshToken ||
          form.get('service') !== service
        )
          return deny();
        counts.refresh++;
        const token = mint((form.get('scope') ?? '').split(' ').filter(Boolean));
        return void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: token }));
      }
      const authorization = req.headers.authorization;
      const expected = `Basic ${Buffer.from(`${options.user.username}:${options.user.password}`).toString('base64')}`;
      if (authorization === undefined) counts.anonymous++;
      if (authorization !== expected) return deny();
      counts.password++;
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ token: mint(url.searchParams.getAll('scope')) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    certPath,
    counts,
    mint,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
