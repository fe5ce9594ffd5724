/**
 * `mirror --images REGISTRY/PREFIX`: copy every pinned image, by digest, into another registry for an
 * air-gapped site, and say which clusterctl `images:` override points the environments at it. An
 * image `registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0@sha256:…` lands at
 * `REGISTRY/PREFIX/cluster-api-controller:v1.12.0` with the same digest (the copy is byte for byte),
 * so the one override `all: {repository: REGISTRY/PREFIX}` — clusterctl replaces the part before the
 * image name — redirects every container and the pins still hold. Each image's signatures go with
 * it, where cosign keeps them (the `.sig` tag, and the referrers: Sigstore bundles, attestations),
 * so verify rules still pass where the site pulls from. Images are read where the output pulls
 * them from and named as the lock knows them (as released), so a folder written on the connected
 * side matches the site's lock whatever `images:` override the site adds.
 */
import { SpecError, UsageError, error } from '../errors.js';
import { parseImageLocation, type ImageRegistry } from './registry/image-registry.js';
import type { ImageLocation, ReferrerDescriptor } from './registry/registry-types.js';
import { legacySignatureTag } from './verify/find-signatures.js';

/** One pinned image: what the lock knows it by (`image`, as released), its digest, and where it is pulled from (`at`). */
export interface PinnedImage {
  image: string;
  digest: string;
  /** `repo:tag` the output pulls it from (after `images:` overrides); default `image`. */
  at?: string;
}

export interface ImageCopy {
  /** The lock's name of the image (as its provider releases it): `repo:tag`; the folder's name for it. */
  image: string;
  /** Where it is read from in a registry: where the output pulls it from. */
  at: string;
  digest: string;
  /** `REGISTRY/PREFIX/name:tag`. */
  target: string;
}

/**
 * Where each image goes under `prefix` (its name and tag where the output pulls it from); refuses
 * two images that would land on the same name and tag.
 */
export function planImageCopies(images: readonly PinnedImage[], prefix: string): ImageCopy[] {
  const root = prefix.replace(/\/+$/, '');
  if (!parseImageLocation(`${root}/x:y`))
    throw new UsageError(`--images ${prefix} is not a registry/path prefix (e.g. registry.internal.example.com/capi)`);
  const byTarget = new Map<string, ImageCopy>();
  const sorted = images
    .map((i) => ({ image: i.image, digest: i.digest, at: i.at ?? i.image }))
    .sort((a, b) => (a.image < b.image ? -1 : a.image > b.image ? 1 : a.at < b.at ? -1 : 1));
  for (const { image, digest, at } of sorted) {
    const location = parseImageLocation(at);
    if (!location) throw new SpecError(error('image', `cannot mirror ${at}: not a registry reference`));
    const name = location.repository.split('/').at(-1)!;
    const target = `${root}/${name}:${location.tag || 'latest'}`;
    const earlier = byTarget.get(target);
    if (earlier && earlier.digest === digest) continue;
    if (earlier) {
      throw new SpecError(
        error('image', `${earlier.image} and ${image} would both be mirrored to ${target}`, {
          hint: 'one images: override cannot tell them apart; mirror the environments that use each into a prefix of its own',
        }),
      );
    }
    byTarget.set(target, { image, at, digest, target });
  }
  return [...byTarget.values()];
}

/** What was copied of one image besides itself. */
export interface CopiedSignatures {
  /** cosign's `sha256-<hex>.sig` tag was there and was copied. */
  legacy: boolean;
  /** Referrers copied (signature bundles and attestations). */
  referrers: number;
}

/** Copies each image (index, manifests and blobs, by digest) and its signatures; returns what was copied. */
export async function copyImages(
  copies: readonly ImageCopy[],
  registry: ImageRegistry,
  onCopied: (c: ImageCopy, signatures: CopiedSignatures) => void = () => undefined,
): Promise<ImageCopy[]> {
  for (const c of copies) {
    const from = parseImageLocation(c.at)!;
    const to = parseImageLocation(c.target)!;
    const source = { registry: from.registry, repository: from.repository, digest: c.digest };
    const target = { registry: to.registry, repository: to.repository };
    const written = await registry.copy(source, { ...target, tag: to.tag });
    if (written !== c.digest)
      throw new SpecError(
        error('digest-mismatch', `mirroring ${c.at} wrote ${written} to ${c.target}, not the pinned ${c.digest}`),
      );
    onCopied(c, await copySignatures(registry, source, target));
  }
  return [...copies];
}

/**
 * The signatures of `from` copied to `to`: the legacy `.sig` tag under the same tag, and every
 * referrer by digest. Where the target does not list them (a registry without the referrers API,
 * such as distribution 2.8), its `sha256-<hex>` fallback index is written with them added, as cosign
 * does, so they are found the way they were found at the source.
 */
export async function copySignatures(
  registry: ImageRegistry,
  from: ImageLocation & { digest: string },
  to: ImageLocation,
): Promise<CopiedSignatures> {
  const tag = legacySignatureTag(from.digest);
  const legacy = await registry.manifest({ ...from, reference: tag });
  if (legacy) await registry.copy({ ...from, digest: legacy.digest }, { ...to, tag });
  const referrers = (await registry.referrers(from)).manifests;
  for (const referrer of referrers) await registry.copy({ ...from, digest: referrer.digest }, to);
  await listReferrersAt(registry, { ...to, digest: from.digest }, referrers);
  return { legacy: legacy !== undefined, referrers: referrers.length };
}

/**
 * Makes `referrers` (already pushed by digest) findable as referrers of `subject`: where the
 * registry does not list them itself (no referrers API), its `sha256-<hex>` fallback index is
 * written with them added, as cosign does.
 */
export async function listReferrersAt(
  registry: ImageRegistry,
  subject: ImageLocation & { digest: string },
  referrers: readonly ReferrerDescriptor[],
): Promise<void> {
  if (referrers.length === 0) return;
  const there = await registry.referrers(subject);
  const listed = new Set(there.manifests.map((d) => d.digest));
  const missing = referrers.filter((d) => !listed.has(d.digest));
  if (missing.length === 0) return;
  const index = {
    schemaVersion: 2,
    mediaType: OCI_INDEX,
    manifests: [...there.manifests, ...missing].map(descriptorOf),
  };
  await registry.pushManifest(
    { registry: subject.registry, repository: subject.repository, reference: there.fallbackTag },
    new TextEncoder().encode(JSON.stringify(index)),
    OCI_INDEX,
  );
}

const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';

function descriptorOf(d: ReferrerDescriptor): ReferrerDescriptor {
  return {
    mediaType: d.mediaType,
    digest: d.digest,
    size: d.size,
    ...(d.artifactType !== undefined ? { artifactType: d.artifactType } : {}),
    ...(d.annotations ? { annotations: d.annotations } : {}),
  };
}

/** The `images:` override (capi-render.yaml or an overlay) that points the output at the mirror. */
export function mirrorOverrideText(prefix: string): string {
  return `images:\n  all:\n    repository: ${prefix.replace(/\/+$/, '')}\n`;
}
