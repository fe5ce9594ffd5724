/**
 * The signature evidence capi-render.lock keeps beside a verified image: the signature that
 * satisfied the rule, as found in the registry, so that every later build, `check` and `--frozen`
 * can verify it again offline — against the rule as it is now and the trusted root — instead of
 * trusting a record that only says "verified". A locked digest edited by hand then fails, because
 * the evidence signs another digest.
 *
 * Design notes: docs/internals.md "images/verify/verification-evidence.ts".
 */
import { json } from '@sigstore/core';
import {
  ANNOTATION_CERTIFICATE,
  ANNOTATION_CHAIN,
  ANNOTATION_REKOR_BUNDLE,
  ANNOTATION_RFC3161_TIMESTAMP,
  ANNOTATION_SIGNATURE,
  type BundleCandidate,
  type LegacyCandidate,
} from './find-signatures.js';

/** The annotations of a legacy layer that verification reads; others are not kept. */
const LEGACY_ANNOTATIONS = [
  ANNOTATION_SIGNATURE,
  ANNOTATION_CERTIFICATE,
  ANNOTATION_CHAIN,
  ANNOTATION_REKOR_BUNDLE,
  ANNOTATION_RFC3161_TIMESTAMP,
] as const;

/** Larger evidence is refused unread (a registry caps a signature at 1 MiB too). */
export const MAX_EVIDENCE_BYTES = 1024 * 1024;

/** The evidence text of a candidate that satisfied a rule. */
export function evidenceOf(candidate: BundleCandidate | LegacyCandidate): string {
  const body =
    candidate.format === 'bundle'
      ? { bundle: candidate.bundle ?? null }
      : {
          payload: Buffer.from(candidate.payload).toString('base64'),
          annotations: Object.fromEntries(
            LEGACY_ANNOTATIONS.filter((k) => candidate.annotations[k] !== undefined).map((k) => [
              k,
              candidate.annotations[k]!,
            ]),
          ),
        };
  return Buffer.from(json.canonicalize(body), 'utf8').toString('base64');
}

/**
 * The candidate an evidence text stands for, to be verified like one read from a registry;
 * undefined when the text is not evidence of that format (edited, truncated, another format).
 */
export function candidateFromEvidence(
  evidence: string,
  format: 'bundle' | 'legacy-tag',
): BundleCandidate | LegacyCandidate | undefined {
  if (evidence.length > (MAX_EVIDENCE_BYTES * 4) / 3 + 4 || !/^[A-Za-z0-9+/]*={0,2}$/.test(evidence)) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(evidence, 'base64')));
  } catch {
    return undefined;
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const fields = body as Record<string, unknown>;
  if (format === 'bundle') {
    if (Object.keys(fields).join() !== 'bundle' || typeof fields.bundle !== 'object' || fields.bundle === null)
      return undefined;
    return { format: 'bundle', manifestDigest: 'capi-render.lock', bundle: fields.bundle };
  }
  const { payload, annotations } = fields;
  if (
    Object.keys(fields).sort().join() !== 'annotations,payload' ||
    typeof payload !== 'string' ||
    !/^[A-Za-z0-9+/]*={0,2}$/.test(payload)
  )
    return undefined;
  if (typeof annotations !== 'object' || annotations === null || Array.isArray(annotations)) return undefined;
  const kept: Record<string, string> = {};
  for (const [key, value] of Object.entries(annotations)) {
    if (!(LEGACY_ANNOTATIONS as readonly string[]).includes(key) || typeof value !== 'string') return undefined;
    kept[key] = value;
  }
  return {
    format: 'legacy-tag',
    manifestDigest: 'capi-render.lock',
    layer: 0,
    payload: new Uint8Array(Buffer.from(payload, 'base64')),
    annotations: kept,
  };
}
