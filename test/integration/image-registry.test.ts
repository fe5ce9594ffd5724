/**
 * The image registry client (src/images/registry/) against real registries (Debian's
 * docker-registry, distribution 2.8) holding images the tests build and push: resolving a tag to
 * the digest a runtime pulls, credentials the way docker finds them (a token-auth registry behind
 * TLS: credentials never go over plain HTTP), plain HTTP only for listed registries, a forward
 * proxy, and copying between registries (resume, cross-repository mount). Also the docker
 * credential lookup on its own.
 */
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FetchError, RenderError } from '../../src/errors.js';
import { createDockerCredentials, dockerAuthKey } from '../../src/images/registry/docker-credentials.js';
import {
  createImageRegistry,
  parseImageLocation,
  type CopyProgress,
  type ImageRegistryOptions,
} from '../../src/images/registry/image-registry.js';
import { createNetworkFetch } from '../../src/source/http/network-fetch.js';
import {
  IMAGE_MANIFEST_TYPES,
  MEDIA_TYPE_DOCKER_MANIFEST,
  MEDIA_TYPE_DOCKER_MANIFEST_LIST,
  MEDIA_TYPE_OCI_INDEX,
  MEDIA_TYPE_OCI_MANIFEST,
} from '../../src/source/oci/oci-media-types.js';
import { rejectionOf } from '../helpers/errors.js';
import { startForwardProxy, startTlsFront, type ForwardProxy, type TlsFront } from '../helpers/forward-proxy.js';
import { freePort, registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { pushTestImage, type PushedTestImage } from '../helpers/test-images.js';
import { tempDir, suiteTempDir } from '../helpers/tmp.js';
import { OPENSSL_BINARY, startTokenServer, type TokenServer } from '../helpers/token-server.js';

const USER = { username: 'capi', password: 'pa55-Secret-word' };
const REFRESH_TOKEN = 'refresh-Secret-token';
const SECRETS = [USER.password, REFRESH_TOKEN, Buffer.from(`${USER.username}:${USER.password}`).toString('base64')];

const unavailable =
  registryUnavailableReason() ??
  (existsSync(OPENSSL_BINARY) ? undefined : `${OPENSSL_BINARY} is missing (apt-get install openssl)`);
const skipRegistry = skipWithout(unavailable, 'the image registry tests');

/** Every message and hint of an error. */
function allText(err: unknown): string {
  if (err instanceof RenderError)
    return [err.message, ...err.diagnostics.flatMap((d) => [d.message, d.hint ?? ''])].join('\n');
  return String(err);
}

/** An error's text, after checking it holds no credential. */
function checked(err: unknown): string {
  const text = allText(err);
  for (const secret of SECRETS) expect(text).not.toContain(secret);
  return text;
}

interface Recorded {
  method: string;
  url: URL;
  status: number;
}

/** A fetch that records every request (method, URL, status) on top of `base`. */
function recording(base: typeof fetch = globalThis.fetch): { fetch: typeof fetch; requests: Recorded[] } {
  const requests: Recorded[] = [];
  const wrapped = (async (input: string | URL | Request, init?: RequestInit) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const response = await base(input, init);
    requests.push({ method: init?.method ?? 'GET', url, status: response.status });
    return response;
  }) as typeof fetch;
  return { fetch: wrapped, requests };
}

/** HEAD of a manifest with a chosen Accept, as a client with a narrow Accept would send it. */
async function headManifest(
  host: string,
  repository: string,
  reference: string,
  accept: string,
): Promise<{ status: number; digest: string | null; type: string | null }> {
  const response = await fetch(`http://${host}/v2/${repository}/manifests/${reference}`, {
    method: 'HEAD',
    headers: { accept },
  });
  return {
    status: response.status,
    digest: response.headers.get('docker-content-digest'),
    type: response.headers.get('content-type'),
  };
}

async function hasBlob(host: string, repository: string, digest: string): Promise<boolean> {
  const response = await fetch(`http://${host}/v2/${repository}/blobs/${digest}`, { method: 'HEAD' });
  return response.status === 200;
}

