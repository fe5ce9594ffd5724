/**
 * Every network body capi-render reads is bounded (docs/sources-and-lock.md, "Network answers are
 * bounded"). One row per read site — each reads through src/source/http/bounded-body.ts — against
 * a local server (test/helpers/body-server.ts) whose endpoint under test answers:
 *
 *   (a) an endless body: a FetchError naming the resource and the limit, and the server managed to
 *       send at most the limit + {@link SLACK} before the client closed the connection;
 *   (b) a Content-Length over the limit: refused unread (at most SLACK sent);
 *   (c) a body of exactly the limit: accepted;
 *   (d) where a digest applies, a header digest (or the digest asked for) that the bytes do not
 *       hash to: `digest-mismatch` naming the digests.
 *
 * Error answers read only for a message are cut at 64 KiB instead of failing; GitLab's error
 * answers are not read at all. capi-render has no plain https:// or file URL source: releases come
 * from GitHub, GitLab, OCI registries, local folders and ConfigMaps. The last block runs `build`
 * with pinDigests through the CLI. A Docker credential helper's output is bounded by execFile's
 * maxBuffer (test/integration/image-registry.test.ts).
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FetchError, RenderError } from '../../src/errors.js';
import { createImageRegistry } from '../../src/images/registry/image-registry.js';
import { createSignatureRegistry } from '../../src/publish/sign-registry.js';
import { createGitHubClient } from '../../src/source/github/github-client.js';
import { createGitHubPulls } from '../../src/source/github/github-pulls.js';
import { createGitLabClient } from '../../src/source/gitlab/gitlab-client.js';
import { createOciArtifactFileReader } from '../../src/source/oci/oci-artifact-files.js';
import { createOciClient, type FetchedManifest } from '../../src/source/oci/oci-client.js';
import { MEDIA_TYPE_OCI_INDEX, MEDIA_TYPE_OCI_MANIFEST } from '../../src/source/oci/oci-media-types.js';
import { startBodyServer, type Answer, type BodyServer } from '../helpers/body-server.js';
import { runCli } from '../helpers/cli.js';
import { rejectionOf } from '../helpers/errors.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const KiB = 1024;
const MiB = 1024 * KiB;
/**
 * What may pass beyond a limit before the client closes: chunks in flight (the server paces 64 KiB
 * chunks, but on a loaded machine the socket buffers fill a little before the client's abort lands;
 * 1.1 MiB was seen). Far below the endless body's cap, so a client that does not stop still fails.
 */
const SLACK = 4 * MiB;
/** A blob or layer size for the rows whose limit is a descriptor's size. */
const BLOB_SIZE = 1 * MiB;

const sha256 = (bytes: Uint8Array | string) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
/** A digest no body in this file hashes to. */
const OTHER = `sha256:${'0'.repeat(64)}`;

/** The longest filler string: octokit's JSON parser overflows its stack on one string of ~16 MB (many smaller ones are fine). */
const PAD_PIECE = 1 * MiB;

/** `build(pads)` as JSON of exactly `size` bytes: one filler string per MiB, grown to fill. */
function jsonOfSize(build: (pads: string[]) => unknown, size: number): Buffer {
  const pieces = Math.max(1, Math.ceil(size / PAD_PIECE));
  const fill = size - Buffer.byteLength(JSON.stringify(build(Array<string>(pieces).fill(''))));
  const each = Math.floor(fill / pieces);
  const pads = Array.from({ length: pieces }, (_, i) =>
    'x'.repeat(i === pieces - 1 ? fill - each * (pieces - 1) : each),
  );
  const bytes = Buffer.from(JSON.stringify(build(pads)));
  if (bytes.length !== size) throw new Error(`jsonOfSize: ${bytes.length} bytes, not ${size}`);
  return bytes;
}
/** The filler strings as annotation-like fields `pad0`, `pad1`, … */
const padFields = (pads: string[]) => Object.fromEntries(pads.map((pad, i) => [`pad${i}`, pad]));
const manifestOfSize = (size: number) =>
  jsonOfSize(
    (pads) => ({
      schemaVersion: 2,
      mediaType: MEDIA_TYPE_OCI_MANIFEST,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: OTHER, size: 2 },
      layers: [],
      annotations: padFields(pads),
    }),
    size,
  );
const indexOfSize = (size: number) =>
  jsonOfSize(
    (pads) => ({
      schemaVersion: 2,
      mediaType: MEDIA_TYPE_OCI_INDEX,
      manifests: [
        {
          mediaType: MEDIA_TYPE_OCI_MANIFEST,
          digest: OTHER,
          size: 2,
          platform: { os: 'linux', architecture: 'amd64' },
        },
      ],
      annotations: padFields(pads),
    }),
    size,
  );
const registryError = (code: string, size: number) =>
  jsonOfSize((pads) => ({ errors: [{ code, message: pads.join('') }] }), size);
const filled = (size: number, byte = 0x61) => Buffer.alloc(size, byte);

/** The same digest for every call of a row: computed from the exact body once. */
function once<T>(make: () => T): () => T {
  let value: { v: T } | undefined;
  return () => (value ??= { v: make() }).v;
}

