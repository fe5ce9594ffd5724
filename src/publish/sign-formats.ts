/**
 * The two places cosign keeps a signature, as bytes (cosign
 * specs/SIGNATURE_SPEC.md and specs/BUNDLE_SPEC.md, pkg/oci/remote/write.go). Pure: no key, no
 * registry.
 *
 * Design notes: docs/internals.md "publish/sign-formats.ts".
 */
import { computeOciDigest } from '../source/oci/oci-digest.js';
import { EMPTY_JSON_CONFIG, MEDIA_TYPE_OCI_INDEX, MEDIA_TYPE_OCI_MANIFEST } from '../source/oci/oci-media-types.js';

export const SIMPLE_SIGNING_MEDIA_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';
export const SIMPLE_SIGNING_TYPE = 'cosign container image signature';
/** The one key that keeps cosign's old `dev.cosignproject` prefix (the rest use `dev.sigstore.cosign`). */
export const ANNOTATION_SIGNATURE = 'dev.cosignproject.cosign/signature';
export const ANNOTATION_CERTIFICATE = 'dev.sigstore.cosign/certificate';
export const ANNOTATION_CHAIN = 'dev.sigstore.cosign/chain';
export const ANNOTATION_BUNDLE = 'dev.sigstore.cosign/bundle';
/** The config media type of a `.sig` image (go-containerregistry's OCI config). */
export const OCI_IMAGE_CONFIG_MEDIA_TYPE = 'application/vnd.oci.image.config.v1+json';

export const BUNDLE_V03_MEDIA_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
export const COSIGN_SIGN_PREDICATE_TYPE = 'https://sigstore.dev/cosign/sign/v1';
export const IN_TOTO_STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const ANNOTATION_BUNDLE_CONTENT = 'dev.sigstore.bundle.content';
export const ANNOTATION_BUNDLE_PREDICATE_TYPE = 'dev.sigstore.bundle.predicateType';
export const ANNOTATION_CREATED = 'org.opencontainers.image.created';

/** The empty JSON blob `{}` (the referrer's config). */
export const EMPTY_JSON_BLOB = new TextEncoder().encode('{}');

/** A descriptor as manifests and indexes list them. */
export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
}

/** `sha256:<hex>` → `sha256-<hex>`: the fallback referrers tag. */
export function referrersTag(digest: string): string {
  return digest.replace(':', '-');
}

/** `sha256:<hex>` → `sha256-<hex>.sig`: cosign's signature tag. */
export function signatureTag(digest: string): string {
  return `${referrersTag(digest)}.sig`;
}

/**
 * The simple-signing payload, byte for byte what cosign's `payload.Cosign.MarshalJSON` writes
 * without annotations (Go's field order; `optional` null). `dockerReference` is the repository,
 * which verifiers ignore; the digest is the claim.
 */
export function simpleSigningPayload(dockerReference: string, digest: string): Uint8Array {
  return jsonBytes({
    critical: {
      identity: { 'docker-reference': dockerReference },
      image: { 'docker-manifest-digest': digest },
      type: SIMPLE_SIGNING_TYPE,
    },
    optional: null,
  });
}

/** The digest a simple-signing payload claims, or undefined when the bytes are not one. */
export function payloadDigest(bytes: Uint8Array): string | undefined {
  const parsed = parseJson(bytes);
  const critical = record(record(parsed)?.critical);
  const digest = record(critical?.image)?.['docker-manifest-digest'];
  return critical?.type === SIMPLE_SIGNING_TYPE && typeof digest === 'string' ? digest : undefined;
}

/**
 * A `.sig` image holding `layers` (the payload descriptors with their annotations, in order):
 * go-containerregistry's config for appended uncompressed layers (diff_ids = the layer digests),
 * and the OCI manifest. Annotations are written with sorted keys, as Go marshals a map.
 */
export function signatureImage(layers: readonly Descriptor[]): { config: Uint8Array; manifest: Uint8Array } {
  const config = jsonBytes({
    architecture: '',
    created: '0001-01-01T00:00:00Z',
    history: layers.map(() => ({ created: '0001-01-01T00:00:00Z' })),
    os: '',
    rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) },
    config: {},
  });
  const manifest = jsonBytes({
    schemaVersion: 2,
    mediaType: MEDIA_TYPE_OCI_MANIFEST,
    config: { mediaType: OCI_IMAGE_CONFIG_MEDIA_TYPE, size: config.length, digest: computeOciDigest(config) },
    layers: layers.map((l) => ({
      mediaType: l.mediaType,
      size: l.size,
      digest: l.digest,
      ...(l.annotations ? { annotations: sortedRecord(l.annotations) } : {}),
    })),
  });
  return { config, manifest };
}

/**
 * The in-toto statement `cosign sign` wraps in its DSSE envelope (cmd/cosign/cli/sign/sign.go
 * `signDigestBundle`): one subject with the digest, predicate type cosign/sign/v1, empty predicate.
 */
