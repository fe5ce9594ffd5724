/**
 * The registry side of image pinning and image mirroring: resolve a tag to the digest a container
 * runtime would pull (the index digest of a multi-platform image), and copy an image by digest —
 * index, every child manifest (attestations included) and every blob — into another repository.
 *
 * Design notes: docs/internals.md "images/registry/image-registry.ts".
 */
import { FetchError, RenderError, error, type DiagnosticCode } from '../../errors.js';
import { parseImageReference } from '../../process/image-reference.js';
import { networkReason } from '../../source/network-failure.js';
import { createOciClient, type OciClient } from '../../source/oci/oci-client.js';
import { credentialSecrets, type OciCredentials } from '../../source/oci/oci-credentials.js';
import { MANIFEST_LIMIT, MIRRORED_BLOB_LIMIT, signatureLimit } from '../../source/http/body-limits.js';
import { BodyLimitError, readBody } from '../../source/http/bounded-body.js';
import { computeOciDigest, isOciDigest, verifyOciDigest, verifyStatedDigest } from '../../source/oci/oci-digest.js';
import { createOciHttp, type OciHttp } from '../../source/oci/oci-http.js';
import {
  IMAGE_MANIFEST_TYPES,
  MEDIA_TYPE_DOCKER_MANIFEST_LIST,
  MEDIA_TYPE_OCI_INDEX,
} from '../../source/oci/oci-media-types.js';
import { registryHostPort } from '../../source/oci/oci-reference.js';
import { createDockerCredentials } from './docker-credentials.js';
import type {
  ImageLocation,
  ResolvedImage,
  CopyProgress,
  ImageRegistryOptions,
  ImageRegistry,
  ImageManifest,
  ReferrerDescriptor,
  ImageReferrers,
} from './registry-types.js';
import {
  DOCKER_HUB,
  causeCode,
  descriptors,
  errorCodes,
  forEachLimit,
  guessMediaType,
  isRecord,
  mediaTypeOf,
  nextPage,
  platformsOf,
  pullScope,
  pushScope,
  referrerDescriptors,
  registryKey,
  type Descriptor,
} from './registry-responses.js';

export type {
  ImageLocation,
  ResolvedImage,
  CopyProgress,
  ImageRegistryOptions,
  ImageRegistry,
  ImageManifest,
  ReferrerDescriptor,
  ImageReferrers,
} from './registry-types.js';

const DEFAULT_TIMEOUT_MS = 30_000;
/** The host Docker Hub's API answers on. */
const DOCKER_HUB_API_HOST = 'registry-1.docker.io';
/** An index inside an index inside an index is already unusual. */
const MAX_INDEX_DEPTH = 4;
/** Blobs copied at once (each is held in memory while it is copied). */
const BLOB_CONCURRENCY = 3;
const MANIFEST_CONCURRENCY = 4;
/** Pages of a referrers list followed (`Link`), each up to the registry's page size. */
const MAX_REFERRER_PAGES = 20;
/** What a registry without the referrers API answers `GET /v2/<repo>/referrers/<digest>` with: 404 per the spec, the others seen in the wild. */
const NO_REFERRERS_API = new Set([400, 404, 405, 501]);
const ACCEPT = IMAGE_MANIFEST_TYPES.join(', ');
const INDEX_TYPES = new Set([MEDIA_TYPE_OCI_INDEX, MEDIA_TYPE_DOCKER_MANIFEST_LIST]);
/** Layers that registries do not serve (Windows base layers): their `urls` point elsewhere; copied manifests keep pointing there. */
const FOREIGN_LAYER = /(?:\.foreign\.|\.nondistributable\.)/;
/** TLS answered by something that speaks plain HTTP. */
const PLAIN_HTTP_CODES = new Set([
  'ERR_SSL_WRONG_VERSION_NUMBER',
  'ERR_SSL_PACKET_LENGTH_TOO_LONG',
  'ERR_SSL_HTTP_REQUEST',
]);
const TLS_TRUST_REASONS = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