describe.skipIf(skipRegistry)('image registry: resolve and copy against real registries', () => {
  let a: TestRegistry;
  let b: TestRegistry;
  let single: PushedTestImage;
  let index: PushedTestImage;
  let list: PushedTestImage;
  beforeAll(async () => {
    [a, b] = await Promise.all([startRegistry(), startRegistry()]);
    [single, index, list] = await Promise.all([
      pushTestImage(a.host, 'cluster-api/single', 'v1.0.0'),
      pushTestImage(a.host, 'cluster-api/cluster-api-controller', 'v1.12.0', {
        platforms: ['linux/amd64', 'linux/arm64'],
      }),
      pushTestImage(a.host, 'jetstack/cert-manager-controller', 'v1.19.4', {
        platforms: ['linux/amd64', 'linux/arm64', 'linux/arm/v7'],
        docker: true,
      }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });
  const registry = (extra: Partial<ImageRegistryOptions> = {}) =>
    createImageRegistry({ env: {}, insecureRegistries: [a.host, b.host], ...extra });

  it('resolves a multi-platform tag to the index digest, which a narrow Accept would not give', async () => {
    const client = registry();
    const resolved = await client.resolve({
      registry: a.host,
      repository: 'cluster-api/cluster-api-controller',
      tag: 'v1.12.0',
    });
    expect(resolved).toEqual({
      digest: index.digest,
      mediaType: MEDIA_TYPE_OCI_INDEX,
      platforms: ['linux/amd64', 'linux/arm64'],
    });
    // Three children: two platforms and BuildKit's attestation manifest, which is no platform.
    expect(index.childDigests).toHaveLength(3);
    // One GET by tag: the pinned digest is that of the bytes read, and the platforms come with them.
    expect(client.requestCount(a.host)).toBe(1);

    const docker = await client.resolve({
      registry: a.host,
      repository: 'jetstack/cert-manager-controller',
      tag: 'v1.19.4',
    });
    expect(docker).toEqual({
      digest: list.digest,
      mediaType: MEDIA_TYPE_DOCKER_MANIFEST_LIST,
      platforms: ['linux/amd64', 'linux/arm64', 'linux/arm/v7'],
    });

    // The trap: without the list type in Accept, distribution answers with the linux/amd64 child and its digest…
    const narrow = await headManifest(
      a.host,
      'jetstack/cert-manager-controller',
      'v1.19.4',
      MEDIA_TYPE_DOCKER_MANIFEST,
    );
    expect(narrow.status).toBe(200);
    expect(narrow.digest).toBe(list.platformDigests['linux/amd64']);
    expect(narrow.digest).not.toBe(list.digest);
    // …and without the OCI index type, with MANIFEST_UNKNOWN; all four types give the index.
    expect(
      (await headManifest(a.host, 'cluster-api/cluster-api-controller', 'v1.12.0', MEDIA_TYPE_OCI_MANIFEST)).status,
    ).toBe(404);
    expect(
      (await headManifest(a.host, 'cluster-api/cluster-api-controller', 'v1.12.0', IMAGE_MANIFEST_TYPES.join(', ')))
        .digest,
    ).toBe(index.digest);
  });

  it('resolves a single-platform image to its manifest digest with one GET', async () => {
    const client = registry();
    expect(await client.resolve({ registry: a.host, repository: 'cluster-api/single', tag: 'v1.0.0' })).toEqual({
      digest: single.digest,
      mediaType: MEDIA_TYPE_OCI_MANIFEST,
      platforms: [],
    });
    expect(client.requestCount(a.host)).toBe(1);
    const docker = await pushTestImage(a.host, 'cluster-api/single-docker', 'v1', { docker: true });
    expect(await client.resolve({ registry: a.host, repository: 'cluster-api/single-docker', tag: 'v1' })).toEqual({
      digest: docker.digest,
      mediaType: MEDIA_TYPE_DOCKER_MANIFEST,
      platforms: [],
    });
  });

  it('hashes the manifest when the registry omits Docker-Content-Digest, and refuses one that disagrees with the bytes', async () => {
    const withDigest = (digest: string | undefined) =>
      recording(async (input: string | URL | Request, init?: RequestInit) => {
        const response = await fetch(input, init);
        const headers = new Headers(response.headers);
        if (digest === undefined) headers.delete('docker-content-digest');
        else headers.set('docker-content-digest', digest);
        return new Response(new Uint8Array(await response.arrayBuffer()), { status: response.status, headers });
      });
    const omitted = withDigest(undefined);
    const resolved = await registry({ fetch: omitted.fetch }).resolve({
      registry: a.host,
      repository: 'cluster-api/cluster-api-controller',
      tag: 'v1.12.0',
    });
    expect(resolved).toEqual({
      digest: index.digest,
      mediaType: MEDIA_TYPE_OCI_INDEX,
      platforms: ['linux/amd64', 'linux/arm64'],
    });
    expect(omitted.requests.map((r) => `${r.method} ${r.url.pathname}`)).toEqual([
      'GET /v2/cluster-api/cluster-api-controller/manifests/v1.12.0',
    ]);

    // A header digest is pinned only once the bytes hash to it: another digest is refused, naming both.
    const other = single.digest;
    const lying = await rejectionOf(
      FetchError,
      registry({ fetch: withDigest(other).fetch }).resolve({
        registry: a.host,
        repository: 'cluster-api/cluster-api-controller',
        tag: 'v1.12.0',
      }),
    );
    expect(lying.code).toBe('digest-mismatch');
    expect(lying.message).toBe(
      `image ${a.host}/cluster-api/cluster-api-controller:v1.12.0: manifest v1.12.0 from registry ${a.host}: the registry states Docker-Content-Digest ${other}, but the manifest's bytes hash to ${index.digest}; not trusted`,
    );
  });

  it('reports HTTP 429 as a rate limit, with the limit the registry announced', async () => {
    const limited = (async () =>
      new Response(null, {
        status: 429,
        headers: { 'ratelimit-limit': '100;w=21600', 'ratelimit-remaining': '0;w=21600' },
      })) as typeof fetch;
    const err = await rejectionOf(
      FetchError,
      registry({ fetch: limited }).resolve({ registry: a.host, repository: 'cluster-api/single', tag: 'v1.0.0' }),
    );
    expect(err.code).toBe('rate-limit');
    expect(err.message).toBe(
      `image ${a.host}/cluster-api/single:v1.0.0: registry ${a.host} answered HTTP 429 Too Many Requests (ratelimit-limit 100;w=21600, remaining 0;w=21600)`,
    );
  });

  it('reports an unknown tag or repository as not found, naming the image and the registry', async () => {
    const tag = await rejectionOf(
      FetchError,
      registry().resolve({ registry: a.host, repository: 'cluster-api/cluster-api-controller', tag: 'v9.9.9' }),
    );
    expect(tag.code).toBe('source-not-found');
    expect(tag.message).toContain(
      `image ${a.host}/cluster-api/cluster-api-controller:v9.9.9: registry ${a.host} has no tag v9.9.9 in cluster-api/cluster-api-controller (MANIFEST_UNKNOWN)`,
    );
    const repo = await rejectionOf(
      FetchError,
      registry().resolve({ registry: a.host, repository: 'nobody/here', tag: 'v1' }),
    );
    expect(repo.code).toBe('source-not-found');
    expect(repo.message).toContain(
      `image ${a.host}/nobody/here:v1: registry ${a.host} has no repository nobody/here (NAME_UNKNOWN)`,
    );
  });

  it('refuses a plain-HTTP registry that imagePolicy.insecureRegistries does not list, 127.0.0.1 included', async () => {
    const err = await rejectionOf(
      FetchError,
      createImageRegistry({ env: {} }).resolve({ registry: a.host, repository: 'cluster-api/single', tag: 'v1.0.0' }),
    );
    expect(err.message).toContain(
      `image ${a.host}/cluster-api/single:v1.0.0: registry ${a.host} answers plain HTTP, not TLS`,
    );
    expect(err.diagnostics[0]?.hint).toContain(`list "${a.host}" in imagePolicy.insecureRegistries`);
    // Listed (as the user might write it, with a scheme), it is used.
    const listed = createImageRegistry({ env: {}, insecureRegistries: [`http://${a.host}`] });
    expect((await listed.resolve({ registry: a.host, repository: 'cluster-api/single', tag: 'v1.0.0' })).digest).toBe(
      single.digest,
    );
  });

  it('names the registry and the reason when it cannot be reached', async () => {
    const closed = `127.0.0.1:${await freePort()}`;
    const err = await rejectionOf(
      FetchError,
      createImageRegistry({ env: {}, insecureRegistries: [closed], timeoutMs: 2000 }).resolve({
        registry: closed,
        repository: 'x/y',
        tag: 'v1',
      }),
    );
    expect(err.code).toBe('fetch');
    expect(err.message).toContain(`image ${closed}/x/y:v1: cannot reach registry ${closed} (ECONNREFUSED)`);
  });

  describe('through a forward proxy', () => {
    let proxy: ForwardProxy;
    beforeAll(async () => {
      const port = Number(a.host.split(':')[1]);
      // registry.test resolves only at the proxy, as internal names do behind a corporate proxy.
      proxy = await startForwardProxy((host, p) =>
        host === 'registry.test' && p === port ? { host: '127.0.0.1', port } : undefined,
      );
    });
    afterAll(async () => {
      await proxy?.close();
    });

    it('sends every request through HTTP_PROXY (the proxy-aware fetch the CLI passes)', async () => {
      const host = `registry.test:${a.host.split(':')[1]}`;
      const client = createImageRegistry({
        env: {},
        fetch: createNetworkFetch({ HTTP_PROXY: proxy.url }),
        insecureRegistries: [host],
      });
      const resolved = await client.resolve({
        registry: host,
        repository: 'cluster-api/cluster-api-controller',
        tag: 'v1.12.0',
      });
      expect(resolved.digest).toBe(index.digest);
      expect(proxy.requests.map((r) => `${r.method} ${r.target}`)).toEqual([
        `GET http://${host}/v2/cluster-api/cluster-api-controller/manifests/v1.12.0`,
      ]);
      expect(client.requestCount(host)).toBe(1);
      // Without the proxy the name does not resolve, and the message says so.
      const direct = await rejectionOf(
        FetchError,
        createImageRegistry({ env: {}, insecureRegistries: [host] }).resolve({
          registry: host,
          repository: 'cluster-api/single',
          tag: 'v1.0.0',
        }),
      );
      expect(direct.message).toMatch(/cannot reach registry registry\.test:\d+ \((ENOTFOUND|EAI_AGAIN)\)/);
      expect(direct.diagnostics[0]?.hint).toContain('does not resolve from here');
    });
  });

  describe('copy', () => {
    it('copies index, platform and attestation manifests and blobs into another registry; a second copy sends no blob', async () => {
      const events: CopyProgress[] = [];
      const rec = recording();
      const client = registry({ fetch: rec.fetch, onProgress: (p) => events.push(p) });
      const from = { registry: a.host, repository: 'cluster-api/cluster-api-controller', digest: index.digest };
      const to = { registry: b.host, repository: 'mirror/cluster-api-controller', tag: 'v1.12.0' };
      expect(await client.copy(from, to)).toBe(index.digest);
      expect((await registry().resolve(to)).digest).toBe(index.digest);
      for (const child of index.childDigests)
        expect((await headManifest(b.host, to.repository, child, IMAGE_MANIFEST_TYPES.join(', '))).digest).toBe(child);
      for (const blob of index.blobDigests) expect(await hasBlob(b.host, to.repository, blob)).toBe(true);
      // Two platforms × (config + 2 layers) + the attestation's config and statement.
      expect(index.blobDigests).toHaveLength(8);
      const last = events.at(-1)!;
      expect(last).toMatchObject({
        image: `${a.host}/cluster-api/cluster-api-controller@${index.digest}`,
        blobsDone: 8,
        blobsTotal: 8,
      });
      expect(last.copiedBytes).toBe(last.totalBytes);
      expect(rec.requests.filter((r) => r.method === 'PUT' && r.url.pathname.includes('/blobs/uploads/'))).toHaveLength(
        8,
      );

      // Again: every blob is there already, so nothing is read from the source or uploaded.
      const again = recording();
      expect(await registry({ fetch: again.fetch }).copy(from, to)).toBe(index.digest);
      const blobTraffic = again.requests.filter((r) => r.url.pathname.includes('/blobs/') && r.method !== 'HEAD');
      expect(blobTraffic).toEqual([]);
      expect(again.requests.filter((r) => r.method === 'HEAD' && r.url.host === b.host)).toHaveLength(8);
    });

    it('resumes an interrupted copy, uploading only what is missing', async () => {
      const image = await pushTestImage(a.host, 'resume/app', 'v1', {
        platforms: ['linux/amd64', 'linux/arm64'],
        layers: 3,
      });
      const from = { registry: a.host, repository: 'resume/app', digest: image.digest };
      const to = { registry: b.host, repository: 'resume/app', tag: 'v1' };
      let uploads = 0;
      const failing = (async (input: string | URL | Request, init?: RequestInit) => {
        const url = new URL(String(input));
        if (init?.method === 'PUT' && url.pathname.includes('/blobs/uploads/') && ++uploads > 3)
          throw new TypeError('fetch failed', { cause: Object.assign(new Error('reset'), { code: 'ECONNRESET' }) });
        return fetch(input, init);
      }) as typeof fetch;
      const err = await rejectionOf(FetchError, registry({ fetch: failing }).copy(from, to));
      expect(err.message).toContain(`image ${b.host}/resume/app:v1:`);
      const present = (await Promise.all(image.blobDigests.map((d) => hasBlob(b.host, to.repository, d)))).filter(
        Boolean,
      ).length;
      expect(present).toBeGreaterThanOrEqual(3);
      expect(present).toBeLessThan(image.blobDigests.length);

      const rec = recording();
      expect(await registry({ fetch: rec.fetch }).copy(from, to)).toBe(image.digest);
      expect(rec.requests.filter((r) => r.method === 'PUT' && r.url.pathname.includes('/blobs/uploads/'))).toHaveLength(
        image.blobDigests.length - present,
      );
    });

    it('mounts blobs across repositories of one registry instead of uploading them', async () => {
      const rec = recording();
      const client = registry({ fetch: rec.fetch });
      const to = { registry: a.host, repository: 'mirror/cert-manager-controller', tag: 'v1.19.4' };
      expect(
        await client.copy(
          { registry: a.host, repository: 'jetstack/cert-manager-controller', digest: list.digest },
          to,
        ),
      ).toBe(list.digest);
      const mounts = rec.requests.filter((r) => r.method === 'POST' && r.url.searchParams.has('mount'));
      expect(mounts).toHaveLength(list.blobDigests.length);
      expect(
        mounts.every((r) => r.status === 201 && r.url.searchParams.get('from') === 'jetstack/cert-manager-controller'),
      ).toBe(true);
      expect(rec.requests.filter((r) => r.url.pathname.includes('/blobs/') && r.method === 'GET')).toEqual([]);
      expect(rec.requests.filter((r) => r.method === 'PUT' && r.url.pathname.includes('/blobs/uploads/'))).toEqual([]);
      expect(await registry().resolve(to)).toEqual({
        digest: list.digest,
        mediaType: MEDIA_TYPE_DOCKER_MANIFEST_LIST,
        platforms: ['linux/amd64', 'linux/arm64', 'linux/arm/v7'],
      });
    });

    it('copies a single-platform image, and refuses a digest the source does not have', async () => {
      const to = { registry: b.host, repository: 'mirror/single', tag: 'v1.0.0' };
      expect(
        await registry().copy({ registry: a.host, repository: 'cluster-api/single', digest: single.digest }, to),
      ).toBe(single.digest);
      expect((await registry().resolve(to)).digest).toBe(single.digest);
      const missing = `sha256:${'0'.repeat(64)}`;
      const err = await rejectionOf(
        FetchError,
        registry().copy({ registry: a.host, repository: 'cluster-api/single', digest: missing }, to),
      );
      expect(err.message).toContain(
        `image ${a.host}/cluster-api/single@${missing}: registry ${a.host} has no manifest ${missing} in cluster-api/single`,
      );
    });
  });
});

describe.skipIf(skipRegistry)('image registry: credentials against a token-auth registry behind TLS', () => {
  const dir = suiteTempDir('capi-render-image-auth-');
  let tokens: TokenServer;
  let backend: TestRegistry;
  let tokenFront: TlsFront;
  let registryFront: TlsFront;
  let host: string;
  let tlsFetch: typeof fetch;
  let image: PushedTestImage;
  beforeAll(async () => {
    tokens = await startTokenServer({ dir, user: USER, refreshToken: REFRESH_TOKEN });
    // Credentials go only over TLS, so the registry and its token service sit behind TLS fronts.
    tokenFront = await startTlsFront({ localhost: tokens.realm.replace(/\/token$/, '') });
    const realm = `https://localhost:${tokenFront.port}/token`;
    backend = await startRegistry({
      token: { realm, service: tokens.service, issuer: tokens.issuer, certPath: tokens.certPath },
    });
    registryFront = await startTlsFront({ localhost: `http://${backend.host}` });
    host = `localhost:${registryFront.port}`;
    const agent = new Agent({
      connect: { ca: [readFileSync(tokenFront.certFile, 'utf8'), readFileSync(registryFront.certFile, 'utf8')] },
    });
    tlsFetch = (input: string | URL | Request, init?: RequestInit) =>
      undiciFetch(String(input), { ...(init as object), dispatcher: agent });
    // Pushed straight to the plain-HTTP backend (upload locations there name the backend's address).
    image = await pushTestImage(backend.host, 'private/controller', 'v1', {
      platforms: ['linux/amd64', 'linux/arm64'],
      credentials: USER,
      fetch: tlsFetch,
    });
  });
  afterAll(async () => {
    await Promise.all([registryFront?.close(), tokenFront?.close(), backend?.stop(), tokens?.stop()]);
  });

  const target = () => ({ registry: host, repository: 'private/controller', tag: 'v1' });
  const authOf = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');
  /** A DOCKER_CONFIG folder with this config.json. */
  const dockerConfig = (config: unknown): string => {
    const folder = tempDir('capi-render-docker-config-');
    writeFileSync(path.join(folder, 'config.json'), JSON.stringify(config));
    return folder;
  };
  /** A PATH folder with a docker-credential-capitest that knows `knows` (default: the registry; printing `username`/`secret`) and logs each call. */
  const helperPath = (username: string, secret: string, knows = host): { bin: string; log: string } => {
    const bin = tempDir('capi-render-helper-');
    const log = path.join(bin, 'calls.log');
    const script = [
      '#!/bin/sh',
      'read -r server',
      `echo "$1 $server" >> '${log}'`,
      `if [ "$server" = '${knows}' ]; then printf '{"ServerURL":"%s","Username":"%s","Secret":"%s"}' "$server" '${username}' '${secret}'; exit 0; fi`,
      'echo "credentials not found in native keychain"',
      'exit 1',
    ].join('\n');
    writeFileSync(path.join(bin, 'docker-credential-capitest'), `${script}\n`);
    chmodSync(path.join(bin, 'docker-credential-capitest'), 0o755);
    return { bin, log };
  };
  const resolveWith = (options: Partial<ImageRegistryOptions>) =>
    createImageRegistry({ env: {}, fetch: tlsFetch, ...options }).resolve(target());

  it('is denied anonymously, naming what was searched; succeeds with config.json auths', async () => {
    const empty = dockerConfig({ auths: {} });
    const denied = await rejectionOf(FetchError, resolveWith({ env: { DOCKER_CONFIG: empty } }));
    expect(denied.code).toBe('auth');
    const text = checked(denied);
    expect(text).toContain(`image ${host}/private/controller:v1: registry ${host}`);
    expect(text).toContain(
      `sent without credentials (no credentials for ${host} in ${path.join(empty, 'config.json')})`,
    );

    const folder = dockerConfig({ auths: { [host]: { auth: authOf(USER.username, USER.password) } } });
    const before = tokens.counts.password;
    const resolved = await resolveWith({ env: { DOCKER_CONFIG: folder, HOME: '/nonexistent' } });
    expect(resolved).toEqual({
      digest: image.digest,
      mediaType: MEDIA_TYPE_OCI_INDEX,
      platforms: ['linux/amd64', 'linux/arm64'],
    });
    expect(tokens.counts.password).toBe(before + 1);
  });

  it('finds $HOME/.docker/config.json, a legacy key with a scheme, and a password with a colon', async () => {
    const home = tempDir('capi-render-home-');
    mkdirSync(path.join(home, '.docker'));
    writeFileSync(
      path.join(home, '.docker', 'config.json'),
      JSON.stringify({ auths: { [`https://${host}/v1/`]: { auth: authOf(USER.username, 'wrong:password') } } }),
    );
    // The password is split at the first colon, and so it is wrong here: the message names the key, not the value.
    const err = await rejectionOf(FetchError, resolveWith({ env: { HOME: home } }));
    const text = checked(err);
    expect(text).toContain(
      `credentials tried: auths["https://${host}/v1/"] in ${path.join(home, '.docker', 'config.json')}`,
    );
    expect(text).not.toContain('wrong:password');
    expect(err.diagnostics[0]?.hint).toContain('check those credentials');
    writeFileSync(
      path.join(home, '.docker', 'config.json'),
      JSON.stringify({ auths: { [`https://${host}/v1/`]: { auth: authOf(USER.username, USER.password) } } }),
    );
    expect((await resolveWith({ env: { HOME: home } })).digest).toBe(image.digest);
  });

  it('runs credHelpers[host] with the server address on stdin and PATH from the options', async () => {
    const { bin, log } = helperPath(USER.username, USER.password);
    const folder = dockerConfig({
      credHelpers: { [host]: 'capitest' },
      auths: { [host]: { auth: authOf('other', 'ignored-Secret') } },
    });
    const client = createImageRegistry({
      env: { DOCKER_CONFIG: folder, PATH: `${bin}:/usr/bin:/bin` },
      fetch: tlsFetch,
    });
    expect((await client.resolve(target())).digest).toBe(image.digest);
    expect((await client.resolve({ ...target(), tag: 'v1' })).digest).toBe(image.digest);
    // Asked once per registry, with `get` and the registry's key.
    expect(readFileSync(log, 'utf8')).toBe(`get ${host}\n`);
    // Not on the PATH: the helper is named, and nothing is sent.
    const missing = await rejectionOf(
      FetchError,
      resolveWith({ env: { DOCKER_CONFIG: folder, PATH: '/usr/bin:/bin' } }),
    );
    expect(checked(missing)).toContain(
      `image ${host}/private/controller:v1: credHelpers["${host}"] in ${path.join(folder, 'config.json')}: docker-credential-capitest is not on the PATH`,
    );
  });

  it('uses credsStore, an identity token from it, and treats "credentials not found" as anonymous', async () => {
    const folder = dockerConfig({ credsStore: 'capitest' });
    const password = helperPath(USER.username, USER.password);
    expect((await resolveWith({ env: { DOCKER_CONFIG: folder, PATH: `${password.bin}:/usr/bin:/bin` } })).digest).toBe(
      image.digest,
    );

    const identity = helperPath('<token>', REFRESH_TOKEN);
    const refreshes = tokens.counts.refresh;
    expect((await resolveWith({ env: { DOCKER_CONFIG: folder, PATH: `${identity.bin}:/usr/bin:/bin` } })).digest).toBe(
      image.digest,
    );
    expect(tokens.counts.refresh).toBe(refreshes + 1);

    const elsewhere = helperPath(USER.username, USER.password, 'registry.example');
    const err = await rejectionOf(
      FetchError,
      resolveWith({ env: { DOCKER_CONFIG: folder, PATH: `${elsewhere.bin}:/usr/bin:/bin` } }),
    );
    expect(checked(err)).toContain(
      `sent without credentials (no credentials for ${host}: credsStore in ${path.join(folder, 'config.json')} (docker-credential-capitest) has none)`,
    );
  });

  it('takes identitytoken from config.json and DOCKER_AUTH_CONFIG before the file', async () => {
    const folder = dockerConfig({ auths: { [host]: { identitytoken: REFRESH_TOKEN } } });
    expect((await resolveWith({ env: { DOCKER_CONFIG: folder } })).digest).toBe(image.digest);
    const wrongFile = dockerConfig({ auths: { [host]: { auth: authOf(USER.username, 'not-it') } } });
    const env = {
      DOCKER_CONFIG: wrongFile,
      DOCKER_AUTH_CONFIG: JSON.stringify({ auths: { [host]: { auth: authOf(USER.username, USER.password) } } }),
    };
    expect((await resolveWith({ env })).digest).toBe(image.digest);
  });

  it('lets imagePolicy credentials win over the docker config, and names them when refused', async () => {
    const folder = dockerConfig({ auths: { [host]: { auth: authOf(USER.username, 'not-it') } } });
    expect((await resolveWith({ env: { DOCKER_CONFIG: folder }, credentials: { [host]: USER } })).digest).toBe(
      image.digest,
    );
    const err = await rejectionOf(
      FetchError,
      resolveWith({ env: {}, credentials: { [host]: { username: USER.username, password: `${USER.password}-old` } } }),
    );
    expect(checked(err)).toContain(`credentials tried: the credentials for ${host} from the imagePolicy pull secret`);
  });

  it('never sends credentials to a registry it speaks plain HTTP to', async () => {
    const folder = dockerConfig({ auths: { [backend.host]: { auth: authOf(USER.username, USER.password) } } });
    const before = tokens.counts.password;
    const err = await rejectionOf(
      FetchError,
      createImageRegistry({
        env: { DOCKER_CONFIG: folder },
        fetch: tlsFetch,
        insecureRegistries: [backend.host],
        credentials: { [backend.host]: USER },
      }).resolve({ ...target(), registry: backend.host }),
    );
    expect(err.code).toBe('auth');
    expect(checked(err)).toContain('capi-render never sends credentials over plain HTTP');
    expect(tokens.counts.password).toBe(before);
  });
});

describe('image registry: Docker Hub', () => {
  it('talks to registry-1.docker.io with the credentials docker keeps under https://index.docker.io/v1/', async () => {
    const folder = tempDir('capi-render-docker-config-');
    writeFileSync(
      path.join(folder, 'config.json'),
      JSON.stringify({
        auths: { 'https://index.docker.io/v1/': { auth: Buffer.from(`hub-user:${USER.password}`).toString('base64') } },
      }),
    );
    const manifest = JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPE_OCI_MANIFEST,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: `sha256:${'b'.repeat(64)}`, size: 2 },
      layers: [],
    });
    const digest = `sha256:${createHash('sha256').update(manifest).digest('hex')}`;
    const seen: string[] = [];
    const hub = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(String(input));
      const authorization = new Headers(init?.headers).get('authorization');
      seen.push(`${init?.method ?? 'GET'} ${url.href} ${authorization ? 'with' : 'without'} authorization`);
      if (authorization !== `Basic ${Buffer.from(`hub-user:${USER.password}`).toString('base64')}`)
        return new Response(null, { status: 401, headers: { 'www-authenticate': 'Basic realm="hub"' } });
      return new Response(manifest, {
        status: 200,
        headers: { 'docker-content-digest': digest, 'content-type': MEDIA_TYPE_OCI_MANIFEST },
      });
    }) as typeof fetch;
    const client = createImageRegistry({ env: { DOCKER_CONFIG: folder }, fetch: hub });
    expect(await client.resolve({ registry: 'docker.io', repository: 'library/nginx', tag: '1' })).toEqual({
      digest,
      mediaType: MEDIA_TYPE_OCI_MANIFEST,
      platforms: [],
    });
    expect(seen).toEqual([
      'GET https://registry-1.docker.io/v2/library/nginx/manifests/1 without authorization',
      'GET https://registry-1.docker.io/v2/library/nginx/manifests/1 with authorization',
    ]);
    expect(client.requestCount('docker.io')).toBe(2);
    expect(client.requestCount('registry-1.docker.io')).toBe(2);
  });
});

