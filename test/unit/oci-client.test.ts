/**
 * The distribution client against scripted registries (an injected fetch): the token flows that a
 * plain docker-registry cannot show, pagination, digest checks, redirects and timeouts.
 */
import net from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { RenderError } from '../../src/errors.js';
import { createOciClient } from '../../src/source/oci/oci-client.js';
import type { OciCredentials } from '../../src/source/oci/oci-credentials.js';
import { computeOciDigest } from '../../src/source/oci/oci-digest.js';
import { rejectionOf } from '../helpers/errors.js';

interface Call {
  url: URL;
  method: string;
  headers: Headers;
  body: string;
}
type Handler = (call: Call) => Response | Promise<Response>;

/** A fetch that answers from `handler` and records every request. */
function scripted(handler: Handler): { fetchImpl: typeof fetch; calls: Call[] } {
  const calls: Call[] = [];
  const fetchImpl = (async (input: string | URL | Request, init?: RequestInit) => {
    const body =
      init?.body === undefined || init.body === null
        ? ''
        : typeof init.body === 'string'
          ? init.body
          : Buffer.from(init.body as Uint8Array).toString('utf8');
    const call = {
      url: new URL(String(input)),
      method: init?.method ?? 'GET',
      headers: new Headers(init?.headers),
      body,
    };
    calls.push(call);
    return handler(call);
  }) as typeof fetch;
  return { fetchImpl, calls };
}

const json = (value: unknown, init: ResponseInit = {}) =>
  new Response(JSON.stringify(value), {
    status: 200,
    ...init,
    headers: { 'content-type': 'application/json', ...init.headers },
  });
const REGISTRY = 'reg.example.test';
const PASSWORD = 'hunter2-very-secret';
const bearerChallenge = (realm = 'https://auth.example.test/token') =>
  new Response(null, {
    status: 401,
    headers: { 'www-authenticate': `Bearer realm="${realm}",service="${REGISTRY}",scope="repository:capi/core:pull"` },
  });

const everything = (err: RenderError) =>
  err.diagnostics.map((d) => `${d.message} ${d.hint ?? ''}`).join(' ') + err.message;

/** A registry with the Bearer token flow: the token endpoint grants `TOKEN` when `grant` says so. */
function tokenRegistry(grant: (call: Call) => Response) {
  return scripted((call) => {
    if (call.url.host === 'auth.example.test') return grant(call);
    if (call.headers.get('authorization') !== 'Bearer TOKEN') return bearerChallenge();
    return json({ name: 'capi/core', tags: ['v1.0.0'] });
  });
}

