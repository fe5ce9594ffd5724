/**
 * `mirror --images REGISTRY/PREFIX`: copy every pinned image, by digest, into another registry for an
 * air-gapped site, and say which clusterctl `images:` override points the environments at it. An
 * image `registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0@sha256:…` lands at
 * `REGISTRY/PREFIX/cluster-api-controller:v1.12.0` with the same digest (the copy is byte for byte),
 * so the one override `all: {repository: REGISTRY/PREFIX}` — clusterctl replaces the part before the
 * image name — redirects every container and the pins still hold.
 */
import { SpecError, UsageError, error } from '../errors.js';
import { parseImageLocation, type ImageRegistry } from './registry/image-registry.js';

export interface ImageCopy {
  /** The pinned source: `repo:tag`. */
  image: string;
  digest: string;
  /** `REGISTRY/PREFIX/name:tag`. */
  target: string;
}

/** Where each image goes under `prefix`; refuses two images that would land on the same name and tag. */
export function planImageCopies(images: readonly { image: string; digest: string }[], prefix: string): ImageCopy[] {
  const root = prefix.replace(/\/+$/, '');
  if (!parseImageLocation(`${root}/x:y`)) throw new UsageError(`--images ${prefix} is not a registry/path prefix (e.g. registry.internal.example.com/capi)`);
  const byTarget = new Map<string, ImageCopy>();
  for (const { image, digest } of [...images].sort((a, b) => (a.image < b.image ? -1 : 1))) {
    const location = parseImageLocation(image);
    if (!location) throw new SpecError(error('image', `cannot mirror ${image}: not a registry reference`));
    const name = location.repository.split('/').at(-1)!;
    const target = `${root}/${name}:${location.tag || 'latest'}`;
    const earlier = byTarget.get(target);
    if (earlier && earlier.digest !== digest) {
      throw new SpecError(
        error('image', `${earlier.image} and ${image} would both be mirrored to ${target}`, {
          hint: 'one images: override cannot tell them apart; mirror the environments that use each into a prefix of its own',
        }),
      );
    }
    byTarget.set(target, { image, digest, target });
  }
  return [...byTarget.values()];
}

/** Copies each image (index, manifests and blobs, by digest); returns what was copied. */
export async function copyImages(copies: readonly ImageCopy[], registry: ImageRegistry, onCopied: (c: ImageCopy) => void = () => undefined): Promise<ImageCopy[]> {
  for (const c of copies) {
    const from = parseImageLocation(c.image)!;
    const to = parseImageLocation(c.target)!;
    const written = await registry.copy({ registry: from.registry, repository: from.repository, digest: c.digest }, { registry: to.registry, repository: to.repository, tag: to.tag });
    if (written !== c.digest) throw new SpecError(error('digest-mismatch', `mirroring ${c.image} wrote ${written} to ${c.target}, not the pinned ${c.digest}`));
    onCopied(c);
  }
  return [...copies];
}

/** The `images:` override (capi-render.yaml or an overlay) that points the output at the mirror. */
export function mirrorOverrideText(prefix: string): string {
  return `images:\n  all:\n    repository: ${prefix.replace(/\/+$/, '')}\n`;
}
