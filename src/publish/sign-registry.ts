/**
 * The registry operations signing needs beyond pushing an artifact: reading a tag that may not
 * exist yet (the `.sig` image, the fallback referrers index), PUTting a manifest and learning
 * whether the registry took its `subject` (the `OCI-Subject` header of distribution-spec 1.1), and
 * listing the referrers of a digest — the referrers API, or the fallback tag on registries without
 * it. It shares the OCI client's HTTP layer (one token cache, the same proxy-aware transport).
 */
import { FetchError, error } from '../errors.js';
import { createOciClient, type OciClient } from '../source/oci/oci-client.js';
import type { OciCredentials } from '../source/oci/oci-credentials.js';
import { MANIFEST_LIMIT } from '../source/http/body-limits.js';
import { readBody } from '../source/http/bounded-body.js';
import { computeOciDigest, isOciDigest, verifyOciDigest, verifyStatedDigest } from '../source/oci/oci-digest.js';
import { createOciHttp, type OciHttp } from '../source/oci/oci-http.js';
import { MEDIA_TYPE_OCI_INDEX, MEDIA_TYPE_OCI_MANIFEST } from '../source/oci/oci-media-types.js';
import { registryHostPort, type OciReference } from '../source/oci/oci-reference.js';
import { indexDescriptors, referrersTag, type Descriptor } from './sign-formats.js';

const TIMEOUT_MS = 30_000;

/** A manifest or index as the registry stores it. */
export interface StoredManifest {
  bytes: Uint8Array;
  digest: string;
  mediaType: string;
}

/** One repository of one registry. */
export interface SignatureRegistry {
  readonly client: OciClient;
  readonly repository: string;
  /** The manifest or index a tag or digest names; undefined when the registry has none. */
  find(reference: string): Promise<StoredManifest | undefined>;
  /** PUTs a manifest under a tag or its digest; `subjectAccepted` when the registry answered with `OCI-Subject`. */
  put(reference: string, bytes: Uint8Array, mediaType: string): Promise<{ digest: string; subjectAccepted: boolean }>;
  /** The referrers of `digest`: the registry's referrers API when it has one, else the fallback tag's index. */
  referrers(digest: string): Promise<{ descriptors: Descriptor[]; api: boolean }>;
}

export function createSignatureRegistry(
  ref: Pick<OciReference, 'registry' | 'plainHttp' | 'repository'>,
  credentials: OciCredentials | undefined,
  fetchImpl: typeof fetch = fetch,
): SignatureRegistry {
  const hostPort = registryHostPort(ref);
  const http: OciHttp = createOciHttp({
    registry: ref.registry,
    hostPort,
    plainHttp: ref.plainHttp,
    ...(credentials ? { credentials } : {}),
    fetchImpl,
    timeoutMs: TIMEOUT_MS,
  });
  const client = createOciClient({ registry: ref.registry, plainHttp: ref.plainHttp, http });
  const repository = ref.repository;
  const scope = `repository:${repository}:pull,push`;

  async function find(reference: string): Promise<StoredManifest | undefined> {
    const response = await http.send({
      method: 'GET',
      target: `/v2/${repository}/manifests/${reference}`,
      scope,
      headers: { accept: [MEDIA_TYPE_OCI_MANIFEST, MEDIA_TYPE_OCI_INDEX].join(', ') },
    });
    if (response.status === 404) {
      await response.body?.cancel();
      return undefined;
    }
    if (response.status !== 200) throw await http.unexpected(response, `fetching ${repository}:${reference}`);
    const what = `manifest ${repository}:${reference} from ${hostPort}`;
    const bytes = await readBody(response, what, MANIFEST_LIMIT);
    const announced = response.headers.get('docker-content-digest');
    if (isOciDigest(reference)) verifyOciDigest(bytes, reference, what);
    if (announced && isOciDigest(announced)) verifyStatedDigest(bytes, announced, what);
    const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
    return { bytes, digest: computeOciDigest(bytes), mediaType };
  }

  return {
    client,
    repository,
    find,
    async put(reference, bytes, mediaType) {
      const digest = computeOciDigest(bytes);
      const response = await http.send({
        method: 'PUT',
        target: `/v2/${repository}/manifests/${reference}`,
        scope,
        headers: { 'content-type': mediaType },
        body: bytes,
      });
      if (response.status !== 201) throw await http.unexpected(response, `pushing manifest ${repository}:${reference}`);
      await response.body?.cancel();
      const stored = response.headers.get('docker-content-digest');
      if (stored && isOciDigest(stored) && stored !== digest) {
        throw new FetchError(
          error(
            'digest-mismatch',
            `registry ${hostPort} stored manifest ${repository}:${reference} as ${stored}, expected ${digest}`,
          ),
        );
      }
      return { digest, subjectAccepted: response.headers.get('oci-subject') !== null };
    },
    async referrers(digest) {
      const response = await http.send({
        method: 'GET',
        target: `/v2/${repository}/referrers/${digest}`,
        scope,
        headers: { accept: MEDIA_TYPE_OCI_INDEX },
      });
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!.trim();
      if (response.status === 200 && type === MEDIA_TYPE_OCI_INDEX) {
        // A referrers list is an image index: the manifest limit applies.
        const descriptors = indexDescriptors(
          await readBody(response, `the referrers list of ${digest} in ${repository} on ${hostPort}`, MANIFEST_LIMIT),
        );
        if (descriptors) return { descriptors, api: true };
      } else {
        await response.body?.cancel();
      }
      // No referrers API (distribution-spec 1.1: a 404, or anything but an index): the tag schema.
      const fallback = await find(referrersTag(digest));
      return { descriptors: (fallback && indexDescriptors(fallback.bytes)) ?? [], api: false };
    },
  };
}
