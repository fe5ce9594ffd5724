/**
 * Where cosign keeps an image's signatures, read in the order `cosign verify` (v3) reads them.
 *
 * Design notes: docs/internals.md "images/verify/find-signatures.ts".
 */
import type { ImageLocation, ImageRegistry, ReferrerDescriptor } from '../registry/image-registry.js';

/** The artifact and layer media types of a Sigstore bundle (cosign writes the first; it reads all). */
export const BUNDLE_MEDIA_TYPES: readonly string[] = [
  'application/vnd.dev.sigstore.bundle.v0.3+json',
  'application/vnd.dev.sigstore.bundle+json;version=0.3',
  'application/vnd.dev.sigstore.bundle+json;version=0.2',
  'application/vnd.dev.sigstore.bundle+json;version=0.1',
];
/** The annotation cosign puts on a bundle referrer naming the in-toto predicate inside. */
export const ANNOTATION_BUNDLE_PREDICATE_TYPE = 'dev.sigstore.bundle.predicateType';
/** The annotation naming what the bundle holds (`dsse-envelope`). */
export const ANNOTATION_BUNDLE_CONTENT = 'dev.sigstore.bundle.content';
/** The predicate of `cosign sign` (v3): an in-toto statement whose subject is the image, with an empty predicate. */
export const COSIGN_SIGN_PREDICATE_TYPE = 'https://sigstore.dev/cosign/sign/v1';
/** The layer type of a legacy signature: the simple-signing payload. */
export const SIMPLE_SIGNING_MEDIA_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';
/** Legacy layer annotations (cosign pkg/oci/static): the signature is `dev.cosignproject…`, the rest `dev.sigstore…`. */
export const ANNOTATION_SIGNATURE = 'dev.cosignproject.cosign/signature';
export const ANNOTATION_CERTIFICATE = 'dev.sigstore.cosign/certificate';
export const ANNOTATION_CHAIN = 'dev.sigstore.cosign/chain';
export const ANNOTATION_REKOR_BUNDLE = 'dev.sigstore.cosign/bundle';
export const ANNOTATION_RFC3161_TIMESTAMP = 'dev.sigstore.cosign/rfc3161timestamp';

/** More than this many candidates of one kind are not read (a registry flooding an image with referrers). */
const MAX_CANDIDATES = 32;
/** A bundle or a simple-signing payload is a few kilobytes. */
const MAX_SIGNATURE_BYTES = 1024 * 1024;

/** A Sigstore bundle attached to the image as a referrer. */
export interface BundleCandidate {
  format: 'bundle';
  /** Digest of the referrer manifest. */
  manifestDigest: string;
  /** The bundle's JSON, parsed (undefined when it is not JSON: reported as unreadable). */
  bundle: unknown;
}

/** One layer of the `.sig` manifest. */
export interface LegacyCandidate {
  format: 'legacy-tag';
  /** Digest of the `.sig` manifest. */
  manifestDigest: string;
  /** Index of the layer in that manifest. */
  layer: number;
  /** The simple-signing payload (the layer's blob), the bytes that were signed. */
  payload: Uint8Array;
  annotations: Record<string, string>;
}

/** Bundles found among the referrers, and a sentence on where they were looked for. */
export interface FoundBundles {
  candidates: BundleCandidate[];
  /** E.g. "the referrers of sha256:… (referrers API)". */
  looked: string;
}

export interface FoundLegacy {
  candidates: LegacyCandidate[];
  looked: string;
}

