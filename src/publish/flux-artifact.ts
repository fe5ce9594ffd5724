/**
 * A rendered environment as an OCI artifact for Flux or Argo CD (`publish --for flux|argocd`).
 *
 * Design notes: docs/internals.md "publish/flux-artifact.ts".
 */
import { gzipSync } from 'node:zlib';
import { computeOciDigest } from '../source/oci/oci-digest.js';
import { MEDIA_TYPE_OCI_MANIFEST } from '../source/oci/oci-media-types.js';
import { deterministicTar, type TarFile } from './deterministic-tar.js';

/** Flux's config media type (fluxcd/pkg oci `CanonicalConfigMediaType`). */
export const FLUX_CONFIG_MEDIA_TYPE = 'application/vnd.cncf.flux.config.v1+json';
/** Flux's content layer media type (`CanonicalContentMediaType`). */
export const FLUX_CONTENT_MEDIA_TYPE = 'application/vnd.cncf.flux.content.v1.tar+gzip';

/** The OCI image config type, used for the Argo CD artifact. */
export const OCI_IMAGE_CONFIG_MEDIA_TYPE = 'application/vnd.oci.image.config.v1+json';
/** The OCI gzip layer type: the first of the layer types Argo CD's repo-server accepts by default. */
export const OCI_LAYER_TAR_GZIP_MEDIA_TYPE = 'application/vnd.oci.image.layer.v1.tar+gzip';

/** Which controller an artifact is written for (`publish --for`). */
export type ArtifactTarget = 'flux' | 'argocd';
export const ARTIFACT_TARGETS: readonly ArtifactTarget[] = ['flux', 'argocd'];

/** The config and layer media types each controller reads. */
export const ARTIFACT_MEDIA_TYPES: Readonly<Record<ArtifactTarget, { config: string; layer: string }>> = {
  flux: { config: FLUX_CONFIG_MEDIA_TYPE, layer: FLUX_CONTENT_MEDIA_TYPE },
  argocd: { config: OCI_IMAGE_CONFIG_MEDIA_TYPE, layer: OCI_LAYER_TAR_GZIP_MEDIA_TYPE },
};

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

/** The blobs and manifest of an artifact (Flux's or Argo CD's), ready to push. */
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

/** Packs the Flux artifact. Pure. */
export function packFluxArtifact(input: FluxArtifactInput): FluxArtifact {
  return packArtifact(input, 'flux');
}

/** Packs the artifact for `target`: only the config and layer media types differ. Pure. */
export function packArtifact(input: FluxArtifactInput, target: ArtifactTarget): FluxArtifact {
  const types = ARTIFACT_MEDIA_TYPES[target];
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
    config: { mediaType: types.config, size: config.length, digest: computeOciDigest(config) },
    layers: [{ mediaType: types.layer, size: layer.length, digest: layerDigest }],
    // Go marshals a map with sorted keys.
    annotations: Object.fromEntries(Object.entries(annotations).sort(([a], [b]) => (a < b ? -1 : 1))),
  });
  return { layer, layerDigest, diffId, config, manifest, manifestDigest: computeOciDigest(manifest), annotations };
}

function jsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}
