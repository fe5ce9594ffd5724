/**
 * An image registry client whose code (image-registry.ts with the OCI client, token authentication
 * and the Docker credential chain under it) is imported on its first request. The render makes one
 * per registry policy whether or not an image is pinned or verified; a build that asks no registry
 * then never loads or compiles that code.
 */
import type { ImageRegistry, ImageRegistryOptions } from './registry-types.js';

/** createImageRegistry(options), created on the first request; nothing is sent until then either. */
export function createLazyImageRegistry(options: ImageRegistryOptions): ImageRegistry {
  let registry: Promise<ImageRegistry> | undefined;
  // Set once loaded, for the one method that answers synchronously.
  let created: ImageRegistry | undefined;
  const loaded = () =>
    (registry ??= import('./image-registry.js').then((m) => (created = m.createImageRegistry(options))));
  return {
    resolve: async (image) => (await loaded()).resolve(image),
    copy: async (from, to) => (await loaded()).copy(from, to),
    pushManifest: async (image, bytes, mediaType) => (await loaded()).pushManifest(image, bytes, mediaType),
    // No request was sent before the client was made.
    requestCount: (host) => created?.requestCount(host) ?? 0,
    manifest: async (image) => (await loaded()).manifest(image),
    referrers: async (image, options) => (await loaded()).referrers(image, options),
    blob: async (image, options) => (await loaded()).blob(image, options),
    layer: async (image) => (await loaded()).layer(image),
    pushBlob: async (image, bytes) => (await loaded()).pushBlob(image, bytes),
  };
}