/** What a row reads, and how its endpoint answers. */
interface Row {
  /** The read site, and the public calls that share its reader. */
  site: string;
  /** `body`: over the limit fails; `message`: an error answer read for its message, cut at the limit; `unread`: an error answer never read. */
  kind: 'body' | 'message' | 'unread';
  /** The limit the documentation states (a descriptor's or a listing's size where that is the limit). */
  limit: number;
  /** How the message names the limit, after `the` (`body` rows). */
  limitText?: string;
  /** How the message names the resource. */
  resource: (s: BodyServer) => string;
  /** The code of the failure (a `message` or `unread` row's error is about the status, not the body). Default: `fetch`. */
  code?: string;
  /** True for the request under test; every other request gets {@link Row.other}. */
  endpoint: (request: IncomingMessage) => boolean;
  /** The status and headers of the endpoint's answer. Default: 200. */
  status?: number;
  headers?: Record<string, string>;
  /** Answers to the other requests the call makes (a token challenge, a tag list). */
  other?: (request: IncomingMessage, s: BodyServer) => Answer;
  run: (s: BodyServer) => Promise<unknown>;
  /** (c): a body of exactly the limit, and what the call must return for it. */
  exact: () => { bytes: Uint8Array; check: (result: unknown, error: unknown) => void };
  /** (d): bytes and headers whose digest disagrees, and the digests the message must name. */
  digest?: () => { bytes: Uint8Array; headers?: Record<string, string>; names: string[] };
}

const registry = (s: BodyServer) => createImageRegistry({ env: {}, insecureRegistries: [s.host] });
const ociClient = (s: BodyServer) => createOciClient({ registry: s.host, plainHttp: true });
const github = (s: BodyServer) => createGitHubClient({ baseUrl: s.url, retries: 0, retryAfterBaseMs: 1 });
const GITLAB = 'https://gitlab.example.com';
/** GitLab URLs keep the clusterctl form; the transport sends them to the local server. */
const gitlab = (s: BodyServer) => createGitLabClient({ fetch: (url, init) => fetch(url.replace(GITLAB, s.url), init) });
const path = (request: IncomingMessage) => new URL(request.url ?? '/', 'http://x').pathname;
const hit = (method: string, pathname: string | RegExp) => (request: IncomingMessage) =>
  request.method === method &&
  (typeof pathname === 'string' ? path(request) === pathname : pathname.test(path(request)));

const manifestExact = once(() => manifestOfSize(4 * MiB));
const indexExact = once(() => indexOfSize(4 * MiB));
const blobExact = once(() => filled(BLOB_SIZE));
const signatureExact = once(() => filled(4 * MiB, 0x62));
const SUBJECT = sha256('subject');
const release = (pad: string, i = 0) => ({
  id: i + 1,
  tag_name: `v1.0.${i}`,
  draft: false,
  prerelease: false,
  assets: [],
  body: pad,
});
const LIMIT_MANIFEST = '4 MiB limit for manifests and indexes';
const LIMIT_API = '32 MiB limit for GitHub and GitLab API answers';
const LIMIT_RELEASE_FILE = '128 MiB limit for release files';

