/**
 * A rendered environment as a Flux OCI artifact, in the shape `flux push artifact` gives it
 * (fluxcd/pkg oci/push.go, DELIVERY-REFERENCE §4.2–4.5) so source-controller's OCIRepository reads
 * it: an OCI image manifest with the Flux config media type, exactly one
 * `application/vnd.cncf.flux.content.v1.tar+gzip` layer holding the folder's contents at the
 * archive root, and the `org.opencontainers.image.source` / `.revision` annotations.
 *
 * Deterministic: the same files, source and revision give the same manifest digest on any machine.
 * The tar is deterministic-tar.ts; gzip carries no name and no time (Node's header has MTIME 0);
 * `created` — which `flux push` stamps with the current time, changing the digest on every push
 * (trap 7) — is written only when the caller passes one (e.g. the commit time). One caveat: the
 * compressed bytes come from the zlib Node bundles, so a Node release with another zlib build can
 * compress differently; the uncompressed tar digest (the config's diff_id) never changes.
 */
import { gzipSync } from 'node:zlib';
import { computeOciDigest } from '../source/oci/oci-digest.js';
import { MEDIA_TYPE_OCI_MANIFEST } from '../source/oci/oci-media-types.js';
import { deterministicTar, type TarFile } from './deterministic-tar.js';

/** Flux's config media type (fluxcd/pkg oci `CanonicalConfigMediaType`). */
export const FLUX_CONFIG_MEDIA_TYPE = 'application/vnd.cncf.flux.config.v1+json';
/** Flux's content layer media type (`CanonicalContentMediaType`). */
export const FLUX_CONTENT_MEDIA_TYPE = 'application/vnd.cncf.flux.content.v1.tar+gzip';

export const ANNOTATION_SOURCE = 'org.opencontainers.image.source';
export const ANNOTATION_REVISION = 'org.opencontainers.image.revision';
export const ANNOTATION_CREATED = 'org.opencontainers.image.created';

/** What goes into the artifact. */
export interface FluxArtifactInput {
  /** The folder's files, paths relative to it. */
  files: readonly TarFile[];
  /** URL of the source repository (`--source` of flux push). */
  source: string;
  /** `<branch>@sha1:<commit>` as Flux documents it (`--revision`). */
  revision: string;
  /** RFC 3339 time for `created`; omitted when undefined. */
  created?: string;
}

/** The blobs and manifest of an artifact, ready to push. */
export interface FluxArtifact {
  layer: Uint8Array;
  layerDigest: string;
  /** sha256 of the uncompressed tar (the config's rootfs diff_id). */
  diffId: string;
  config: Uint8Array;
  manifest: Uint8Array;
  manifestDigest: string;
  annotations: Record<string, string>;
}

/** Packs the artifact. Pure. */
export function packFluxArtifact(input: FluxArtifactInput): FluxArtifact {
  const tar = deterministicTar(input.files);
  const diffId = computeOciDigest(tar);
  // Fixed level and no header name/time, so the bytes depend on the input and Node's zlib alone.
  const layer = new Uint8Array(gzipSync(tar, { level: 9 }));
  const layerDigest = computeOciDigest(layer);
  // go-containerregistry's ConfigFile field order, as flux push writes it.
  const config = jsonBytes({
    architecture: '',
    ...(input.created !== undefined ? { created: input.created } : {}),
    history: [{ created: '0001-01-01T00:00:00Z' }],
    os: '',
    rootfs: { type: 'layers', diff_ids: [diffId] },
    config: {},
  });
  const annotations: Record<string, string> = {
    ...(input.created !== undefined ? { [ANNOTATION_CREATED]: input.created } : {}),
    [ANNOTATION_REVISION]: input.revision,
    [ANNOTATION_SOURCE]: input.source,
  };
  const manifest = jsonBytes({
    schemaVersion: 2,
    mediaType: MEDIA_TYPE_OCI_MANIFEST,
    config: { mediaType: FLUX_CONFIG_MEDIA_TYPE, size: config.length, digest: computeOciDigest(config) },
    layers: [{ mediaType: FLUX_CONTENT_MEDIA_TYPE, size: layer.length, digest: layerDigest }],
    // Go marshals a map with sorted keys.
    annotations: Object.fromEntries(Object.entries(annotations).sort(([a], [b]) => (a < b ? -1 : 1))),
  });
  return { layer, layerDigest, diffId, config, manifest, manifestDigest: computeOciDigest(manifest), annotations };
}

function jsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}
