/**
 * One provider release as an OCI artifact in the layout of cluster-api's OCI proposal (PR #14033,
 * not merged; the layout is written down in source/oci/oci-capi-layout.ts): a plain OCI image
 * manifest, no artifactType, one `application/vnd.oci.image.layer.v1.tar+gzip` layer holding
 * `metadata.yaml` and the components file at the tar's root, the OCI image config (rootfs diff_id
 * of that layer; the proposal names no config), and the five required manifest annotations.
 *
 * Design notes: docs/internals.md "publish/provider-artifact.ts".
 */
import { gzipSync } from 'node:zlib';
import { SpecError, error } from '../errors.js';
import { CAPI_LAYER_MEDIA_TYPE, capiAnnotations, type CapiProviderIdentity } from '../source/oci/oci-capi-layout.js';
import { createOciClient } from '../source/oci/oci-client.js';
import type { OciCredentials } from '../source/oci/oci-credentials.js';
import { computeOciDigest } from '../source/oci/oci-digest.js';
import { MEDIA_TYPE_OCI_MANIFEST } from '../source/oci/oci-media-types.js';
import type { OciReference } from '../source/oci/oci-reference.js';
import { deterministicTar } from './deterministic-tar.js';

/** The OCI image config media type. */
const OCI_IMAGE_CONFIG = 'application/vnd.oci.image.config.v1+json';
/** Byte 9 of a gzip member: the OS that wrote it. */
const GZIP_OS_BYTE = 9;
const GZIP_OS_UNKNOWN = 255;

/** What goes into the artifact. */
export interface ProviderArtifactInput {
  identity: CapiProviderIdentity;
  /** `org.opencontainers.image.source`: the provider's source repository. */
  source: string;
  /** The release files, named as the release names them (`metadata.yaml`, `core-components.yaml`). */
  files: readonly { name: string; bytes: Uint8Array }[];
}

/** The blobs and manifest, ready to push. */
export interface ProviderArtifact {
  config: Uint8Array;
  layer: Uint8Array;
  manifest: Uint8Array;
  manifestDigest: string;
}

/** Packs the artifact. Pure. SpecError `publish` for a file name that is not a plain root name. */
export function packProviderArtifact(input: ProviderArtifactInput): ProviderArtifact {
  const bad = input.files.filter((f) => f.name === '' || f.name.includes('/') || f.name === '.' || f.name === '..');
  if (bad.length > 0) {
    throw new SpecError(
      error(
        'publish',
        `cannot publish ${bad.map((f) => JSON.stringify(f.name)).join(', ')}: the cluster-api layout holds files at the archive root`,
        { hint: 'name each file as the release names it, e.g. core-components.yaml' },
      ),
    );
  }
  const tar = deterministicTar(input.files.map((f) => ({ path: f.name, bytes: f.bytes })));
  const layer = new Uint8Array(gzipSync(tar, { level: 9 }));
  layer[GZIP_OS_BYTE] = GZIP_OS_UNKNOWN;
  const config = json({
    architecture: '',
    os: '',
    config: {},
    rootfs: { type: 'layers', diff_ids: [computeOciDigest(tar)] },
  });
  // Key order is the Go struct order of ocispec.Manifest and ocispec.Descriptor (oras-go marshals those).
  const manifest = json({
    schemaVersion: 2,
    mediaType: MEDIA_TYPE_OCI_MANIFEST,
    config: { mediaType: OCI_IMAGE_CONFIG, digest: computeOciDigest(config), size: config.length },
    layers: [{ mediaType: CAPI_LAYER_MEDIA_TYPE, digest: computeOciDigest(layer), size: layer.length }],
    annotations: capiAnnotations(input.identity, input.source),
  });
  return { config, layer, manifest, manifestDigest: computeOciDigest(manifest) };
}

/**
 * Pushes a packed artifact under `ref`'s tag: config and layer (each skipped when the registry has
 * it), then the manifest. Returns the manifest digest the registry confirmed.
 */
export async function pushProviderArtifact(
  ref: OciReference & { tag: string },
  artifact: ProviderArtifact,
  credentials: OciCredentials | undefined,
  fetchImpl?: typeof fetch,
): Promise<string> {
  const client = createOciClient({
    registry: ref.registry,
    plainHttp: ref.plainHttp,
    ...(credentials ? { credentials } : {}),
    ...(fetchImpl ? { fetchImpl } : {}),
  });
  await client.pushBlob(ref.repository, artifact.config);
  await client.pushBlob(ref.repository, artifact.layer);
  return client.pushManifest(ref.repository, ref.tag, artifact.manifest, MEDIA_TYPE_OCI_MANIFEST);
}

/** JSON as Go's encoding/json writes it: no spaces, and `<`, `>`, `&`, U+2028, U+2029 escaped. */
function json(value: unknown): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`),
  );
}