const rows: Row[] = [
  {
    site: 'registry manifest by tag — ImageRegistry.resolve (pinDigests, plan, upgrade --images)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: LIMIT_MANIFEST,
    resource: (s) => `image ${s.host}/capi/controller:v1: manifest v1 from registry ${s.host}`,
    endpoint: hit('GET', '/v2/capi/controller/manifests/v1'),
    headers: { 'content-type': MEDIA_TYPE_OCI_MANIFEST },
    run: (s) => registry(s).resolve({ registry: s.host, repository: 'capi/controller', tag: 'v1' }),
    exact: () => ({
      bytes: manifestExact(),
      check: (r) =>
        expect(r).toEqual({ digest: sha256(manifestExact()), mediaType: MEDIA_TYPE_OCI_MANIFEST, platforms: [] }),
    }),
    digest: () => ({
      bytes: manifestExact(),
      headers: { 'docker-content-digest': OTHER },
      names: [OTHER, sha256(manifestExact())],
    }),
  },
  {
    site: 'registry index by digest — ImageRegistry.manifest (signatures; copy walks manifests and indexes the same way)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: LIMIT_MANIFEST,
    resource: (s) =>
      `image ${s.host}/capi/controller@${sha256(indexExact())}: manifest ${sha256(indexExact())} from registry ${s.host}`,
    endpoint: (r) => hit('GET', `/v2/capi/controller/manifests/${sha256(indexExact())}`)(r),
    headers: { 'content-type': MEDIA_TYPE_OCI_INDEX },
    run: (s) =>
      registry(s).manifest({ registry: s.host, repository: 'capi/controller', reference: sha256(indexExact()) }),
    exact: () => ({
      bytes: indexExact(),
      check: (r) => expect(r).toMatchObject({ digest: sha256(indexExact()), mediaType: MEDIA_TYPE_OCI_INDEX }),
    }),
    digest: () => ({
      bytes: indexExact(),
      headers: { 'docker-content-digest': OTHER },
      names: [OTHER, sha256(indexExact())],
    }),
  },
  {
    site: 'referrers list — ImageRegistry.referrers (signature verification)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: LIMIT_MANIFEST,
    resource: (s) =>
      `image ${s.host}/capi/controller@${SUBJECT}: the referrers list of ${SUBJECT} on registry ${s.host}`,
    endpoint: hit('GET', `/v2/capi/controller/referrers/${SUBJECT}`),
    headers: { 'content-type': MEDIA_TYPE_OCI_INDEX },
    run: (s) => registry(s).referrers({ registry: s.host, repository: 'capi/controller', digest: SUBJECT }),
    exact: () => {
      const bytes = jsonOfSize(
        (pads) => ({ schemaVersion: 2, mediaType: MEDIA_TYPE_OCI_INDEX, manifests: [], annotations: padFields(pads) }),
        4 * MiB,
      );
      return { bytes, check: (r) => expect(r).toMatchObject({ source: 'api', manifests: [] }) };
    },
  },
  {
    site: 'registry blob with its size — ImageRegistry.blob (signature payloads; copy reads each blob by its descriptor the same way)',
    kind: 'body',
    limit: BLOB_SIZE,
    limitText: `${BLOB_SIZE} bytes its descriptor declares`,
    resource: (s) => `blob ${sha256(blobExact())} of capi/controller from ${s.host}`,
    endpoint: (r) => hit('GET', `/v2/capi/controller/blobs/${sha256(blobExact())}`)(r),
    run: (s) =>
      registry(s).blob(
        { registry: s.host, repository: 'capi/controller', digest: sha256(blobExact()), size: BLOB_SIZE },
        { maxBytes: 4 * MiB },
      ),
    exact: () => ({ bytes: blobExact(), check: (r) => expect((r as Uint8Array).length).toBe(BLOB_SIZE) }),
    digest: () => ({ bytes: filled(BLOB_SIZE, 0x62), names: [sha256(blobExact()), sha256(filled(BLOB_SIZE, 0x62))] }),
  },
  {
    site: 'registry blob without a size — ImageRegistry.blob (a signature layer whose descriptor has none)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: '4 MiB limit for signatures and Sigstore bundles',
    resource: (s) => `blob ${sha256(signatureExact())} of capi/controller from ${s.host}`,
    endpoint: (r) => hit('GET', `/v2/capi/controller/blobs/${sha256(signatureExact())}`)(r),
    run: (s) => registry(s).blob({ registry: s.host, repository: 'capi/controller', digest: sha256(signatureExact()) }),
    exact: () => ({ bytes: signatureExact(), check: (r) => expect((r as Uint8Array).length).toBe(4 * MiB) }),
    digest: () => ({ bytes: filled(4 * MiB, 0x63), names: [sha256(signatureExact()), sha256(filled(4 * MiB, 0x63))] }),
  },
  {
    site: 'registry error answer — OciHttp.unexpected (every registry call answered with an unexpected status)',
    kind: 'message',
    limit: 64 * KiB,
    resource: (s) =>
      `image ${s.host}/capi/controller:v1: registry ${s.host}: GET /v2/capi/controller/manifests/v1 failed with HTTP 500`,
    endpoint: hit('GET', '/v2/capi/controller/manifests/v1'),
    status: 500,
    headers: { 'content-type': 'application/json' },
    run: (s) => registry(s).resolve({ registry: s.host, repository: 'capi/controller', tag: 'v1' }),
    exact: () => ({
      bytes: registryError('UNKNOWN', 64 * KiB),
      check: (_r, e) => expect((e as Error).message).toContain('HTTP 500 (UNKNOWN: xxx'),
    }),
  },
  {
    site: 'registry 404 answer — the error codes of a missing image (ImageRegistry.resolve, manifest; the tag-list check after it)',
    kind: 'message',
    limit: 64 * KiB,
    code: 'source-not-found',
    resource: (s) => `image ${s.host}/capi/controller:v1: registry ${s.host} has no tag v1 in capi/controller`,
    endpoint: (r) =>
      hit('GET', '/v2/capi/controller/manifests/v1')(r) || hit('GET', '/v2/capi/controller/tags/list')(r),
    status: 404,
    headers: { 'content-type': 'application/json' },
    run: (s) => registry(s).resolve({ registry: s.host, repository: 'capi/controller', tag: 'v1' }),
    exact: () => ({
      bytes: registryError('MANIFEST_UNKNOWN', 64 * KiB),
      check: (_r, e) => expect((e as Error).message).toContain('(MANIFEST_UNKNOWN)'),
    }),
  },
  {
    site: 'token answer — the Bearer token flow of every registry call (OciAuthorizer)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: '4 MiB limit for registry tag lists and token answers',
    resource: (s) => `registry ${s.host}: the answer of its token service ${s.url}/token`,
    endpoint: hit('GET', '/token'),
    headers: { 'content-type': 'application/json' },
    other: (request, s): Answer =>
      request.headers.authorization === 'Bearer tok'
        ? {
            headers: { 'content-type': 'application/json' },
            body: { kind: 'bytes', bytes: JSON.stringify({ name: 'capi/core', tags: ['v1.0.0'] }) },
          }
        : { status: 401, headers: { 'www-authenticate': `Bearer realm="${s.url}/token",service="test"` } },
    run: (s) => ociClient(s).listTags('capi/core'),
    exact: () => ({
      bytes: jsonOfSize((pads) => ({ token: 'tok', ...padFields(pads) }), 4 * MiB),
      check: (r) => expect(r).toEqual(['v1.0.0']),
    }),
  },
  {
    site: 'registry tag-list page — OciClient.listTags (OCI source versions)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: '4 MiB limit for registry tag lists and token answers',
    resource: (s) => `registry ${s.host}: the tag list of capi/core`,
    endpoint: hit('GET', '/v2/capi/core/tags/list'),
    headers: { 'content-type': 'application/json' },
    run: (s) => ociClient(s).listTags('capi/core'),
    exact: () => ({
      bytes: jsonOfSize((pads) => ({ name: 'capi/core', tags: ['v1.0.0'], ...padFields(pads) }), 4 * MiB),
      check: (r) => expect(r).toEqual(['v1.0.0']),
    }),
  },
  {
    site: 'OCI artifact manifest — OciClient.getManifest (spec.fetchConfig.oci and oci:// provider URLs)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: LIMIT_MANIFEST,
    resource: (s) => `manifest capi/core:v1.0.0 from ${s.host}`,
    endpoint: hit('GET', '/v2/capi/core/manifests/v1.0.0'),
    headers: { 'content-type': MEDIA_TYPE_OCI_MANIFEST },
    run: (s) => ociClient(s).getManifest('capi/core', 'v1.0.0'),
    exact: () => ({
      bytes: manifestExact(),
      check: (r) => expect((r as FetchedManifest).digest).toBe(sha256(manifestExact())),
    }),
    digest: () => ({
      bytes: manifestExact(),
      headers: { 'docker-content-digest': OTHER },
      names: [OTHER, sha256(manifestExact())],
    }),
  },
  {
    site: 'OCI artifact layer — OciArtifactFileReader.read (a provider file of an OCI artifact)',
    kind: 'body',
    limit: BLOB_SIZE,
    limitText: `${BLOB_SIZE} bytes its descriptor declares`,
    resource: (s) => `blob ${sha256(blobExact())} of capi/core from ${s.host}`,
    endpoint: (r) => hit('GET', `/v2/capi/core/blobs/${sha256(blobExact())}`)(r),
    run: (s) =>
      createOciArtifactFileReader(ociClient(s), 'capi/core').read(artifactWithLayer(sha256(blobExact()), BLOB_SIZE), [
        'core-components.yaml',
      ]),
    exact: () => ({
      bytes: blobExact(),
      check: (r) => expect(r).toMatchObject({ name: 'core-components.yaml', layout: 'operator' }),
    }),
    digest: () => ({ bytes: filled(BLOB_SIZE, 0x62), names: [sha256(blobExact()), sha256(filled(BLOB_SIZE, 0x62))] }),
  },
  {
    site: 'signing: a manifest by tag — SignatureRegistry.find (publish --sign: the .sig tag, the fallback index)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: LIMIT_MANIFEST,
    resource: (s) => `manifest capi/flux:sha256-abc.sig from ${s.host}`,
    endpoint: hit('GET', '/v2/capi/flux/manifests/sha256-abc.sig'),
    headers: { 'content-type': MEDIA_TYPE_OCI_MANIFEST },
    run: (s) =>
      createSignatureRegistry({ registry: s.host, plainHttp: true, repository: 'capi/flux' }, undefined).find(
        'sha256-abc.sig',
      ),
    exact: () => ({
      bytes: manifestExact(),
      check: (r) => expect(r).toMatchObject({ digest: sha256(manifestExact()) }),
    }),
    digest: () => ({
      bytes: manifestExact(),
      headers: { 'docker-content-digest': OTHER },
      names: [OTHER, sha256(manifestExact())],
    }),
  },
  {
    site: 'signing: referrers list — SignatureRegistry.referrers (publish --sign)',
    kind: 'body',
    limit: 4 * MiB,
    limitText: LIMIT_MANIFEST,
    resource: (s) => `the referrers list of ${SUBJECT} in capi/flux on ${s.host}`,
    endpoint: hit('GET', `/v2/capi/flux/referrers/${SUBJECT}`),
    headers: { 'content-type': MEDIA_TYPE_OCI_INDEX },
    run: (s) =>
      createSignatureRegistry({ registry: s.host, plainHttp: true, repository: 'capi/flux' }, undefined).referrers(
        SUBJECT,
      ),
    exact: () => {
      const bytes = jsonOfSize(
        (pads) => ({ schemaVersion: 2, mediaType: MEDIA_TYPE_OCI_INDEX, manifests: [], annotations: padFields(pads) }),
        4 * MiB,
      );
      return { bytes, check: (r) => expect(r).toEqual({ descriptors: [], api: true }) };
    },
  },
  {
    site: 'push answer — OciClient.pushManifest (publish, mirror --oci, mirror --images): a refusal read for its message',
    kind: 'message',
    limit: 64 * KiB,
    resource: (s) => `registry ${s.host}: pushing manifest capi/flux:v1 failed with HTTP 400`,
    endpoint: hit('PUT', '/v2/capi/flux/manifests/v1'),
    status: 400,
    headers: { 'content-type': 'application/json' },
    run: (s) => ociClient(s).pushManifest('capi/flux', 'v1', manifestOfSize(512), MEDIA_TYPE_OCI_MANIFEST),
    exact: () => ({
      bytes: registryError('MANIFEST_INVALID', 64 * KiB),
      check: (_r, e) => expect((e as Error).message).toContain('HTTP 400 (MANIFEST_INVALID: xxx'),
    }),
  },
  {
    site: 'GitHub releases page — GitHubClient.listReleases (versions, latest, plan)',
    kind: 'body',
    limit: 32 * MiB,
    limitText: LIMIT_API,
    resource: (s) => `${s.url}/repos/o/r/releases?per_page=100`,
    endpoint: hit('GET', '/repos/o/r/releases'),
    headers: { 'content-type': 'application/json' },
    run: (s) => github(s).listReleases('o', 'r'),
    exact: () => ({
      bytes: jsonOfSize((pads) => pads.map(release), 32 * MiB),
      check: (r) => expect((r as unknown[]).length).toBe(32),
    }),
  },
  {
    site: 'GitHub release by tag — GitHubClient.getReleaseByTag (a pinned version)',
    kind: 'body',
    limit: 32 * MiB,
    limitText: LIMIT_API,
    resource: (s) => `${s.url}/repos/o/r/releases/tags/v1.0.0`,
    endpoint: hit('GET', '/repos/o/r/releases/tags/v1.0.0'),
    headers: { 'content-type': 'application/json' },
    run: (s) => github(s).getReleaseByTag('o', 'r', 'v1.0.0'),
    exact: () => ({
      bytes: jsonOfSize(
        (pads) => ({ ...release(''), assets: pads.map((pad, i) => ({ id: i, name: pad, size: 1 })) }),
        32 * MiB,
      ),
      check: (r) => expect(r).toMatchObject({ tagName: 'v1.0.0' }),
    }),
  },
  {
    site: 'GitHub pull requests — GitHubPulls.findOpen (upgrade --pr)',
    kind: 'body',
    limit: 32 * MiB,
    limitText: LIMIT_API,
    resource: (s) => `${s.url}/repos/o/r/pulls?head=o%3Acapi-render%2Fupgrade&state=open&per_page=100`,
    endpoint: hit('GET', '/repos/o/r/pulls'),
    headers: { 'content-type': 'application/json' },
    run: (s) => createGitHubPulls({ baseUrl: s.url, retries: 0 }).findOpen('o', 'r', 'capi-render/upgrade'),
    exact: () => ({
      bytes: jsonOfSize(
        (pads) =>
          pads.map((pad, i) => ({
            number: 7 + i,
            html_url: `https://github.test/o/r/pull/${7 + i}`,
            head: { ref: 'capi-render/upgrade' },
            base: { ref: 'main' },
            title: 't',
            body: pad,
          })),
        32 * MiB,
      ),
      check: (r) => expect(r).toMatchObject({ number: 7 }),
    }),
  },
  {
    site: 'GitHub release asset with its listed size — GitHubClient.downloadAsset (provider components, metadata.yaml)',
    kind: 'body',
    limit: BLOB_SIZE,
    limitText: `${BLOB_SIZE} bytes the release lists for it`,
    resource: (s) => `${s.url}/repos/o/r/releases/assets/7`,
    endpoint: hit('GET', '/repos/o/r/releases/assets/7'),
    headers: { 'content-type': 'application/octet-stream' },
    run: (s) =>
      github(s).downloadAsset('o', 'r', {
        id: 7,
        name: 'core-components.yaml',
        size: BLOB_SIZE,
        browserDownloadUrl: '',
      }),
    exact: () => ({ bytes: blobExact(), check: (r) => expect((r as Uint8Array).length).toBe(BLOB_SIZE) }),
  },
  {
    site: 'GitHub release asset without a listed size — GitHubClient.downloadAsset',
    kind: 'body',
    limit: 128 * MiB,
    limitText: LIMIT_RELEASE_FILE,
    resource: (s) => `${s.url}/repos/o/r/releases/assets/8`,
    endpoint: hit('GET', '/repos/o/r/releases/assets/8'),
    headers: { 'content-type': 'application/octet-stream' },
    run: (s) =>
      github(s).downloadAsset('o', 'r', { id: 8, name: 'core-components.yaml', size: 0, browserDownloadUrl: '' }),
    exact: () => ({ bytes: filled(128 * MiB), check: (r) => expect((r as Uint8Array).length).toBe(128 * MiB) }),
  },
  {
    site: 'GitHub error answer — every GitHub call answered 500 (octokit reads it for its message)',
    kind: 'message',
    limit: 64 * KiB,
    resource: (s) => `GitHub answered 500 for GET ${s.url}/repos/o/r/releases?per_page=100`,
    endpoint: hit('GET', '/repos/o/r/releases'),
    status: 500,
    headers: { 'content-type': 'application/json' },
    run: (s) => github(s).listReleases('o', 'r'),
    exact: () => ({
      bytes: jsonOfSize((pads) => ({ message: pads.join('') }), 64 * KiB),
      check: (_r, e) => expect((e as Error).message).toContain('GitHub answered 500'),
    }),
  },
  {
    site: 'GitLab package list page — GitLabClient.listVersions (versions, latest, plan)',
    kind: 'body',
    limit: 32 * MiB,
    limitText: LIMIT_API,
    resource: () => `${GITLAB}/api/v4/projects/capi%2Freleases/packages`,
    endpoint: hit('GET', '/api/v4/projects/capi%2Freleases/packages'),
    headers: { 'content-type': 'application/json' },
    run: (s) =>
      gitlab(s).listVersions({
        host: 'gitlab.example.com',
        projectSlug: 'capi%2Freleases',
        packageName: 'cluster-api',
      }),
    exact: () => ({
      bytes: jsonOfSize(
        (pads) =>
          pads.map((pad) => ({
            name: 'cluster-api',
            version: 'v1.0.0',
            package_type: 'generic',
            status: 'default',
            pad,
          })),
        32 * MiB,
      ),
      check: (r) => expect(r).toEqual(['v1.0.0']),
    }),
  },
  {
    site: 'GitLab package file — GitLabClient.getFile (provider components, metadata.yaml)',
    kind: 'body',
    limit: 128 * MiB,
    limitText: LIMIT_RELEASE_FILE,
    resource: () =>
      `${GITLAB}/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.0.0/core-components.yaml`,
    endpoint: hit('GET', '/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.0.0/core-components.yaml'),
    headers: { 'content-type': 'application/octet-stream' },
    run: (s) =>
      gitlab(s).getFile({
        url: `${GITLAB}/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.0.0/core-components.yaml`,
        version: 'v1.0.0',
        file: 'core-components.yaml',
      }),
    exact: () => ({ bytes: filled(128 * MiB), check: (r) => expect((r as Uint8Array).length).toBe(128 * MiB) }),
  },
  {
    site: 'GitLab error answer — GitLabClient.getFile answered 500 (never read)',
    kind: 'unread',
    limit: 0,
    resource: () => `failed to get file "core-components.yaml" with version "v1.0.0"`,
    endpoint: hit('GET', '/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.0.0/core-components.yaml'),
    status: 500,
    run: (s) =>
      gitlab(s).getFile({
        url: `${GITLAB}/api/v4/projects/capi%2Freleases/packages/generic/cluster-api/v1.0.0/core-components.yaml`,
        version: 'v1.0.0',
        file: 'core-components.yaml',
      }),
    exact: () => ({ bytes: filled(64 * KiB), check: (_r, e) => expect((e as Error).message).toContain('got 500') }),
  },
];