describe('docker credentials', () => {
  const config = (value: unknown): string => {
    const folder = tempDir('capi-render-docker-config-');
    writeFileSync(path.join(folder, 'config.json'), typeof value === 'string' ? value : JSON.stringify(value));
    return folder;
  };
  const b64 = (s: string) => Buffer.from(s).toString('base64');

  it('keys Docker Hub as https://index.docker.io/v1/ and matches legacy keys by host', async () => {
    expect(dockerAuthKey('docker.io')).toBe('https://index.docker.io/v1/');
    expect(dockerAuthKey('index.docker.io')).toBe('https://index.docker.io/v1/');
    expect(dockerAuthKey('ghcr.io')).toBe('ghcr.io');
    const folder = config({
      auths: {
        'https://index.docker.io/v1/': { auth: b64('hub:pw:with:colons') },
        'http://registry.example:5000/v2/': { auth: b64('legacy:pw') },
      },
    });
    const creds = createDockerCredentials({ env: { DOCKER_CONFIG: folder } });
    expect(await creds.lookup('docker.io')).toEqual({
      credentials: { username: 'hub', password: 'pw:with:colons' },
      source: `auths["https://index.docker.io/v1/"] in ${path.join(folder, 'config.json')}`,
    });
    expect((await creds.lookup('registry.example:5000')).credentials).toEqual({ username: 'legacy', password: 'pw' });
    expect((await creds.lookup('registry.example')).credentials).toBeUndefined();
  });

  it('reads username/password, identitytoken and registrytoken fields', async () => {
    const folder = config({
      auths: { a: { username: 'u', password: 'p' }, b: { identitytoken: 'id' }, c: { registrytoken: 'rt' } },
    });
    const creds = createDockerCredentials({ env: { DOCKER_CONFIG: folder } });
    expect((await creds.lookup('a')).credentials).toEqual({ username: 'u', password: 'p' });
    expect((await creds.lookup('b')).credentials).toEqual({ refreshToken: 'id' });
    expect((await creds.lookup('c')).credentials).toEqual({ accessToken: 'rt' });
  });

  it('fails on a broken file or a bad auth value without showing it', async () => {
    const broken = await rejectionOf(
      FetchError,
      createDockerCredentials({ env: { DOCKER_CONFIG: config('{ nope') } }).lookup('x.io'),
    );
    expect(broken.message).toMatch(/the docker config .*config\.json is not JSON/);
    const bad = await rejectionOf(
      FetchError,
      createDockerCredentials({
        env: { DOCKER_CONFIG: config({ auths: { 'x.io': { auth: b64('no-colon-Secret') } } }) },
      }).lookup('x.io'),
    );
    expect(bad.message).toContain('auths["x.io"]');
    expect(allText(bad)).not.toContain('no-colon-Secret');
    expect(allText(bad)).not.toContain(b64('no-colon-Secret'));
  });

  it('is anonymous without DOCKER_CONFIG or HOME, or without a file', async () => {
    expect(await createDockerCredentials({ env: {} }).lookup('x.io')).toEqual({
      source: 'no credentials for x.io (neither DOCKER_CONFIG nor HOME is set)',
    });
    const folder = tempDir('capi-render-docker-config-');
    expect((await createDockerCredentials({ env: { DOCKER_CONFIG: folder } }).lookup('x.io')).source).toBe(
      `no credentials for x.io (${path.join(folder, 'config.json')} does not exist)`,
    );
  });

  it('stops a helper that does not answer, and hides what a failing helper printed', async () => {
    const bin = tempDir('capi-render-helper-');
    writeFileSync(path.join(bin, 'docker-credential-slow'), '#!/bin/sh\nsleep 5\n');
    writeFileSync(path.join(bin, 'docker-credential-loud'), '#!/bin/sh\necho "token=leaked-Secret"\nexit 3\n');
    chmodSync(path.join(bin, 'docker-credential-slow'), 0o755);
    chmodSync(path.join(bin, 'docker-credential-loud'), 0o755);
    const env = (store: string) => ({ DOCKER_CONFIG: config({ credsStore: store }), PATH: `${bin}:/usr/bin:/bin` });
    const slow = await rejectionOf(
      FetchError,
      createDockerCredentials({ env: env('slow'), timeoutMs: 300 }).lookup('x.io'),
    );
    expect(slow.message).toContain('docker-credential-slow did not answer within 0.3s');
    const loud = await rejectionOf(FetchError, createDockerCredentials({ env: env('loud') }).lookup('x.io'));
    expect(loud.message).toContain('docker-credential-loud get failed (exit code 3)');
    expect(allText(loud)).not.toContain('leaked-Secret');
    const traversal = await rejectionOf(FetchError, createDockerCredentials({ env: env('../bin/sh') }).lookup('x.io'));
    expect(traversal.message).toContain('not a plain program name suffix');
  });
});

