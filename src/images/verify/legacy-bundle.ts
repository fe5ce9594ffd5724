/**
 * A legacy cosign signature (one layer of the `.sig` manifest) as the Sigstore bundle sigstore-js
 * verifies. sigstore-js has no cosign code, so the annotations are mapped to a **v0.1** bundle
 * (`application/vnd.dev.sigstore.bundle+json;version=0.1`, the version whose log entries carry an
 * inclusion promise — the Rekor SET — rather than a Merkle proof, which is what the annotation
 * holds), serialised as bundle JSON and read back with @sigstore/bundle's `bundleFromJSON`, which
 * validates it like any bundle.
 *
 * Design notes: docs/internals.md "images/verify/legacy-bundle.ts".
 */
import { createHash } from 'node:crypto';
import { bundleFromJSON, BUNDLE_V01_MEDIA_TYPE, type Bundle } from '@sigstore/bundle';
import { pem } from '@sigstore/core';
import {
  ANNOTATION_CERTIFICATE,
  ANNOTATION_CHAIN,
  ANNOTATION_REKOR_BUNDLE,
  ANNOTATION_RFC3161_TIMESTAMP,
  ANNOTATION_SIGNATURE,
  type LegacyCandidate,
} from './find-signatures.js';

/** Why a legacy signature cannot be turned into a bundle: its annotations are missing or unreadable. */
export class UnreadableSignature extends Error {}

/** How the verifying key is given: the leaf certificate of the annotations, or a public key found by hint. */
export type LegacyKeyMaterial =
  { kind: 'certificate' } | { kind: 'public-key'; hint: string; digestAlgorithm: 'SHA2_256' | 'SHA2_512' };

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Whether the signature carries a certificate (keyless) rather than being made with a key. */
export function hasCertificate(candidate: LegacyCandidate): boolean {
  return (candidate.annotations[ANNOTATION_CERTIFICATE] ?? '').includes('-----BEGIN CERTIFICATE-----');
}

/** The v0.1 bundle for one legacy signature; throws {@link UnreadableSignature} when an annotation cannot be read. */
export function legacyBundle(candidate: LegacyCandidate, key: LegacyKeyMaterial): Bundle {
  const a = candidate.annotations;
  const signature = (a[ANNOTATION_SIGNATURE] ?? '').trim();
  if (signature === '' || !BASE64.test(signature))
    throw new UnreadableSignature(`the layer has no base64 ${ANNOTATION_SIGNATURE} annotation`);
  const algorithm = key.kind === 'public-key' ? key.digestAlgorithm : 'SHA2_256';
  const payloadDigest = createHash(algorithm === 'SHA2_512' ? 'sha512' : 'sha256')
    .update(candidate.payload)
    .digest('base64');

  let verificationMaterial: Record<string, unknown>;
  if (key.kind === 'certificate') {
    const leaf = certificatesIn(a[ANNOTATION_CERTIFICATE] ?? '', ANNOTATION_CERTIFICATE);
    if (leaf.length === 0) throw new UnreadableSignature(`the layer has no ${ANNOTATION_CERTIFICATE} annotation`);
    const chain = a[ANNOTATION_CHAIN] === undefined ? [] : certificatesIn(a[ANNOTATION_CHAIN], ANNOTATION_CHAIN);
    verificationMaterial = {
      x509CertificateChain: { certificates: [leaf[0]!, ...chain].map((der) => ({ rawBytes: der.toString('base64') })) },
      tlogEntries: a[ANNOTATION_REKOR_BUNDLE] === undefined ? [] : [tlogEntry(a[ANNOTATION_REKOR_BUNDLE])],
      timestampVerificationData: {
        rfc3161Timestamps:
          a[ANNOTATION_RFC3161_TIMESTAMP] === undefined ? [] : [rfc3161(a[ANNOTATION_RFC3161_TIMESTAMP])],
      },
    };
  } else {
    // Key rules ignore the log and timestamps (as Flux does for keys), so none are carried over.
    verificationMaterial = {
      publicKey: { hint: key.hint },
      tlogEntries: [],
      timestampVerificationData: { rfc3161Timestamps: [] },
    };
  }
  const serialized = {
    mediaType: BUNDLE_V01_MEDIA_TYPE,
    verificationMaterial,
    messageSignature: { messageDigest: { algorithm, digest: payloadDigest }, signature },
  };
  try {
    return bundleFromJSON(serialized);
  } catch (cause) {
    throw new UnreadableSignature(`its annotations do not make a valid Sigstore bundle (${(cause as Error).message})`);
  }
}

/** The DER of every PEM certificate block in an annotation. */
function certificatesIn(text: string, annotation: string): Buffer[] {
  const blocks = text.match(PEM_BLOCK) ?? [];
  return blocks.map((block) => {
    try {
      return pem.toDER(block);
    } catch {
      throw new UnreadableSignature(`the ${annotation} annotation holds a PEM block that is not a certificate`);
    }
  });
}

/** The Rekor bundle annotation as a serialized bundle tlog entry (base64 bytes, string int64s). */
function tlogEntry(annotation: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(annotation);
  } catch {
    throw new UnreadableSignature(`the ${ANNOTATION_REKOR_BUNDLE} annotation is not JSON`);
  }
  const root = record(parsed);
  const payload = record(root?.Payload);
  const set = root?.SignedEntryTimestamp;
  const body = payload?.body;
  const integratedTime = payload?.integratedTime;
  const logIndex = payload?.logIndex;
  const logID = payload?.logID;
  if (
    typeof set !== 'string' ||
    !BASE64.test(set) ||
    typeof body !== 'string' ||
    !BASE64.test(body) ||
    !isInteger(integratedTime) ||
    !isInteger(logIndex) ||
    typeof logID !== 'string' ||
    !/^[0-9a-fA-F]+$/.test(logID)
  ) {
    throw new UnreadableSignature(
      `the ${ANNOTATION_REKOR_BUNDLE} annotation is not a Rekor bundle (SignedEntryTimestamp, Payload.body, integratedTime, logIndex, logID)`,
    );
  }
  let kind: unknown;
  let version: unknown;
  try {
    const entry = record(JSON.parse(Buffer.from(body, 'base64').toString('utf8')));
    kind = entry?.kind;
    version = entry?.apiVersion;
  } catch {
    // Left undefined: refused below.
  }
  if (typeof kind !== 'string' || typeof version !== 'string')
    throw new UnreadableSignature(
      `the ${ANNOTATION_REKOR_BUNDLE} annotation's body is not a Rekor entry (kind, apiVersion)`,
    );
  return {
    logIndex: String(logIndex),
    logId: { keyId: Buffer.from(logID, 'hex').toString('base64') },
    kindVersion: { kind, version },
    integratedTime: String(integratedTime),
    inclusionPromise: { signedEntryTimestamp: set },
    canonicalizedBody: body,
  };
}

function rfc3161(annotation: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(annotation);
  } catch {
    throw new UnreadableSignature(`the ${ANNOTATION_RFC3161_TIMESTAMP} annotation is not JSON`);
  }
  const token = record(parsed)?.SignedRFC3161Timestamp;
  if (typeof token !== 'string' || token === '' || !BASE64.test(token))
    throw new UnreadableSignature(
      `the ${ANNOTATION_RFC3161_TIMESTAMP} annotation has no base64 SignedRFC3161Timestamp`,
    );
  return { signedTimestamp: token };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function isInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}