/** A fetched artifact of the operator's layout whose one layer is `core-components.yaml`. */
function artifactWithLayer(digest: string, size: number): FetchedManifest {
  const layer = {
    mediaType: 'application/vnd.oci.image.layer.v1.tar',
    digest,
    size,
    annotations: { 'org.opencontainers.image.title': 'core-components.yaml' },
  };
  const bytes = new TextEncoder().encode(
    JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPE_OCI_MANIFEST, layers: [layer] }),
  );
  return {
    digest: sha256(bytes),
    mediaType: MEDIA_TYPE_OCI_MANIFEST,
    bytes,
    manifest: { mediaType: MEDIA_TYPE_OCI_MANIFEST, layers: [layer] },
  };
}

let server: BodyServer;
beforeAll(async () => {
  server = await startBodyServer();
});
afterAll(async () => {
  await server?.close();
});
beforeEach(() => {
  server.reset();
});

/** Routes the row's endpoint to `answer`, everything else to the row's other answers (404 without). */
function serve(row: Row, answer: Answer): void {
  server.handle((request) => (row.endpoint(request) ? answer : (row.other?.(request, server) ?? { status: 404 })));
}

/** Body bytes the server sent for the row's endpoint, once every response has finished or closed. */
async function sentToEndpoint(row: Row): Promise<number> {
  const served = await server.settled();
  const hits = served.filter((s) => row.endpoint({ method: s.method, url: s.url } as IncomingMessage));
  expect(hits.length, 'the endpoint under test was asked').toBeGreaterThan(0);
  expect(
    hits.map((s) => s.closed),
    'the client closed the answer (or read it to its end)',
  ).not.toContain(false);
  return hits.reduce((n, s) => n + s.sent, 0);
}

