/**
 * Which layer of a provider artifact holds which file, by the layer annotation
 * `org.opencontainers.image.title`, with the cluster-api-operator's precedence
 * (internal/controller/oci_source.go GetMetadata / GetComponents):
 * - metadata: `{type}-{name}-{version}-metadata.yaml`, then `metadata.yaml`;
 * - components: `{type}-{name}-{version}-components.yaml`, then `{type}-components.yaml`, then
 *   `components.yaml`.
 * `type` is the operator's GetType() (`core`, `control-plane`, `runtimeextension`, …), `name` the
 * CR's name and `version` the provider's `spec.version` string exactly as written (`v1.12.0`).
 * As in the operator, an empty layer counts as absent (it checks `len(data) != 0`), so an empty
 * specific file falls through to the generic one.
 */
import { METADATA_FILE } from '../metadata.js';
import { ANNOTATION_TITLE } from './oci-media-types.js';
import type { OciDescriptor } from './oci-manifest.js';

export interface OciFileWanted {
  /** `metadata` for metadata.yaml; `components` for any other file name asked for. */
  role: 'metadata' | 'components';
  /** Layer titles in precedence order. */
  titles: string[];
}

/** The titles that can serve `fileName` for this provider, best first. */
export function ociFileCandidates(
  providerType: string,
  providerName: string,
  version: string,
  fileName: string,
): OciFileWanted {
  const prefix = `${providerType}-${providerName}-${version}`;
  if (fileName === METADATA_FILE) return { role: 'metadata', titles: [`${prefix}-metadata.yaml`, METADATA_FILE] };
  return {
    role: 'components',
    titles: [`${prefix}-components.yaml`, `${providerType}-components.yaml`, 'components.yaml'],
  };
}

/**
 * The layer for the first title in `titles` that a non-empty layer carries; the first such layer
 * in manifest order when a title repeats. Undefined when none does.
 */
export function selectOciLayer(
  layers: readonly OciDescriptor[],
  titles: readonly string[],
): { layer: OciDescriptor; title: string } | undefined {
  for (const title of titles) {
    const layer = layers.find((l) => l.size > 0 && titleOf(l) === title);
    if (layer) return { layer, title };
  }
  return undefined;
}

/** The title annotation of a layer, if any. */
export function titleOf(layer: OciDescriptor): string | undefined {
  return layer.annotations?.[ANNOTATION_TITLE];
}
