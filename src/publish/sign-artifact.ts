/**
 * Signs a Flux artifact in both places cosign keeps signatures, so Flux's
 * `OCIRepository.spec.verify` (provider cosign) accepts it on every version. The signatures are
 * made before the artifact is pushed ({@link prepareSignatures}: the digest is known, and a failed
 * signing pushes nothing) and attached after it ({@link attachSignatures}).
 *
 * Design notes: docs/internals.md "publish/sign-artifact.ts".
 */
import { SpecError, error } from '../errors.js';
import { signatureLimit } from '../source/http/body-limits.js';
import { MEDIA_TYPE_OCI_INDEX, MEDIA_TYPE_OCI_MANIFEST } from '../source/oci/oci-media-types.js';
import { computeOciDigest } from '../source/oci/oci-digest.js';
import {
  BUNDLE_V03_MEDIA_TYPE,
  ANNOTATION_BUNDLE_PREDICATE_TYPE,
  COSIGN_SIGN_PREDICATE_TYPE,
  EMPTY_JSON_BLOB,
  SIMPLE_SIGNING_MEDIA_TYPE,
  bundleReferrerManifest,
  cosignStatement,
  indexDescriptors,
  manifestLayers,
  referrerAnnotations,
  referrersIndex,
  referrersTag,
  signatureImage,
  signatureTag,
  simpleSigningPayload,
  type Descriptor,
} from './sign-formats.js';
import type { SignatureRegistry } from './sign-registry.js';

/** Makes the two signatures; key or keyless. */
export interface ArtifactSigner {
  readonly mode: 'key' | 'keyless';
  /** The annotations of a legacy signature layer holding `payload` (signature, and keyless the certificate and Rekor entry). */
  signPayload(payload: Uint8Array): Promise<Record<string, string>>;
  /** A Sigstore bundle (its JSON form) whose DSSE envelope wraps `statement`. */
  signStatement(statement: Uint8Array): Promise<unknown>;
  /** True when a legacy layer with these annotations over `payload` is already this signer's (key mode). */
  isOwnPayloadSignature?(payload: Uint8Array, annotations: Record<string, string>): boolean;
  /** True when `bundle` is this signer's bundle about `digest` (key mode). */
  isOwnBundle?(bundle: unknown, digest: string): boolean;
}

/** What was signed and where the signatures are. */
export interface SignedArtifact {
  mode: 'key' | 'keyless';
  /** The legacy signature image: its tag and manifest digest; `reused` when this signature was already there. */
  legacy: { tag: string; digest: string; reused: boolean };
  /** The bundle referrer: its manifest digest; `fallbackTag` when the registry has no referrers API. */
  bundle: { digest: string; artifactType: string; reused: boolean; fallbackTag?: string };
}

/** The artifact signed: where, its manifest digest and size. */
export interface SignTarget {
  /** `registry/repository`, the simple-signing payload's docker-reference. */
  repositoryName: string;
  digest: string;
  size: number;
}

/** The two signatures of an artifact, made before anything is pushed. */
export interface PreparedSignatures {
  target: SignTarget;
  mode: ArtifactSigner['mode'];
  /** The simple-signing payload and its layer annotations. */
  payload: Uint8Array;
  annotations: Record<string, string>;
  /** The Sigstore bundle's JSON bytes. */
  bundle: Uint8Array;
}

/**
 * Makes both signatures of `target` (the digest is known before the push), so a signing failure —
 * Fulcio or Rekor unreachable, a refused token — happens before the artifact reaches the registry.
 */
export async function prepareSignatures(target: SignTarget, signer: ArtifactSigner): Promise<PreparedSignatures> {
  const payload = simpleSigningPayload(target.repositoryName, target.digest);
  const annotations = await signer.signPayload(payload);
  const bundle = new TextEncoder().encode(JSON.stringify(await signer.signStatement(cosignStatement(target.digest))));
  return { target, mode: signer.mode, payload, annotations, bundle };
}

/**
 * Pushes prepared signatures beside the artifact (after it was pushed): the `.sig` image and the
 * bundle referrer, each skipped when `signer` recognises one of its own already there. `now`
 * stamps the referrer's created annotation.
 */
export async function attachSignatures(
  prepared: PreparedSignatures,
  signer: ArtifactSigner,
  registry: SignatureRegistry,
  now: () => Date = () => new Date(),
): Promise<SignedArtifact> {
  const legacy = await attachLegacy(prepared, signer, registry);
  const bundle = await attachBundle(prepared, signer, registry, now);
  return { mode: prepared.mode, legacy, bundle };
}