/** The call's failure: a RenderError (so never an internal error) of the row's code naming the resource. */
async function failure(row: Row): Promise<FetchError> {
  const err = await rejectionOf(FetchError, row.run(server));
  expect(err).toBeInstanceOf(RenderError);
  expect(err.code).toBe(row.code ?? 'fetch');
  expect(err.diagnostics).toHaveLength(1);
  expect(err.message).not.toContain('\n');
  expect(err.message).toContain(row.resource(server));
  return err;
}

const answer = (row: Row, body: Answer['body'], headers: Record<string, string> = {}): Answer => ({
  status: row.status ?? 200,
  headers: { ...row.headers, ...headers },
  body,
});

describe.each(rows)('$site', (row) => {
  it('(a) an endless body: fails naming the resource and the limit, and stops reading at the limit', async () => {
    serve(row, answer(row, { kind: 'endless' }));
    const err = await failure(row);
    if (row.kind === 'body') expect(err.message).toContain(`larger than the ${row.limitText}`);
    expect(await sentToEndpoint(row)).toBeLessThanOrEqual(row.limit + SLACK);
  });

  it('(b) a Content-Length over the limit: refused unread', async () => {
    serve(row, answer(row, { kind: 'declared', length: row.limit + 1 }));
    const err = await failure(row);
    if (row.kind === 'body')
      expect(err.message).toContain(
        `declares ${row.limit + 1} bytes (Content-Length), over the ${row.limitText}; not read`,
      );
    expect(await sentToEndpoint(row)).toBeLessThanOrEqual((row.kind === 'message' ? row.limit : 0) + SLACK);
  });

  it('(c) a body of exactly the limit: accepted', async () => {
    const { bytes, check } = row.exact();
    if (row.kind !== 'unread') expect(bytes.length).toBe(row.limit);
    serve(row, answer(row, { kind: 'bytes', bytes }));
    const outcome = await row.run(server).then(
      (result) => ({ result, error: undefined }),
      (error: unknown) => ({ result: undefined, error }),
    );
    if (row.kind === 'body') expect(outcome.error).toBeUndefined();
    else expect(outcome.error).toBeInstanceOf(FetchError);
    check(outcome.result, outcome.error);
  });

  const digest = row.digest;
  if (digest)
    it('(d) a digest the bytes do not hash to: digest-mismatch naming the digests', async () => {
      const { bytes, headers, names } = digest();
      serve(row, answer(row, { kind: 'bytes', bytes }, headers));
      const err = await rejectionOf(FetchError, row.run(server));
      expect(err.code).toBe('digest-mismatch');
      for (const digest of names) expect(err.message).toContain(digest);
    });
});