export function cosignStatement(digest: string): Uint8Array {
  const [algorithm, hex] = digest.split(':') as [string, string];
  return jsonBytes({
    _type: IN_TOTO_STATEMENT_TYPE,
    subject: [{ digest: { [algorithm]: hex } }],
    predicateType: COSIGN_SIGN_PREDICATE_TYPE,
    predicate: {},
  });
}

/** The subject digests an in-toto statement names (`algorithm:hex`), or undefined when it is not a statement. */
export function statementDigests(bytes: Uint8Array): { predicateType: unknown; digests: string[] } | undefined {
  const statement = record(parseJson(bytes));
  if (!statement || statement._type !== IN_TOTO_STATEMENT_TYPE || !Array.isArray(statement.subject)) return undefined;
  const digests = statement.subject.flatMap((s) =>
    Object.entries(record(record(s)?.digest) ?? {}).map(([a, h]) => `${a}:${String(h)}`),
  );
  return { predicateType: statement.predicateType, digests };
}

/** The referrer manifest carrying a bundle about `subject` (cosign `WriteAttestationNewBundleFormat`). */
export function bundleReferrerManifest(bundle: Descriptor, subject: Descriptor, created: string): Uint8Array {
  return jsonBytes({
    schemaVersion: 2,
    mediaType: MEDIA_TYPE_OCI_MANIFEST,
    artifactType: BUNDLE_V03_MEDIA_TYPE,
    config: { mediaType: EMPTY_JSON_CONFIG.mediaType, size: EMPTY_JSON_CONFIG.size, digest: EMPTY_JSON_CONFIG.digest },
    layers: [{ mediaType: BUNDLE_V03_MEDIA_TYPE, size: bundle.size, digest: bundle.digest }],
    subject: { mediaType: subject.mediaType, size: subject.size, digest: subject.digest },
    annotations: referrerAnnotations(created),
  });
}

/** The annotations of a bundle referrer (also listed beside it in a referrers index). */
export function referrerAnnotations(created: string): Record<string, string> {
  return {
    [ANNOTATION_BUNDLE_CONTENT]: 'dsse-envelope',
    [ANNOTATION_BUNDLE_PREDICATE_TYPE]: COSIGN_SIGN_PREDICATE_TYPE,
    [ANNOTATION_CREATED]: created,
  };
}

/** The descriptors of an OCI index's `manifests` (a referrers answer or the fallback tag), or undefined when the bytes are not an index. */
export function indexDescriptors(bytes: Uint8Array): Descriptor[] | undefined {
  const index = record(parseJson(bytes));
  if (!index || !Array.isArray(index.manifests)) return undefined;
  return index.manifests.flatMap((m): Descriptor[] => {
    const d = record(m);
    if (!d || typeof d.mediaType !== 'string' || typeof d.digest !== 'string' || typeof d.size !== 'number') return [];
    const descriptor: Descriptor = { mediaType: d.mediaType, digest: d.digest, size: d.size };
    if (typeof d.artifactType === 'string') descriptor.artifactType = d.artifactType;
    const annotations = record(d.annotations);
    if (annotations)
      descriptor.annotations = Object.fromEntries(
        Object.entries(annotations).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
    return [descriptor];
  });
}

/** The fallback referrers index with `added` appended (replacing an entry of the same digest). */
export function referrersIndex(existing: readonly Descriptor[], added: Descriptor): Uint8Array {
  const manifests = [...existing.filter((d) => d.digest !== added.digest), added];
  return jsonBytes({ schemaVersion: 2, mediaType: MEDIA_TYPE_OCI_INDEX, manifests });
}

/** The layers of a `.sig` manifest, or undefined when the bytes are not a manifest. */
export function manifestLayers(bytes: Uint8Array): Descriptor[] | undefined {
  const manifest = record(parseJson(bytes));
  if (!manifest || !Array.isArray(manifest.layers)) return undefined;
  return indexDescriptors(jsonBytes({ manifests: manifest.layers }));
}

/** A Sigstore bundle's transparency-log entry as JSON (base64 bytes, string integers). */
export interface SerializedTlogEntry {
  logIndex: string;
  logId: { keyId: string };
  integratedTime: string;
  inclusionPromise?: { signedEntryTimestamp: string };
  canonicalizedBody: string;
}

/**
 * cosign's `dev.sigstore.cosign/bundle` annotation from a Rekor v1 entry (pkg/cosign/bundle/rekor.go
 * `RekorBundle`): the SET in base64, and the payload the SET signs — body base64, integratedTime
 * and logIndex as numbers, logID in hex. Undefined without a SET.
 */
export function rekorBundleAnnotation(entry: SerializedTlogEntry): string | undefined {
  if (!entry.inclusionPromise?.signedEntryTimestamp) return undefined;
  return JSON.stringify({
    SignedEntryTimestamp: entry.inclusionPromise.signedEntryTimestamp,
    Payload: {
      body: entry.canonicalizedBody,
      integratedTime: Number(entry.integratedTime),
      logIndex: Number(entry.logIndex),
      logID: Buffer.from(entry.logId.keyId, 'base64').toString('hex'),
    },
  });
}

function sortedRecord(value: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function jsonBytes(value: unknown): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(value));
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