describe('parseImageLocation', () => {
  it('splits canonical references, and only those', () => {
    expect(parseImageLocation('registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0')).toEqual({
      registry: 'registry.k8s.io',
      repository: 'cluster-api/cluster-api-controller',
      tag: 'v1.12.0',
      digest: '',
    });
    const digest = `sha256:${'a'.repeat(64)}`;
    expect(parseImageLocation(`localhost:5000/capd-manager:v1@${digest}`)).toEqual({
      registry: 'localhost:5000',
      repository: 'capd-manager',
      tag: 'v1',
      digest,
    });
    expect(parseImageLocation('docker.io/library/nginx:1')).toEqual({
      registry: 'docker.io',
      repository: 'library/nginx',
      tag: '1',
      digest: '',
    });
    expect(parseImageLocation(`quay.io/jetstack/cert-manager-controller@${digest}`)).toEqual({
      registry: 'quay.io',
      repository: 'jetstack/cert-manager-controller',
      tag: '',
      digest,
    });
    for (const text of [
      'nginx:1',
      'docker.io/nginx:1',
      'library/nginx',
      'Registry.k8s.io/UPPER:1',
      'registry.k8s.io/a:b:c',
      '',
    ])
      expect(parseImageLocation(text)).toBeUndefined();
  });
});