async function attachLegacy(
  { target, payload, annotations }: PreparedSignatures,
  signer: ArtifactSigner,
  registry: SignatureRegistry,
): Promise<SignedArtifact['legacy']> {
  const tag = signatureTag(target.digest);
  const payloadDigest = computeOciDigest(payload);
  const existing = await registry.find(tag);
  const layers = existing ? manifestLayers(existing.bytes) : [];
  if (layers === undefined) {
    throw new SpecError(
      error('publish', `${registry.repository}:${tag} exists but is not a cosign signature image`, {
        hint: "something else uses cosign's signature tag; remove it, then publish again",
      }),
    );
  }
  const own = layers.find(
    (l) =>
      l.mediaType === SIMPLE_SIGNING_MEDIA_TYPE &&
      l.digest === payloadDigest &&
      signer.isOwnPayloadSignature?.(payload, l.annotations ?? {}),
  );
  if (existing && own) return { tag, digest: existing.digest, reused: true };
  const image = signatureImage([
    ...layers,
    { mediaType: SIMPLE_SIGNING_MEDIA_TYPE, digest: payloadDigest, size: payload.length, annotations },
  ]);
  await registry.client.pushBlob(registry.repository, payload);
  await registry.client.pushBlob(registry.repository, image.config);
  const { digest } = await registry.put(tag, image.manifest, MEDIA_TYPE_OCI_MANIFEST);
  return { tag, digest, reused: false };
}

async function attachBundle(
  { target, bundle: bundleBytes }: PreparedSignatures,
  signer: ArtifactSigner,
  registry: SignatureRegistry,
  now: () => Date,
): Promise<SignedArtifact['bundle']> {
  const { descriptors, api } = await registry.referrers(target.digest);
  const fallbackTag = api ? undefined : referrersTag(target.digest);
  const candidates = descriptors.filter(
    (d) =>
      d.artifactType === BUNDLE_V03_MEDIA_TYPE &&
      d.annotations?.[ANNOTATION_BUNDLE_PREDICATE_TYPE] === COSIGN_SIGN_PREDICATE_TYPE,
  );
  if (signer.isOwnBundle) {
    for (const candidate of candidates) {
      const bundle = await readBundle(registry, candidate.digest);
      if (bundle !== undefined && signer.isOwnBundle(bundle, target.digest)) {
        return {
          digest: candidate.digest,
          artifactType: BUNDLE_V03_MEDIA_TYPE,
          reused: true,
          ...(fallbackTag ? { fallbackTag } : {}),
        };
      }
    }
  }
  const bundleDigest = await registry.client.pushBlob(registry.repository, bundleBytes);
  await registry.client.pushBlob(registry.repository, EMPTY_JSON_BLOB);
  // cosign stamps the signing time here (pkg/oci/remote/write.go), at second precision.
  const created = now()
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z');
  const subject: Descriptor = { mediaType: MEDIA_TYPE_OCI_MANIFEST, digest: target.digest, size: target.size };
  const manifest = bundleReferrerManifest(
    { mediaType: BUNDLE_V03_MEDIA_TYPE, digest: bundleDigest, size: bundleBytes.length },
    subject,
    created,
  );
  const digest = computeOciDigest(manifest);
  const { subjectAccepted } = await registry.put(digest, manifest, MEDIA_TYPE_OCI_MANIFEST);
  if (subjectAccepted) return { digest, artifactType: BUNDLE_V03_MEDIA_TYPE, reused: false };
  // The registry did not process the subject: list the referrer in the fallback index ourselves.
  const tag = referrersTag(target.digest);
  const entry: Descriptor = {
    mediaType: MEDIA_TYPE_OCI_MANIFEST,
    digest,
    size: manifest.length,
    artifactType: BUNDLE_V03_MEDIA_TYPE,
    annotations: referrerAnnotations(created),
  };
  // Read the index again just before writing it: it may have changed since the listing above.
  const stored = await registry.find(tag);
  const current = (stored && indexDescriptors(stored.bytes)) ?? [];
  await registry.put(tag, referrersIndex(current, entry), MEDIA_TYPE_OCI_INDEX);
  return { digest, artifactType: BUNDLE_V03_MEDIA_TYPE, reused: false, fallbackTag: tag };
}

/** The bundle JSON a referrer manifest holds, or undefined when it holds none. */
async function readBundle(registry: SignatureRegistry, digest: string): Promise<unknown> {
  const manifest = await registry.find(digest);
  const layer = manifest && manifestLayers(manifest.bytes)?.find((l) => l.mediaType === BUNDLE_V03_MEDIA_TYPE);
  if (!layer) return undefined;
  const bytes = await registry.client.getBlob(registry.repository, layer.digest, layer.size, {
    limit: signatureLimit(),
  });
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