// distribution/reference grammar for the parts a location carries.
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REPOSITORY = new RegExp(`^${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const REGISTRY =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])(?::[0-9]{1,5})?$/;

/** Splits a canonical image reference into location, tag and digest (`''` when absent); undefined when it is not one. */
export function parseImageLocation(text: string): (ImageLocation & { tag: string; digest: string }) | undefined {
  const parsed = parseImageReference(text);
  if (parsed.kind !== 'ok') return undefined;
  const name = `${parsed.image.repository}/${parsed.image.name}`;
  const slash = name.indexOf('/');
  if (slash <= 0) return undefined;
  return {
    registry: name.slice(0, slash),
    repository: name.slice(slash + 1),
    tag: parsed.image.tag,
    digest: parsed.image.digest,
  };
}

/** One registry, as this client talks to it. */
interface Connection {
  /** As the image reference wrote it, for messages. */
  registry: string;
  /** The key registries are compared by (Docker Hub's aliases are one). */
  key: string;
  /** `host[:port]` of the URLs sent (Docker Hub: its API host), as URL.host writes it. */
  urlHost: string;
  plainHttp: boolean;
  http: OciHttp;
  client: OciClient;
  hasCredentials: boolean;
  /** Which credential source was used or searched; no secret. */
  credentialNote: string;
  secrets: string[];
}

/** A fetched manifest, verified against its digest. */
interface FetchedImageManifest {
  digest: string;
  mediaType: string;
  bytes: Uint8Array;
  json: Record<string, unknown>;
}

/** Creates a client; it keeps its connections, token caches and request counts to itself. */
export function createImageRegistry(options: ImageRegistryOptions): ImageRegistry {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const baseFetch = options.fetch ?? globalThis.fetch;
  const insecure = new Set((options.insecureRegistries ?? []).map(registryKey));
  const docker = createDockerCredentials({ env: options.env, timeoutMs });
  const counts = new Map<string, number>();
  const lastFailure = new Map<string, unknown>();
  const plainOnly = new Set<string>();
  const connections = new Map<string, Promise<Connection>>();
  /** Errors this module made, so a wrapper does not wrap them twice. */
  const own = new WeakSet<Error>();

  const counting = (async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    counts.set(url.host, (counts.get(url.host) ?? 0) + 1);
    try {
      const response = await baseFetch(input, init);
      lastFailure.delete(url.host);
      return response;
    } catch (cause) {
      lastFailure.set(url.host, cause);
      if (PLAIN_HTTP_CODES.has(causeCode(cause) ?? '')) plainOnly.add(url.host);
      throw cause;
    }
  }) as typeof fetch;

  const mine = (code: DiagnosticCode, message: string, hint?: string): FetchError => {
    const e = new FetchError(error(code, message, hint === undefined ? {} : { hint }));
    own.add(e);
    return e;
  };

  function connect(registry: string, image: string): Promise<Connection> {
    const key = registryKey(registry);
    let pending = connections.get(key);
    if (!pending) connections.set(key, (pending = open(registry, key)));
    return pending.catch((e: unknown) => {
      throw translate(e, image, undefined, 'pull');
    });
  }

  async function open(registry: string, key: string): Promise<Connection> {
    const plainHttp = insecure.has(key);
    let credentials: OciCredentials | undefined;
    let credentialNote: string;
    if (plainHttp) {
      credentialNote = `none: ${registry} is plain HTTP (listed in imagePolicy.insecureRegistries), and capi-render never sends credentials over plain HTTP`;
    } else {
      const given = Object.entries(options.credentials ?? {}).find(([host]) => registryKey(host) === key);
      if (given) {
        credentials = { username: given[1].username, password: given[1].password };
        credentialNote = `the credentials for ${given[0]} from the imagePolicy pull secret`;
      } else {
        const found = await docker.lookup(key === DOCKER_HUB ? DOCKER_HUB : registry);
        credentials = found.credentials;
        credentialNote = found.source;
      }
    }
    const apiHost = key === DOCKER_HUB ? DOCKER_HUB_API_HOST : registry;
    const hostPort = registryHostPort({ registry: apiHost, plainHttp });
    const http = createOciHttp({
      registry: apiHost,
      hostPort,
      plainHttp,
      ...(credentials ? { credentials } : {}),
      fetchImpl: counting,
      timeoutMs,
    });
    return {
      registry,
      key,
      urlHost: http.baseUrl.host,
      plainHttp,
      http,
      client: createOciClient({ registry: apiHost, plainHttp, http }),
      hasCredentials: credentials !== undefined,
      credentialNote,
      secrets: credentialSecrets(credentials),
    };
  }

  /** Turns a failure into one that names the image, the registry and the reason; no credential in it. */
  function translate(e: unknown, image: string, conn: Connection | undefined, access: 'pull' | 'push'): unknown {
    if (!(e instanceof RenderError) || own.has(e)) return e;
    const d = e.diagnostics[0];
    if (!d) return e;
    const redact = (text: string) => (conn?.secrets ?? []).reduce((t, s) => t.split(s).join('[redacted]'), text);
    const registry = conn?.registry ?? 'the registry';
    if (d.code === 'auth' && conn) {
      const tried = conn.hasCredentials
        ? `credentials tried: ${conn.credentialNote}`
        : `sent without credentials (${conn.credentialNote})`;
      const hint = conn.plainHttp
        ? `serve ${registry} over TLS and remove it from imagePolicy.insecureRegistries to use credentials there`
        : conn.hasCredentials
          ? `check those credentials, and that they may ${access} ${access === 'push' ? 'to' : 'from'} this repository`
          : `log in (\`docker login ${conn.registry}\`), configure a credential helper, or reference a pull secret with imagePolicy.pullSecret`;
      return mine('auth', redact(`image ${image}: ${d.message}; ${tried}`), hint);
    }
    // Too large: the message says which limit, the hint what to check; no network advice.
    if (e instanceof BodyLimitError)
      return mine(d.code, redact(`image ${image}: ${d.message}`), d.hint === undefined ? undefined : redact(d.hint));
    if (d.code === 'fetch' && conn && plainOnly.has(conn.urlHost)) {
      return mine(
        'fetch',
        `image ${image}: registry ${registry} answers plain HTTP, not TLS; capi-render uses plain HTTP only for registries listed in imagePolicy.insecureRegistries`,
        `if ${registry} is meant to be spoken to without TLS, list "${registry}" in imagePolicy.insecureRegistries (credentials are never sent to it); otherwise check the port`,
      );
    }
    if (d.code === 'fetch' && conn) return mine('fetch', redact(`image ${image}: ${d.message}`), networkHint(conn));
    return mine(d.code, redact(`image ${image}: ${d.message}`), d.hint === undefined ? undefined : redact(d.hint));
  }

  function networkHint(conn: Connection): string {
    const cause = lastFailure.get(conn.urlHost);
    const reason = cause === undefined ? '' : networkReason(cause);
    if (TLS_TRUST_REASONS.has(reason)) {
      return `the certificate of ${conn.registry} is not trusted here: point NODE_EXTRA_CA_CERTS at its CA certificate (imagePolicy.insecureRegistries is for plain-HTTP registries)`;
    }
    const dns =
      reason === 'ENOTFOUND' || reason === 'EAI_AGAIN' || reason === 'EAI_NONAME'
        ? `${conn.urlHost} does not resolve from here. `
        : '';
    return `${dns}Check that ${conn.registry} is reachable from here (behind a proxy set HTTPS_PROXY / HTTP_PROXY / NO_PROXY); an air-gapped site pulls from a mirror (capi-render mirror --images) and builds from the digests capi-render.lock records`;
  }

  async function guarded<T>(
    conn: Connection,
    image: string,
    access: 'pull' | 'push',
    run: () => Promise<T>,
  ): Promise<T> {
    try {
      return await run();
    } catch (e) {
      throw translate(e, image, conn, access);
    }
  }

  /** GET a manifest (by tag or digest); verified against the digest asked for or announced. */
  async function getManifest(
    conn: Connection,
    repository: string,
    reference: string,
    image: string,
  ): Promise<FetchedImageManifest>;
  /** The same; `missing: 'undefined'` answers undefined for a 404 instead of throwing. */
  async function getManifest(
    conn: Connection,
    repository: string,
    reference: string,
    image: string,
    missing: 'undefined',
  ): Promise<FetchedImageManifest | undefined>;
  async function getManifest(
    conn: Connection,
    repository: string,
    reference: string,
    image: string,
    missing: 'throw' | 'undefined' = 'throw',
  ): Promise<FetchedImageManifest | undefined> {
    const target = `/v2/${repository}/manifests/${reference}`;
    const response = await conn.http.send({
      method: 'GET',
      target,
      scope: pullScope(repository),
      headers: { accept: ACCEPT },
    });
    if (response.status === 404 && missing === 'undefined') {
      await response.body?.cancel();
      return undefined;
    }
    if (response.status === 404) throw await notFound(conn, response, repository, reference, image);
    if (response.status === 429) throw rateLimited(conn, response, image);
    if (response.status !== 200)
      throw translate(await conn.http.unexpected(response, `GET ${target}`), image, conn, 'pull');
    // These messages get the image name when guarded() translates them.
    const where = `manifest ${reference} from registry ${conn.registry}`;
    const what = `image ${image}: ${where}`;
    const bytes = await readBody(response, where, MANIFEST_LIMIT);
    // A digest is trusted only once the bytes hash to it: the one asked for, and the one the registry states.
    const announced = response.headers.get('docker-content-digest') ?? '';
    if (isOciDigest(reference)) verifyOciDigest(bytes, reference, where);
    if (isOciDigest(announced)) verifyStatedDigest(bytes, announced, where);
    const digest = isOciDigest(reference) ? reference : isOciDigest(announced) ? announced : computeOciDigest(bytes);
    let json: unknown;
    try {
      json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      throw mine('fetch', `${what} is not JSON`);
    }
    if (!isRecord(json)) throw mine('fetch', `${what} is not a JSON object`);
    const served = mediaTypeOf(response);
    const inBody = typeof json.mediaType === 'string' ? json.mediaType : '';
    if (served !== '' && inBody !== '' && served !== inBody) {
      throw mine(
        'fetch',
        `${what} was served as ${served} but says it is ${inBody}`,
        'the registry or a proxy on the way altered the manifest; capi-render does not pin it',
      );
    }
    const mediaType = inBody || (IMAGE_MANIFEST_TYPES.includes(served) ? served : '') || guessMediaType(json);
    if (!IMAGE_MANIFEST_TYPES.includes(mediaType)) {
      throw mine(
        'source-unsupported',
        json.schemaVersion === 1
          ? `${what} is a Docker schema 1 manifest, which no current runtime pulls by digest`
          : `${what} has media type ${JSON.stringify(mediaType || served)}, not an image manifest or index`,
        json.schemaVersion === 1 ? 'push the image again with a current docker or buildx' : undefined,
      );
    }
    return { digest, mediaType, bytes, json };
  }

  /** A 404's FetchError: no such repository (NAME_UNKNOWN) or no such tag/manifest (MANIFEST_UNKNOWN). */
  async function notFound(
    conn: Connection,
    response: Response,
    repository: string,
    reference: string,
    image: string,
  ): Promise<FetchError> {
    const codes = await errorCodes(response);
    const hint = 'check the image reference; for a mirror, copy the image there first (capi-render mirror --images)';
    // distribution answers MANIFEST_UNKNOWN for a tag of a repository it has never seen; its tag list tells the two apart.
    if (!codes.includes('NAME_UNKNOWN') && !isOciDigest(reference) && (await repositoryUnknown(conn, repository)))
      codes.unshift('NAME_UNKNOWN');
    if (codes.includes('NAME_UNKNOWN'))
      return mine(
        'source-not-found',
        `image ${image}: registry ${conn.registry} has no repository ${repository} (NAME_UNKNOWN)`,
        hint,
      );
    const what = isOciDigest(reference) ? `manifest ${reference}` : `tag ${reference}`;
    return mine(
      'source-not-found',
      `image ${image}: registry ${conn.registry} has no ${what} in ${repository} (${codes[0] ?? 'HTTP 404'})`,
      hint,
    );
  }

  /** True only when the registry says NAME_UNKNOWN for the repository's tag list; anything else (errors included) is false. */
  async function repositoryUnknown(conn: Connection, repository: string): Promise<boolean> {
    try {
      const response = await conn.http.send({
        method: 'GET',
        target: `/v2/${repository}/tags/list?n=1`,
        scope: pullScope(repository),
        headers: { accept: 'application/json' },
      });
      if (response.status !== 404) {
        await response.body?.cancel();
        return false;
      }
      return (await errorCodes(response)).includes('NAME_UNKNOWN');
    } catch {
      return false;
    }
  }

  function rateLimited(conn: Connection, response: Response, image: string): FetchError {
    void response.body?.cancel();
    const remaining = response.headers.get('ratelimit-remaining');
    const limit = response.headers.get('ratelimit-limit');
    const detail = limit ? ` (ratelimit-limit ${limit}${remaining ? `, remaining ${remaining}` : ''})` : '';
    return mine(
      'rate-limit',
      `image ${image}: registry ${conn.registry} answered HTTP 429 Too Many Requests${detail}`,
      'wait and build again, or log in for a higher limit; digests capi-render.lock records are not asked for again',
    );
  }

  async function resolveImage(image: ImageLocation & { tag: string }): Promise<ResolvedImage> {
    const name = `${image.registry}/${image.repository}:${image.tag}`;
    checkLocation(image, name);
    if (!TAG.test(image.tag)) throw mine('image', `image ${name}: ${JSON.stringify(image.tag)} is not a valid tag`);
    const conn = await connect(image.registry, name);
    // One GET by tag: the digest pinned is that of the bytes read (a Docker-Content-Digest that
    // disagrees is refused), never a header taken on trust; an index's platforms come with it.
    return guarded(conn, name, 'pull', async () => {
      const manifest = await getManifest(conn, image.repository, image.tag, name);
      return {
        digest: manifest.digest,
        mediaType: manifest.mediaType,
        platforms: INDEX_TYPES.has(manifest.mediaType) ? platformsOf(manifest.json) : [],
      };
    });
  }

  async function copyImage(
    from: ImageLocation & { digest: string },
    to: ImageLocation & { tag?: string },
  ): Promise<string> {
    const source = `${from.registry}/${from.repository}@${from.digest}`;
    const target =
      to.tag === undefined
        ? `${to.registry}/${to.repository}@${from.digest}`
        : `${to.registry}/${to.repository}:${to.tag}`;
    checkLocation(from, source);
    checkLocation(to, target);
    if (!isOciDigest(from.digest))
      throw mine('image', `image ${source}: ${JSON.stringify(from.digest)} is not a sha256 or sha512 digest`);
    if (to.tag !== undefined && !TAG.test(to.tag))
      throw mine('image', `image ${target}: ${JSON.stringify(to.tag)} is not a valid tag`);
    const src = await connect(from.registry, source);
    const dst = await connect(to.registry, target);
    const sameRegistry = src.key === dst.key;

    // 1. Every manifest, children before the index that lists them, and every blob they name.
    const manifests: FetchedImageManifest[] = [];
    const blobs = new Map<string, Descriptor>();
    const seen = new Set<string>();
    const walk = async (digest: string, depth: number): Promise<void> => {
      if (seen.has(digest)) return;
      seen.add(digest);
      const manifest = await guarded(src, source, 'pull', () => getManifest(src, from.repository, digest, source));
      if (INDEX_TYPES.has(manifest.mediaType)) {
        if (depth >= MAX_INDEX_DEPTH)
          throw mine('source-unsupported', `image ${source}: indexes nest deeper than ${MAX_INDEX_DEPTH} levels`);
        const children = descriptors(manifest.json.manifests, `image ${source}: index ${digest}`, mine);
        await forEachLimit(children, MANIFEST_CONCURRENCY, (child) => walk(child.digest, depth + 1));
      } else {
        const what = `image ${source}: manifest ${digest}`;
        const config =
          manifest.json.config === undefined ? [] : descriptors([manifest.json.config], `${what} config`, mine);
        for (const blob of [...config, ...descriptors(manifest.json.layers ?? [], what, mine)]) {
          const foreign = FOREIGN_LAYER.test(blob.mediaType) && Array.isArray(blob.urls) && blob.urls.length > 0;
          if (!foreign && !blobs.has(blob.digest)) blobs.set(blob.digest, blob);
        }
      }
      manifests.push(manifest);
    };
    await walk(from.digest, 0);

    // 2. The blobs: present, mounted, or uploaded.
    const list = [...blobs.values()];
    const progress: CopyProgress = {
      image: source,
      copiedBytes: 0,
      totalBytes: list.reduce((n, b) => n + b.size, 0),
      blobsDone: 0,
      blobsTotal: list.length,
    };
    const report = () => {
      try {
        options.onProgress?.({ ...progress });
      } catch {
        // A broken listener must not break a copy.
      }
    };
    report();
    await forEachLimit(list, BLOB_CONCURRENCY, async (blob) => {
      await copyBlob(blob);
      progress.blobsDone++;
      progress.copiedBytes += blob.size;
      report();
    });

    async function copyBlob(blob: Descriptor): Promise<void> {
      if (await guarded(dst, target, 'push', () => dst.client.hasBlob(to.repository, blob.digest))) return;
      let session: URL | undefined;
      if (sameRegistry && from.repository !== to.repository) {
        const mounted = await mount(blob.digest);
        if (mounted === true) return;
        session = mounted;
      }
      const bytes = await guarded(src, source, 'pull', () =>
        src.client.getBlob(from.repository, blob.digest, blob.size, { limit: MIRRORED_BLOB_LIMIT }),
      );
      await guarded(dst, target, 'push', async () => {
        session ??= await startUpload();
        session.searchParams.set('digest', blob.digest);
        const done = await dst.http.send({
          method: 'PUT',
          target: session,
          scope: pushScope(to.repository),
          headers: { 'content-type': 'application/octet-stream' },
          body: bytes,
        });
        if (done.status !== 201 && done.status !== 204)
          throw await dst.http.unexpected(done, `uploading blob ${blob.digest} to ${to.repository}`);
        await done.body?.cancel();
      });
    }

    /** POST ?mount=: true when mounted (201); an upload session when the registry answered 202; undefined when refused (then upload). */
    async function mount(digest: string): Promise<true | URL | undefined> {
      const query = new URLSearchParams({ mount: digest, from: from.repository });
      let response: Response;
      try {
        response = await dst.http.send({
          method: 'POST',
          target: `/v2/${to.repository}/blobs/uploads/?${query.toString()}`,
          scope: pushScope(to.repository),
        });
      } catch (e) {
        // Without pull on the source repository a registry may refuse the mount outright: upload instead.
        if (e instanceof RenderError && e.code === 'auth') return undefined;
        throw translate(e, target, dst, 'push');
      }
      await response.body?.cancel();
      if (response.status === 201) return true;
      const location = response.headers.get('location');
      if (response.status === 202 && location) return new URL(location, dst.http.baseUrl);
      throw translate(
        await dst.http.unexpected(response, `mounting blob ${digest} into ${to.repository}`),
        target,
        dst,
        'push',
      );
    }

    async function startUpload(): Promise<URL> {
      const start = await dst.http.send({
        method: 'POST',
        target: `/v2/${to.repository}/blobs/uploads/`,
        scope: pushScope(to.repository),
      });
      await start.body?.cancel();
      const location = start.headers.get('location');
      if (start.status !== 202 || !location)
        throw await dst.http.unexpected(start, `starting an upload to ${to.repository}`);
      return new URL(location, dst.http.baseUrl);
    }

    // 3. The manifests, children first by digest, the top one under the tag.
    let written = '';
    for (const manifest of manifests) {
      const top = manifest.digest === from.digest;
      const stored = await guarded(dst, target, 'push', () =>
        dst.client.pushManifest(
          to.repository,
          top && to.tag !== undefined ? to.tag : manifest.digest,
          manifest.bytes,
          manifest.mediaType,
        ),
      );
      if (top) written = stored;
    }
    if (written !== from.digest) {
      throw mine(
        'digest-mismatch',
        `image ${target}: the copy of ${source} was stored as ${written || 'nothing'}`,
        'the target registry changed the manifest; mirror into a registry that stores manifests byte for byte',
      );
    }
    return written;
  }

  async function putManifest(
    image: ImageLocation & { reference: string },
    bytes: Uint8Array,
    mediaType: string,
  ): Promise<string> {
    const name = isOciDigest(image.reference)
      ? `${image.registry}/${image.repository}@${image.reference}`
      : `${image.registry}/${image.repository}:${image.reference}`;
    checkLocation(image, name);
    if (!isOciDigest(image.reference) && !TAG.test(image.reference))
      throw mine('image', `image ${name}: ${JSON.stringify(image.reference)} is not a valid tag or digest`);
    const conn = await connect(image.registry, name);
    return guarded(conn, name, 'push', () =>
      conn.client.pushManifest(image.repository, image.reference, bytes, mediaType),
    );
  }

  async function readManifest(image: ImageLocation & { reference: string }): Promise<ImageManifest | undefined> {
    const name = isOciDigest(image.reference)
      ? `${image.registry}/${image.repository}@${image.reference}`
      : `${image.registry}/${image.repository}:${image.reference}`;
    checkLocation(image, name);
    if (!isOciDigest(image.reference) && !TAG.test(image.reference))
      throw mine('image', `image ${name}: ${JSON.stringify(image.reference)} is not a valid tag or digest`);
    const conn = await connect(image.registry, name);
    return guarded(conn, name, 'pull', () => getManifest(conn, image.repository, image.reference, name, 'undefined'));
  }

  async function listReferrers(
    image: ImageLocation & { digest: string },
    options: { artifactType?: string } = {},
  ): Promise<ImageReferrers> {
    const name = `${image.registry}/${image.repository}@${image.digest}`;
    checkLocation(image, name);
    if (!isOciDigest(image.digest))
      throw mine('image', `image ${name}: ${JSON.stringify(image.digest)} is not a sha256 or sha512 digest`);
    const fallbackTag = image.digest.replace(':', '-');
    const conn = await connect(image.registry, name);
    const wanted = (d: ReferrerDescriptor) =>
      options.artifactType === undefined || d.artifactType === options.artifactType;
    return guarded(conn, name, 'pull', async () => {
      const manifests: ReferrerDescriptor[] = [];
      const query =
        options.artifactType === undefined
          ? ''
          : `?${new URLSearchParams({ artifactType: options.artifactType }).toString()}`;
      let target: string | URL = `/v2/${image.repository}/referrers/${image.digest}${query}`;
      for (let page = 0; page < MAX_REFERRER_PAGES; page++) {
        const response = await conn.http.send({
          method: 'GET',
          target,
          scope: pullScope(image.repository),
          headers: { accept: MEDIA_TYPE_OCI_INDEX },
        });
        if (NO_REFERRERS_API.has(response.status) && page === 0) {
          // distribution-spec: a registry with the referrers API never answers 404 here, so this one has none
          // (registries that predate the API also answer 400, 405 or 501 to the unknown route).
          await response.body?.cancel();
          const index = await getManifest(conn, image.repository, fallbackTag, name, 'undefined');
          if (!index) return { source: 'none', fallbackTag, manifests: [] };
          if (!INDEX_TYPES.has(index.mediaType))
            throw mine(
              'fetch',
              `image ${name}: the referrers fallback tag ${fallbackTag} on registry ${conn.registry} is a ${index.mediaType}, not an index`,
            );
          return {
            source: 'fallback-tag',
            fallbackTag,
            manifests: referrerDescriptors(index.json, `image ${name}: referrers fallback tag ${fallbackTag}`).filter(
              wanted,
            ),
          };
        }
        if (response.status === 429) throw rateLimited(conn, response, name);
        if (response.status !== 200)
          throw translate(
            await conn.http.unexpected(response, `GET /v2/${image.repository}/referrers/${image.digest}`),
            name,
            conn,
            'pull',
          );
        // A referrers list is an image index: the manifest limit applies.
        const bytes = await readBody(
          response,
          `the referrers list of ${image.digest} on registry ${conn.registry}`,
          MANIFEST_LIMIT,
        );
        let json: unknown;
        try {
          json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
        } catch {
          throw mine('fetch', `image ${name}: the referrers list on registry ${conn.registry} is not JSON`);
        }
        if (!isRecord(json))
          throw mine('fetch', `image ${name}: the referrers list on registry ${conn.registry} is not a JSON object`);
        manifests.push(
          ...referrerDescriptors(json, `image ${name}: the referrers list on registry ${conn.registry}`).filter(wanted),
        );
        const next = nextPage(response.headers.get('link'), new URL(target, conn.http.baseUrl));
        // A Link to another origin is not followed: any credentials belong to this registry.
        if (next === undefined || next.origin !== conn.http.baseUrl.origin) break;
        target = next;
      }
      return { source: 'api', fallbackTag, manifests };
    });
  }

  async function readBlob(
    image: ImageLocation & { digest: string; size?: number },
    options: { maxBytes?: number } = {},
  ): Promise<Uint8Array> {
    const name = `${image.registry}/${image.repository}@${image.digest}`;
    checkLocation(image, name);
    if (!isOciDigest(image.digest))
      throw mine('image', `image ${name}: ${JSON.stringify(image.digest)} is not a sha256 or sha512 digest`);
    // Signature payloads and Sigstore bundles are a few kilobytes; larger blobs are not read for them.
    const limit = signatureLimit(options.maxBytes);
    const conn = await connect(image.registry, name);
    return guarded(conn, name, 'pull', () =>
      conn.client.getBlob(image.repository, image.digest, image.size, { limit }),
    );
  }

  async function readLayer(image: ImageLocation & { digest: string; size: number }): Promise<Uint8Array> {
    const name = `${image.registry}/${image.repository}@${image.digest}`;
    checkLocation(image, name);
    if (!isOciDigest(image.digest))
      throw mine('image', `image ${name}: ${JSON.stringify(image.digest)} is not a sha256 or sha512 digest`);
    const conn = await connect(image.registry, name);
    return guarded(conn, name, 'pull', () =>
      conn.client.getBlob(image.repository, image.digest, image.size, { limit: MIRRORED_BLOB_LIMIT }),
    );
  }

  async function uploadBlob(image: ImageLocation, bytes: Uint8Array): Promise<string> {
    const name = `${image.registry}/${image.repository}`;
    checkLocation(image, name);
    const conn = await connect(image.registry, name);
    return guarded(conn, name, 'push', () => conn.client.pushBlob(image.repository, bytes));
  }

  return {
    resolve: resolveImage,
    copy: copyImage,
    pushManifest: putManifest,
    requestCount(host) {
      const key = registryKey(host);
      const urlHost = key === DOCKER_HUB ? DOCKER_HUB_API_HOST : host.toLowerCase();
      return counts.get(urlHost) ?? counts.get(urlHost.replace(/:(?:443|80)$/, '')) ?? 0;
    },
    manifest: readManifest,
    referrers: listReferrers,
    blob: readBlob,
    layer: readLayer,
    pushBlob: uploadBlob,
  };

  function checkLocation(location: ImageLocation, name: string): void {
    if (!REGISTRY.test(location.registry))
      throw mine('image', `image ${name}: registry ${JSON.stringify(location.registry)} is not a host or host:port`);
    if (!REPOSITORY.test(location.repository))
      throw mine('image', `image ${name}: ${JSON.stringify(location.repository)} is not a valid repository path`);
  }
}