describe('the Bearer token flow (oras semantics)', () => {
  it.each<{ name: string; credentials?: OciCredentials; check: (token: Call) => void; tokenBody?: unknown }>([
    {
      name: 'anonymous: GET realm without credentials',
      check: (t) => {
        expect(t.method).toBe('GET');
        expect(t.headers.get('authorization')).toBeNull();
      },
    },
    {
      name: 'username/password: GET realm with Basic, service and merged scope',
      credentials: { username: 'u', password: PASSWORD },
      check: (t) => {
        expect(t.method).toBe('GET');
        expect(t.headers.get('authorization')).toBe(`Basic ${Buffer.from(`u:${PASSWORD}`).toString('base64')}`);
        expect(t.url.searchParams.get('service')).toBe(REGISTRY);
        expect(t.url.searchParams.getAll('scope')).toEqual(['repository:capi/core:pull']);
      },
    },
    {
      name: 'the token in `token` when `access_token` is absent',
      tokenBody: { token: 'TOKEN' },
      check: () => {},
    },
    {
      name: 'refresh token: OAuth2 POST with grant_type=refresh_token',
      credentials: { username: 'u', refreshToken: 'REFRESH' },
      check: (t) => {
        expect(t.method).toBe('POST');
        const form = new URLSearchParams(t.body);
        expect(Object.fromEntries(form)).toEqual({
          grant_type: 'refresh_token',
          refresh_token: 'REFRESH',
          service: REGISTRY,
          client_id: 'oras-go',
          scope: 'repository:capi/core:pull',
        });
      },
    },
  ])('$name', async ({ credentials, check, tokenBody }) => {
    const registry = tokenRegistry(() => json(tokenBody ?? { access_token: 'TOKEN', token: 'TOKEN' }));
    const client = createOciClient({
      registry: REGISTRY,
      plainHttp: false,
      ...(credentials ? { credentials } : {}),
      fetchImpl: registry.fetchImpl,
    });
    expect(await client.listTags('capi/core')).toEqual(['v1.0.0']);
    expect(await client.listTags('capi/core')).toEqual(['v1.0.0']);
    const tokenCalls = registry.calls.filter((c) => c.url.host === 'auth.example.test');
    expect(tokenCalls).toHaveLength(1); // the second listing used the cached token
    check(tokenCalls[0]!);
  });

  it('sends an access token as the Bearer token without asking the realm', async () => {
    const registry = tokenRegistry(() => {
      throw new Error('the realm must not be asked');
    });
    const client = createOciClient({
      registry: REGISTRY,
      plainHttp: false,
      credentials: { accessToken: 'TOKEN' },
      fetchImpl: registry.fetchImpl,
    });
    expect(await client.listTags('capi/core')).toEqual(['v1.0.0']);
  });

  it.each([
    {
      name: 'the token service refuses',
      grant: () => new Response('{"details":"bad password hunter2-very-secret"}', { status: 401 }),
    },
    { name: 'the registry refuses the token', grant: () => json({ token: 'OTHER' }) },
    { name: 'the token service returns no token', grant: () => json({}) },
  ])('fails with auth when $name, without the password', async ({ grant }) => {
    const registry = tokenRegistry(grant);
    const client = createOciClient({
      registry: REGISTRY,
      plainHttp: false,
      credentials: { username: 'u', password: PASSWORD },
      fetchImpl: registry.fetchImpl,
    });
    const err = await rejectionOf(RenderError, client.listTags('capi/core'));
    expect(err.code).toBe('auth');
    expect(everything(err)).not.toContain(PASSWORD);
  });

  it.each([
    { name: 'an http realm for a TLS registry', realm: 'http://auth.example.test/token' },
    { name: 'a link-local realm (metadata service)', realm: 'https://169.254.169.254/token' },
    { name: 'a realm that is not http(s)', realm: 'file:///etc/passwd' },
  ])('refuses $name and never contacts it', async ({ realm }) => {
    const registry = scripted((call) =>
      call.url.host === REGISTRY ? bearerChallenge(realm) : json({ token: 'TOKEN' }),
    );
    const client = createOciClient({
      registry: REGISTRY,
      plainHttp: false,
      credentials: { username: 'u', password: PASSWORD },
      fetchImpl: registry.fetchImpl,
    });
    expect((await rejectionOf(RenderError, client.listTags('capi/core'))).code).toBe('auth');
    expect(registry.calls.every((c) => c.url.host === REGISTRY)).toBe(true);
  });

  it('needs both username and password for a Basic challenge', async () => {
    const registry = scripted(
      () => new Response(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="r"' } }),
    );
    const client = createOciClient({
      registry: REGISTRY,
      plainHttp: false,
      credentials: { username: 'u' },
      fetchImpl: registry.fetchImpl,
    });
    expect((await rejectionOf(RenderError, client.listTags('capi/core'))).code).toBe('auth');
    expect(registry.calls).toHaveLength(1);
  });

  it('redacts a secret that a registry error echoes', async () => {
    const registry = scripted(() =>
      json({ errors: [{ code: 'DENIED', message: `token ${PASSWORD} is not allowed` }] }, { status: 403 }),
    );
    const client = createOciClient({
      registry: REGISTRY,
      plainHttp: false,
      credentials: { username: 'u', password: PASSWORD },
      fetchImpl: registry.fetchImpl,
    });
    const err = await rejectionOf(RenderError, client.listTags('capi/core'));
    expect(err.code).toBe('auth');
    expect(everything(err)).not.toContain(PASSWORD);
  });
});

describe('reading', () => {
  it('follows Link pagination with n= and stops at another origin', async () => {
    const registry = scripted((call) => {
      const last = call.url.searchParams.get('last');
      if (last === null)
        return json({ tags: ['a', 'b'] }, { headers: { link: '</v2/capi/core/tags/list?last=b&n=1000>; rel="next"' } });
      if (last === 'b')
        return json(
          { tags: ['c'] },
          { headers: { link: '<https://elsewhere.test/v2/capi/core/tags/list?last=c>; rel="next"' } },
        );
      throw new Error(`unexpected ${call.url}`);
    });
    const client = createOciClient({ registry: REGISTRY, plainHttp: false, fetchImpl: registry.fetchImpl });
    expect(await client.listTags('capi/core')).toEqual(['a', 'b', 'c']);
    expect(registry.calls[0]?.url.searchParams.get('n')).toBe('1000');
    expect(registry.calls).toHaveLength(2);
  });

  const manifest = new TextEncoder().encode(
    JSON.stringify({ schemaVersion: 2, mediaType: 'application/vnd.oci.image.manifest.v1+json', layers: [] }),
  );
  const manifestType = { 'content-type': 'application/vnd.oci.image.manifest.v1+json' };

  it.each([
    {
      name: 'a manifest whose bytes do not match Docker-Content-Digest',
      code: 'digest-mismatch',
      handler: () =>
        new Response(manifest, {
          headers: { ...manifestType, 'docker-content-digest': computeOciDigest(new Uint8Array([1])) },
        }),
      run: (c: ReturnType<typeof createOciClient>) => c.getManifest('capi/core', 'v1'),
    },
    {
      name: 'a blob whose bytes do not match its digest',
      code: 'digest-mismatch',
      handler: () => new Response('tampered'),
      run: (c: ReturnType<typeof createOciClient>) =>
        c.getBlob('capi/core', computeOciDigest(new TextEncoder().encode('original'))),
    },
    {
      name: 'an image index',
      code: 'source-unsupported',
      handler: () =>
        new Response('{"manifests":[]}', { headers: { 'content-type': 'application/vnd.oci.image.index.v1+json' } }),
      run: (c: ReturnType<typeof createOciClient>) => c.getManifest('capi/core', 'v1'),
    },
    {
      name: 'a manifest that is not JSON',
      code: 'source-unsupported',
      handler: () => new Response('<html>', { headers: manifestType }),
      run: (c: ReturnType<typeof createOciClient>) => c.getManifest('capi/core', 'v1'),
    },
    {
      name: 'a server error',
      code: 'fetch',
      handler: () => json({ errors: [{ code: 'UNKNOWN', message: 'disk full' }] }, { status: 500 }),
      run: (c: ReturnType<typeof createOciClient>) => c.listTags('capi/core'),
    },
  ])('rejects $name ($code)', async ({ handler, run, code }) => {
    const client = createOciClient({ registry: REGISTRY, plainHttp: false, fetchImpl: scripted(handler).fetchImpl });
    expect((await rejectionOf(RenderError, run(client))).code).toBe(code);
  });

  it('verifies a manifest against Docker-Content-Digest and reports it', async () => {
    const digest = computeOciDigest(manifest);
    const client = createOciClient({
      registry: REGISTRY,
      plainHttp: false,
      fetchImpl: scripted(
        () => new Response(manifest, { headers: { ...manifestType, 'docker-content-digest': digest } }),
      ).fetchImpl,
    });
    expect(await client.getManifest('capi/core', 'v1')).toMatchObject({
      digest,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      manifest: { layers: [] },
    });
  });

  it('keeps credentials off a redirect to another origin, and on one to the same origin', async () => {
    const blob = new TextEncoder().encode('blob');
    const blobPath = `/v2/capi/core/blobs/${computeOciDigest(blob)}`;
    const registry = scripted((call) => {
      if (call.url.host === 'storage.example.test') return new Response(blob);
      if (call.headers.get('authorization') !== 'Bearer TOKEN') return bearerChallenge();
      if (call.url.pathname === blobPath)
        return new Response(null, { status: 307, headers: { location: '/redirected' } });
      if (call.url.pathname === '/redirected')
        return new Response(null, { status: 302, headers: { location: 'https://storage.example.test/object?sig=1' } });
      throw new Error(`unexpected ${call.url}`);
    });
    const client = createOciClient({
      registry: REGISTRY,
      plainHttp: false,
      credentials: { accessToken: 'TOKEN' },
      fetchImpl: registry.fetchImpl,
    });
    expect(await client.getBlob('capi/core', computeOciDigest(blob))).toEqual(blob);
    expect(registry.calls.map((c) => [c.url.host + c.url.pathname, c.headers.get('authorization')])).toEqual([
      [`${REGISTRY}${blobPath}`, null],
      [`${REGISTRY}${blobPath}`, 'Bearer TOKEN'],
      [`${REGISTRY}/redirected`, 'Bearer TOKEN'],
      ['storage.example.test/object', null],
    ]);
    expect(client.hostPort).toBe(`${REGISTRY}:443`);
  });

  it('times out a registry that accepts but never answers (fetch, naming host:port)', async () => {
    const sockets: net.Socket[] = [];
    const server = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(() => {
      for (const s of sockets) s.destroy();
      server.close();
    });
    const port = (server.address() as net.AddressInfo).port;
    const client = createOciClient({ registry: `127.0.0.1:${port}`, plainHttp: true, timeoutMs: 200 });
    const err = await rejectionOf(RenderError, client.ping());
    expect(err.code).toBe('fetch');
    expect(err.message).toContain(`127.0.0.1:${port}`);
  });
});
