/**
 * Container images for registry tests, built and pushed programmatically: random small layers
 * (gzip of random bytes, so every push is a new image with new digests), a config blob per platform,
 * and
 * - no `platforms`: one image manifest (linux/amd64 in its config);
 * - `platforms`: an index with one manifest per platform plus, as BuildKit writes it by default, one
 *   attestation manifest (platform unknown/unknown, `vnd.docker.reference.type: attestation-manifest`,
 *   an in-toto layer) for the first platform;
 * - `docker: true`: the same in Docker's media types (schema 2 manifest, manifest list; no
 *   attestation, which BuildKit writes only in OCI form).
 * Pushes go through the project's OCI client (plain HTTP by default, as the test registries speak).
 */
import { randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { createOciClient } from '../../src/source/oci/oci-client.js';
import type { OciCredentials } from '../../src/source/oci/oci-credentials.js';
import { computeOciDigest } from '../../src/source/oci/oci-digest.js';
import {
  MEDIA_TYPE_DOCKER_MANIFEST,
  MEDIA_TYPE_DOCKER_MANIFEST_LIST,
  MEDIA_TYPE_OCI_INDEX,
  MEDIA_TYPE_OCI_MANIFEST,
} from '../../src/source/oci/oci-media-types.js';

export const MEDIA_TYPE_OCI_CONFIG = 'application/vnd.oci.image.config.v1+json';
export const MEDIA_TYPE_OCI_LAYER = 'application/vnd.oci.image.layer.v1.tar+gzip';
export const MEDIA_TYPE_DOCKER_CONFIG = 'application/vnd.docker.container.image.v1+json';
export const MEDIA_TYPE_DOCKER_LAYER = 'application/vnd.docker.image.rootfs.diff.tar.gzip';
export const MEDIA_TYPE_IN_TOTO = 'application/vnd.in-toto+json';

export interface TestImageOptions {
  /** `os/arch[/variant]` entries: push an index (manifest list) with one manifest each. Default: one manifest, no index. */
  platforms?: string[];
  /** Docker media types instead of OCI ones. */
  docker?: boolean;
  /** Layers per platform manifest. Default: 2. */
  layers?: number;
  /** Default: true (the test registries speak plain HTTP). */
  plainHttp?: boolean;
  credentials?: OciCredentials;
  fetch?: typeof fetch;
}

export interface PushedTestImage {
  /** What the tag points to: the index (list) digest, or the manifest digest without platforms. */
  digest: string;
  /** The index's entries in order (platform manifests, then the attestation manifest); `[]` without platforms. */
  childDigests: string[];
  /** The platform manifests only, by platform. */
  platformDigests: Record<string, string>;
  /** Every blob pushed (configs and layers of every manifest). */
  blobDigests: string[];
  mediaType: string;
}

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { os: string; architecture: string; variant?: string };
  annotations?: Record<string, string>;
}

const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

/** Builds and pushes an image to `registryHost` (`host:port`) under `repository:tag`. */
export async function pushTestImage(
  registryHost: string,
  repository: string,
  tag: string,
  options: TestImageOptions = {},
): Promise<PushedTestImage> {
  const client = createOciClient({
    registry: registryHost,
    plainHttp: options.plainHttp ?? true,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    ...(options.fetch ? { fetchImpl: options.fetch } : {}),
  });
  const docker = options.docker ?? false;
  const blobDigests: string[] = [];
  const pushBlob = async (mediaType: string, bytes: Uint8Array): Promise<Descriptor> => {
    const digest = await client.pushBlob(repository, bytes);
    blobDigests.push(digest);
    return { mediaType, digest, size: bytes.length };
  };
  const pushManifest = async (
    reference: string | undefined,
    manifest: Record<string, unknown>,
  ): Promise<Descriptor> => {
    const bytes = encode(manifest);
    const mediaType = manifest.mediaType as string;
    const digest = computeOciDigest(bytes);
    await client.pushManifest(repository, reference ?? digest, bytes, mediaType);
    return { mediaType, digest, size: bytes.length };
  };
  const platformImage = async (platform: string, reference?: string): Promise<Descriptor> => {
    const [os = 'linux', architecture = 'amd64', variant] = platform.split('/');
    const layers: Descriptor[] = [];
    const diffIds: string[] = [];
    for (let i = 0; i < (options.layers ?? 2); i++) {
      const raw = randomBytes(512 + i * 256);
      diffIds.push(computeOciDigest(raw));
      layers.push(await pushBlob(docker ? MEDIA_TYPE_DOCKER_LAYER : MEDIA_TYPE_OCI_LAYER, gzipSync(raw)));
    }
    const config = await pushBlob(
      docker ? MEDIA_TYPE_DOCKER_CONFIG : MEDIA_TYPE_OCI_CONFIG,
      encode({
        architecture,
        os,
        ...(variant ? { variant } : {}),
        config: { Entrypoint: ['/manager'] },
        rootfs: { type: 'layers', diff_ids: diffIds },
      }),
    );
    const manifest = await pushManifest(reference, {
      schemaVersion: 2,
      mediaType: docker ? MEDIA_TYPE_DOCKER_MANIFEST : MEDIA_TYPE_OCI_MANIFEST,
      config,
      layers,
    });
    return { ...manifest, platform: { os, architecture, ...(variant ? { variant } : {}) } };
  };

  if (!options.platforms || options.platforms.length === 0) {
    const single = await platformImage('linux/amd64', tag);
    return {
      digest: single.digest,
      childDigests: [],
      platformDigests: { 'linux/amd64': single.digest },
      blobDigests,
      mediaType: single.mediaType,
    };
  }
  const children: Descriptor[] = [];
  const platformDigests: Record<string, string> = {};
  for (const platform of options.platforms) {
    const child = await platformImage(platform);
    platformDigests[platform] = child.digest;
    children.push(child);
  }
  if (!docker) {
    // BuildKit's provenance attestation (docs/attestations/attestation-storage.md).
    const subject = children[0]!;
    const statement = await pushBlob(
      MEDIA_TYPE_IN_TOTO,
      encode({
        _type: 'https://in-toto.io/Statement/v0.1',
        predicateType: 'https://slsa.dev/provenance/v0.2',
        subject: [{ name: '_', digest: { sha256: subject.digest.slice(7) } }],
        predicate: { nonce: randomBytes(8).toString('hex') },
      }),
    );
    const config = await pushBlob(
      MEDIA_TYPE_OCI_CONFIG,
      encode({
        architecture: 'unknown',
        os: 'unknown',
        config: {},
        rootfs: { type: 'layers', diff_ids: [statement.digest] },
      }),
    );
    const attestation = await pushManifest(undefined, {
      schemaVersion: 2,
      mediaType: MEDIA_TYPE_OCI_MANIFEST,
      config,
      layers: [{ ...statement, annotations: { 'in-toto.io/predicate-type': 'https://slsa.dev/provenance/v0.2' } }],
    });
    children.push({
      ...attestation,
      platform: { os: 'unknown', architecture: 'unknown' },
      annotations: {
        'vnd.docker.reference.digest': subject.digest,
        'vnd.docker.reference.type': 'attestation-manifest',
      },
    });
  }
  const index = await pushManifest(tag, {
    schemaVersion: 2,
    mediaType: docker ? MEDIA_TYPE_DOCKER_MANIFEST_LIST : MEDIA_TYPE_OCI_INDEX,
    manifests: children,
  });
  return {
    digest: index.digest,
    childDigests: children.map((c) => c.digest),
    platformDigests,
    blobDigests,
    mediaType: index.mediaType,
  };
}