/** The Sigstore bundle signatures attached to `image` (by digest) as referrers. */
export async function findBundleSignatures(
  registry: ImageRegistry,
  image: ImageLocation & { digest: string },
): Promise<FoundBundles> {
  const referrers = await registry.referrers(image);
  const where =
    referrers.source === 'api'
      ? 'the referrers API'
      : referrers.source === 'fallback-tag'
        ? `the referrers fallback tag ${referrers.fallbackTag}, the registry having no referrers API`
        : `neither the referrers API nor the fallback tag ${referrers.fallbackTag} exists`;
  const signatures = referrers.manifests.filter(isSignatureBundle).slice(0, MAX_CANDIDATES);
  const candidates: BundleCandidate[] = [];
  for (const descriptor of signatures) {
    const manifest = await registry.manifest({ ...image, reference: descriptor.digest });
    // Listed but gone (deleted since): nothing to verify.
    if (!manifest) continue;
    const layers = Array.isArray(manifest.json.layers) ? (manifest.json.layers as unknown[]) : [];
    const layer = layers.find(
      (l): l is { mediaType: string; digest: string; size: number } =>
        typeof l === 'object' &&
        l !== null &&
        BUNDLE_MEDIA_TYPES.includes(String((l as Record<string, unknown>).mediaType)) &&
        typeof (l as Record<string, unknown>).digest === 'string',
    );
    if (!layer) continue;
    const bytes = await registry.blob(
      { ...image, digest: layer.digest, ...(typeof layer.size === 'number' ? { size: layer.size } : {}) },
      { maxBytes: MAX_SIGNATURE_BYTES },
    );
    let bundle: unknown;
    try {
      bundle = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    } catch {
      bundle = undefined;
    }
    candidates.push({ format: 'bundle', manifestDigest: manifest.digest, bundle });
  }
  const count = referrers.manifests.length;
  return {
    candidates,
    looked: `the referrers of ${image.digest} (${where}: ${count} referrer${count === 1 ? '' : 's'}, ${signatures.length} a signature bundle)`,
  };
}

/** The legacy signatures of `image`: the layers of its `sha256-<hex>.sig` manifest. */
export async function findLegacySignatures(
  registry: ImageRegistry,
  image: ImageLocation & { digest: string },
): Promise<FoundLegacy> {
  const tag = legacySignatureTag(image.digest);
  const manifest = await registry.manifest({ ...image, reference: tag });
  if (!manifest) return { candidates: [], looked: `the cosign signature tag ${tag} (absent)` };
  const layers = Array.isArray(manifest.json.layers) ? (manifest.json.layers as unknown[]) : [];
  const candidates: LegacyCandidate[] = [];
  for (let i = 0; i < layers.length && candidates.length < MAX_CANDIDATES; i++) {
    const layer = layers[i] as Record<string, unknown> | null;
    if (
      typeof layer !== 'object' ||
      layer === null ||
      layer.mediaType !== SIMPLE_SIGNING_MEDIA_TYPE ||
      typeof layer.digest !== 'string'
    )
      continue;
    const payload = await registry.blob(
      { ...image, digest: layer.digest, ...(typeof layer.size === 'number' ? { size: layer.size } : {}) },
      { maxBytes: MAX_SIGNATURE_BYTES },
    );
    const annotations: Record<string, string> = {};
    if (typeof layer.annotations === 'object' && layer.annotations !== null) {
      for (const [k, v] of Object.entries(layer.annotations as Record<string, unknown>))
        if (typeof v === 'string') annotations[k] = v;
    }
    candidates.push({ format: 'legacy-tag', manifestDigest: manifest.digest, layer: i, payload, annotations });
  }
  const n = candidates.length;
  return { candidates, looked: `the cosign signature tag ${tag} (${n} simple-signing layer${n === 1 ? '' : 's'})` };
}

/** `sha256:abc…` → `sha256-abc….sig`. */
export function legacySignatureTag(digest: string): string {
  return `${digest.replace(':', '-')}.sig`;
}

/** A referrer that is a Sigstore bundle and, when it says what it holds, cosign's signature predicate (not an attestation). */
function isSignatureBundle(descriptor: ReferrerDescriptor): boolean {
  if (descriptor.artifactType === undefined || !BUNDLE_MEDIA_TYPES.includes(descriptor.artifactType)) return false;
  const predicate = descriptor.annotations?.[ANNOTATION_BUNDLE_PREDICATE_TYPE];
  return predicate === undefined || predicate === COSIGN_SIGN_PREDICATE_TYPE;
}