describe('limits checked before asking', () => {
  it('an OCI artifact layer whose descriptor declares more than 128 MiB is not asked for', async () => {
    server.handle(() => ({ status: 500 }));
    const layer = sha256('huge');
    const err = await rejectionOf(
      FetchError,
      createOciArtifactFileReader(ociClient(server), 'capi/core').read(artifactWithLayer(layer, 128 * MiB + 1), [
        'core-components.yaml',
      ]),
    );
    expect(err.message).toBe(
      `blob ${layer} of capi/core from ${server.host}: its descriptor declares ${128 * MiB + 1} bytes, over the ${LIMIT_RELEASE_FILE}; not read`,
    );
    expect(server.served).toEqual([]);
  });

  it('a GitHub asset the release lists at more than 128 MiB is not downloaded', async () => {
    server.handle(() => ({ status: 500 }));
    const err = await rejectionOf(
      FetchError,
      github(server).downloadAsset('o', 'r', { id: 9, name: 'huge.yaml', size: 128 * MiB + 1, browserDownloadUrl: '' }),
    );
    expect(err.message).toBe(
      `asset huge.yaml of o/r: the release lists ${128 * MiB + 1} bytes, over the ${LIMIT_RELEASE_FILE}; not downloaded`,
    );
    expect(server.served).toEqual([]);
  });

  it('mirror --images: a layer whose descriptor declares more than 1 GiB is not asked for (the copy goes through memory)', async () => {
    const layer = sha256('huge layer');
    const manifest = new TextEncoder().encode(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MEDIA_TYPE_OCI_MANIFEST,
        config: { mediaType: 'application/vnd.oci.image.config.v1+json', digest: sha256('{}'), size: 2 },
        layers: [{ mediaType: 'application/vnd.oci.image.layer.v1.tar', digest: layer, size: 1024 * MiB + 1 }],
      }),
    );
    const digest = sha256(manifest);
    server.handle((request): Answer => {
      const url = request.url ?? '';
      if (url.endsWith(`/manifests/${digest}`))
        return {
          headers: { 'content-type': MEDIA_TYPE_OCI_MANIFEST, 'docker-content-digest': digest },
          body: { kind: 'bytes', bytes: manifest },
        };
      if (request.method === 'POST') return { status: 202, headers: { location: '/v2/mirror/x/blobs/uploads/1' } };
      if (request.method === 'HEAD' && url.includes('/blobs/')) return { status: 404 };
      if (url.includes(`/blobs/${layer}`)) return { status: 500 };
      if (request.method === 'PUT') return { status: 201 };
      return { body: { kind: 'bytes', bytes: '{}' } };
    });
    const err = await rejectionOf(
      RenderError,
      registry(server).copy(
        { registry: server.host, repository: 'capi/x', digest },
        { registry: server.host, repository: 'mirror/x', tag: 'v1' },
      ),
    );
    expect(err.message).toContain(
      `its descriptor declares ${1024 * MiB + 1} bytes, over the 1024 MiB limit for image layers mirror --images copies; not read`,
    );
    expect(server.served.some((s) => s.method === 'GET' && s.url.includes(`/blobs/${layer}`))).toBe(false);
  });

  it('a push whose registry states another digest than the manifest pushed: digest-mismatch naming both', async () => {
    const manifest = manifestOfSize(512);
    server.handle(() => ({ status: 201, headers: { 'docker-content-digest': OTHER } }));
    const err = await rejectionOf(
      FetchError,
      ociClient(server).pushManifest('capi/flux', 'v1', manifest, MEDIA_TYPE_OCI_MANIFEST),
    );
    expect(err.code).toBe('digest-mismatch');
    expect(err.message).toBe(
      `registry ${server.host} stored manifest capi/flux:v1 as ${OTHER}, expected ${sha256(manifest)}`,
    );
  });
});

describe('through the CLI: build with imagePolicy.pinDigests', () => {
  const IMAGE = 'capi/cluster-api-controller';
  const config = () =>
    `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nrepositories:\n  - path: ${FIXTURES}repository\nimages:\n  all: {repository: ${server.host}/capi}\nimagePolicy:\n  pinDigests: true\n  insecureRegistries: [${server.host}]\n`;
  const repo = () =>
    makeRepo({
      'capi-render.yaml': config(),
      'providers/core.yaml': CORE(),
      'overlays/dev/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n',
    });
  const isManifest = (request: IncomingMessage) =>
    request.method === 'GET' && path(request) === `/v2/${IMAGE}/manifests/v1.12.0`;
  const image = () => `image ${server.host}/${IMAGE}:v1.12.0`;
  const usedBy = ' (used by Deployment/capi-system/capi-controller-manager container "manager")';

  it.each<{
    name: string;
    answer: (s: BodyServer) => (request: IncomingMessage) => Answer;
    first: (s: BodyServer) => string;
    limit: number;
  }>([
    {
      name: 'an endless manifest',
      answer: () => (request) =>
        isManifest(request)
          ? { headers: { 'content-type': MEDIA_TYPE_OCI_MANIFEST }, body: { kind: 'endless' } }
          : { status: 404 },
      first: (s) =>
        `error[fetch]: [dev] ${image()}: manifest v1.12.0 from registry ${s.host}: the answer is larger than the ${LIMIT_MANIFEST}; capi-render stopped reading there${usedBy}`,
      limit: 4 * MiB,
    },
    {
      name: 'a manifest whose Content-Length is over the limit',
      answer: () => (request) =>
        isManifest(request)
          ? { headers: { 'content-type': MEDIA_TYPE_OCI_MANIFEST }, body: { kind: 'declared', length: 5 * 1024 * MiB } }
          : { status: 404 },
      first: (s) =>
        `error[fetch]: [dev] ${image()}: manifest v1.12.0 from registry ${s.host}: the answer declares ${5 * 1024} MiB (Content-Length), over the ${LIMIT_MANIFEST}; not read${usedBy}`,
      limit: 0,
    },
    {
      name: 'an endless token answer',
      answer:
        (s) =>
        (request): Answer =>
          path(request) === '/token'
            ? { headers: { 'content-type': 'application/json' }, body: { kind: 'endless' } }
            : { status: 401, headers: { 'www-authenticate': `Bearer realm="${s.url}/token",service="test"` } },
      first: (s) =>
        `error[fetch]: [dev] ${image()}: registry ${s.host}: the answer of its token service ${s.url}/token: the answer is larger than the 4 MiB limit for registry tag lists and token answers; capi-render stopped reading there${usedBy}`,
      limit: 4 * MiB,
    },
    {
      name: 'a manifest whose Docker-Content-Digest is not the digest of its bytes',
      answer: () => (request) =>
        isManifest(request)
          ? {
              headers: { 'content-type': MEDIA_TYPE_OCI_MANIFEST, 'docker-content-digest': OTHER },
              body: { kind: 'bytes', bytes: manifestOfSize(600) },
            }
          : { status: 404 },
      first: (s) =>
        `error[digest-mismatch]: [dev] ${image()}: manifest v1.12.0 from registry ${s.host}: the registry states Docker-Content-Digest ${OTHER}, but the manifest's bytes hash to ${sha256(manifestOfSize(600))}; not trusted${usedBy}`,
      limit: 600,
    },
  ])(
    '$name: exit 1, one line naming the image and the limit, nothing written',
    async ({ answer: route, first, limit }) => {
      const dir = repo();
      const before = snapshotTree(dir);
      server.handle(route(server));
      const r = await runCli(['build'], { cwd: dir, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.split('\n')[0]).toBe(first(server));
      expect(r.stderr).not.toContain('internal error');
      expect(snapshotTree(dir)).toEqual(before);
      const served = await server.settled();
      expect(served.reduce((n, s) => n + s.sent, 0)).toBeLessThanOrEqual(limit + SLACK);
    },
  );
});
