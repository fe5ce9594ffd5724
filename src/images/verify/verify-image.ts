/**
 * Verifies that a pinned image carries a cosign signature satisfying one `imagePolicy.verify` rule.
 *
 * Design notes: docs/internals.md "images/verify/verify-image.ts".
 */
import { createPublicKey, type KeyObject } from 'node:crypto';
import { bundleFromJSON, type Bundle } from '@sigstore/bundle';
import { VerificationError, Verifier, toSignedEntity, type SignedEntity, type Signer } from '@sigstore/verify';
import { SpecError, error } from '../../errors.js';
import type { LockedVerification } from '../../lock/lock-types.js';
import type { ImageRegistry } from '../registry/image-registry.js';
import {
  COSIGN_SIGN_PREDICATE_TYPE,
  findBundleSignatures,
  findLegacySignatures,
  legacySignatureTag,
  type BundleCandidate,
  type LegacyCandidate,
} from './find-signatures.js';
import { hasCertificate, legacyBundle, UnreadableSignature } from './legacy-bundle.js';
import type { TrustMaterialSource } from './trusted-root.js';
import { describeRule, ruleId, type VerifyRule } from './verify-rules.js';
import { readVerifyKey } from './verify-key.js';
import { candidateFromEvidence, evidenceOf } from './verification-evidence.js';

/** What was verified: what the lock records for the image (images[].verified). */
export type ImageVerification = LockedVerification;

/** What verification needs besides the image and the rule; shared by every image of a build. */
export interface VerifyContext {
  /** Reads referrers, manifests and blobs (the build's client for the image's registry policy). */
  registry: ImageRegistry;
  /** Key paths of key rules are relative to this. */
  repoRoot: string;
  /** loadTrustedRoot(): the shipped public-good root, or a file. */
  trustedRoot: TrustMaterialSource;
  /** Only for telling an expired certificate from a current one when a signature has no timestamp. Default: now. */
  now?: Date;
}

/** The image, pinned. */
export interface ImageToVerify {
  /** `registry/repository:tag`, as rendered (for messages). */
  reference: string;
  registry: string;
  repository: string;
  /** The pinned digest (the index's for a multi-platform image). */
  digest: string;
}

/** Why a verification failed; tests and callers branch on this, never on message text. */
export type VerifyFailureReason =
  | 'no-signature'
  | 'wrong-identity'
  | 'wrong-issuer'
  | 'bad-signature'
  | 'untrusted-certificate'
  | 'untrusted-log-entry'
  | 'untrusted-timestamp'
  | 'expired-certificate'
  | 'no-timestamp'
  | 'other-digest'
  | 'not-keyless'
  | 'unreadable'
  | 'key-file';

/** A rule an image does not satisfy (or cannot be checked against: its key file is missing). */
export class SignatureVerificationError extends SpecError {
  constructor(
    readonly reason: VerifyFailureReason,
    /** Why, without the image and rule the message starts with. */
    readonly detail: string,
    message: string,
    where: { field: string; hint: string },
  ) {
    super(error('image', message, where));
  }
}

/** One candidate's result. */
type Outcome =
  { ok: true; identity?: string; issuer?: string } | { ok: false; reason: VerifyFailureReason; detail: string };

/** What every candidate check needs. */
interface Check {
  rule: VerifyRule;
  digest: string;
  trust: TrustMaterialSource;
  now: Date;
  /** Key rules: the key and where it came from. */
  key?: { object: KeyObject; file: string };
}

const KEY_HINT = 'capi-render-verify-rule-key';
const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
const IN_TOTO_STATEMENT_TYPES = new Set(['https://in-toto.io/Statement/v0.1', 'https://in-toto.io/Statement/v1']);
const SIMPLE_SIGNING_TYPE = 'cosign container image signature';

const HINTS: Record<VerifyFailureReason, string> = {
  'no-signature':
    "sign the image (cosign sign), or when the image comes from a mirror copy its signatures too (cosign copy); if it is not meant to be verified, narrow the rule's images glob",
  'wrong-identity':
    "check keyless.identity / identityRegExp against the publisher's documented signing identity (cosign verify prints it)",
  'wrong-issuer': "check keyless.issuer / issuerRegExp against the publisher's documented OIDC issuer",
  'bad-signature':
    'the signature or the signed payload was altered, or signed with another key; do not use this image until its publisher re-signs it',
  'untrusted-certificate':
    'keyless signatures must chain to a Fulcio CA of the trusted root; for a private Sigstore, point the build at its trusted_root.json',
  'untrusted-log-entry':
    "the transparency-log entry does not verify against the trusted root's logs; for a private Sigstore, point the build at its trusted_root.json",
  'untrusted-timestamp':
    "the RFC 3161 timestamp does not verify against the trusted root's timestamp authorities; for a private TSA, point the build at a trusted_root.json listing it",
  'expired-certificate':
    'keyless certificates live 10 minutes: the signature needs a transparency-log entry (cosign signs with one by default) or a signed RFC 3161 timestamp proving it was made in time',
  'no-timestamp':
    'keyless signatures need a transparency-log entry (cosign signs with one by default) or a signed RFC 3161 timestamp',
  'other-digest':
    'the signature was made for another image (copied, or the tag moved after signing); verify the digest you pin is the one the publisher signed',
  'not-keyless': "this image is signed with a key: use a key rule with the publisher's public key",
  unreadable: 'the signature is not in a format cosign writes; re-sign the image with cosign',
  'key-file': 'commit the PEM public key (cosign.pub) at the path the rule names, relative to the repository root',
};

/** A rule as given: bare, or with its index in `imagePolicy.verify` (messages then name it). */
export type RuleToApply = VerifyRule | { rule: VerifyRule; index: number };

/** What checking candidates against one rule for one image needs, made once per verification. */
interface Prepared {
  check: Check;
  /** The record's fields that do not depend on the candidate. */
  base: Pick<ImageVerification, 'rule' | 'method'>;
  fail: (reason: VerifyFailureReason, detail: string) => SignatureVerificationError;
}

/** Reads the rule's key (key rules) and fixes the message subject; throws `key-file` when the key cannot be used. */
function prepare(
  image: ImageToVerify,
  rule: RuleToApply,
  ctx: Pick<VerifyContext, 'repoRoot' | 'trustedRoot' | 'now'>,
): Prepared {
  const matched = 'images' in rule ? { rule, index: undefined } : rule;
  const field = matched.index === undefined ? 'imagePolicy.verify' : `imagePolicy.verify[${matched.index}]`;
  const subject = `image ${image.reference}@${image.digest}: ${field} (${describeRule(matched.rule)})`;
  const fail = (reason: VerifyFailureReason, detail: string) =>
    new SignatureVerificationError(reason, detail, `${subject}: ${detail}`, { field, hint: HINTS[reason] });

  const check: Check = { rule: matched.rule, digest: image.digest, trust: ctx.trustedRoot, now: ctx.now ?? new Date() };
  let keyPem: string | undefined;
  if (matched.rule.key !== undefined) {
    const read = readVerifyKey(ctx.repoRoot, matched.rule.key);
    if ('problem' in read) throw fail('key-file', `the key ${read.problem}`);
    keyPem = read.pem;
    try {
      check.key = { object: createPublicKey(keyPem), file: matched.rule.key };
    } catch {
      throw fail('key-file', `the key file ${matched.rule.key} is not a PEM public key`);
    }
  }
  return {
    check,
    base: { rule: ruleId(matched.rule, keyPem), method: matched.rule.key !== undefined ? 'key' : 'keyless' },
    fail,
  };
}

/** One candidate checked against the prepared rule: the record (with the candidate as its evidence), or why not. */
function checkCandidate(
  candidate: BundleCandidate | LegacyCandidate,
  prepared: Prepared,
): { ok: true; verification: ImageVerification } | { ok: false; reason: VerifyFailureReason; detail: string } {
  const outcome =
    candidate.format === 'bundle' ? checkBundle(candidate, prepared.check) : checkLegacy(candidate, prepared.check);
  if (!outcome.ok) return outcome;
  return {
    ok: true,
    verification: {
      ...prepared.base,
      format: candidate.format,
      ...identityOf(outcome),
      evidence: evidenceOf(candidate),
    },
  };
}

/**
 * Verifies `image` against `rule` (or the `{ rule, index }` ruleFor returns, so messages name
 * `imagePolicy.verify[index]`), reading its signatures from the registry. Resolves to what was
 * verified, with the signature that passed as evidence; rejects with a
 * {@link SignatureVerificationError}, or the registry client's FetchError when a registry fails.
 */
export async function verifyImage(
  image: ImageToVerify,
  rule: RuleToApply,
  ctx: VerifyContext,
): Promise<ImageVerification> {
  const prepared = prepare(image, rule, ctx);
  const location = { registry: image.registry, repository: image.repository, digest: image.digest };

  const failures: { where: string; reason: VerifyFailureReason; detail: string }[] = [];
  const bundles = await findBundleSignatures(ctx.registry, location);
  for (const candidate of bundles.candidates) {
    const outcome = checkCandidate(candidate, prepared);
    if (outcome.ok) return outcome.verification;
    failures.push({ where: `bundle ${candidate.manifestDigest}`, reason: outcome.reason, detail: outcome.detail });
  }
  const legacy = await findLegacySignatures(ctx.registry, location);
  for (const candidate of legacy.candidates) {
    const outcome = checkCandidate(candidate, prepared);
    if (outcome.ok) return outcome.verification;
    failures.push({
      where: `${legacySignatureTag(image.digest)} layer ${candidate.layer}`,
      reason: outcome.reason,
      detail: outcome.detail,
    });
  }
  if (failures.length === 0)
    throw prepared.fail(
      'no-signature',
      `no signature found: looked for Sigstore bundles among ${bundles.looked}, and at ${legacy.looked}`,
    );
  const first = failures[0]!;
  if (failures.length === 1) throw prepared.fail(first.reason, first.detail);
  throw prepared.fail(
    first.reason,
    `none of ${failures.length} signatures satisfies the rule: ${failures.map((f) => `${f.where}: ${f.detail}`).join('; ')}`,
  );
}

/**
 * Verifies `image` against `rule` from the evidence a lock kept (verification-evidence.ts), with no
 * registry: the same checks as {@link verifyImage} — signature, certificate and log entry or
 * timestamp against the trusted root, identity and issuer, and that the signed digest is the pinned
 * one. Returns the record as this rule gives it now; throws a {@link SignatureVerificationError}
 * (`unreadable` for evidence that is not evidence of its format).
 */
export function verifyEvidence(
  image: ImageToVerify,
  rule: RuleToApply,
  locked: Pick<ImageVerification, 'format' | 'evidence'>,
  ctx: Pick<VerifyContext, 'repoRoot' | 'trustedRoot' | 'now'>,
): ImageVerification {
  const prepared = prepare(image, rule, ctx);
  const candidate = locked.evidence === undefined ? undefined : candidateFromEvidence(locked.evidence, locked.format);
  if (!candidate)
    throw prepared.fail(
      'unreadable',
      `the signature evidence capi-render.lock keeps is not a ${locked.format === 'bundle' ? 'Sigstore bundle' : 'cosign signature layer'}`,
    );
  const outcome = checkCandidate(candidate, prepared);
  if (!outcome.ok) throw prepared.fail(outcome.reason, outcome.detail);
  return outcome.verification;
}

function identityOf(outcome: { identity?: string; issuer?: string }): { identity?: string; issuer?: string } {
  return {
    ...(outcome.identity !== undefined ? { identity: outcome.identity } : {}),
    ...(outcome.issuer !== undefined ? { issuer: outcome.issuer } : {}),
  };
}

/** A Sigstore bundle referrer: DSSE envelope around cosign's in-toto signature statement. */
function checkBundle(candidate: BundleCandidate, check: Check): Outcome {
  let bundle: Bundle;
  try {
    if (candidate.bundle === undefined) throw new Error('it is not JSON');
    bundle = bundleFromJSON(candidate.bundle);
  } catch (cause) {
    return {
      ok: false,
      reason: 'unreadable',
      detail: `unreadable signature: the bundle is not a valid Sigstore bundle (${(cause as Error).message})`,
    };
  }
  if (bundle.content.$case !== 'dsseEnvelope')
    return {
      ok: false,
      reason: 'unreadable',
      detail:
        'unreadable signature: the bundle holds a message signature, not the DSSE envelope cosign signs images with',
    };
  const envelope = bundle.content.dsseEnvelope;
  if (envelope.payloadType !== IN_TOTO_PAYLOAD_TYPE)
    return {
      ok: false,
      reason: 'unreadable',
      detail: `unreadable signature: the bundle's envelope holds ${envelope.payloadType}, not an in-toto statement`,
    };
  let entity: SignedEntity;
  try {
    entity = toSignedEntity(bundle);
  } catch (cause) {
    return { ok: false, reason: 'unreadable', detail: `unreadable signature: ${(cause as Error).message}` };
  }
  const verified = check.key ? verifyWithKey(entity, check, 'the DSSE envelope') : verifyKeyless(entity, check);
  if (!verified.ok) return verified;
  return claimsInToto(envelope.payload, check.digest) ?? verified;
}

/** A legacy `.sig` layer: simple-signing payload and annotations. */
function checkLegacy(candidate: LegacyCandidate, check: Check): Outcome {
  let outcome: Outcome | undefined;
  try {
    if (check.key) {
      // cosign signs with SHA-256 unless told otherwise; cert-manager's images are signed over SHA-512.
      for (const digestAlgorithm of ['SHA2_256', 'SHA2_512'] as const) {
        const entity = toSignedEntity(
          legacyBundle(candidate, { kind: 'public-key', hint: KEY_HINT, digestAlgorithm }),
          Buffer.from(candidate.payload),
        );
        outcome = verifyWithKey(entity, check, 'the payload');
        if (outcome.ok) break;
      }
    } else {
      if (!hasCertificate(candidate))
        return {
          ok: false,
          reason: 'not-keyless',
          detail:
            'the signature carries no certificate (it was made with a key), so it has no identity to check; the rule wants keyless',
        };
      outcome = verifyKeyless(
        toSignedEntity(legacyBundle(candidate, { kind: 'certificate' }), Buffer.from(candidate.payload)),
        check,
      );
    }
  } catch (cause) {
    if (cause instanceof UnreadableSignature)
      return { ok: false, reason: 'unreadable', detail: `unreadable signature: ${cause.message}` };
    return { ok: false, reason: 'unreadable', detail: `unreadable signature: ${(cause as Error).message}` };
  }
  if (!outcome!.ok) return outcome!;
  return claimsSimpleSigning(candidate.payload, check.digest) ?? outcome!;
}

/** Keyless: timestamps, certificate chain and SCT, log entries, signature (sigstore-js), then identity and issuer (here). */
function verifyKeyless(entity: SignedEntity, check: Check): Outcome {
  if (entity.key.$case !== 'certificate')
    return {
      ok: false,
      reason: 'not-keyless',
      detail:
        'the signature carries no certificate (it was made with a key), so it has no identity to check; the rule wants keyless',
    };
  const certificate = entity.key.certificate;
  // A log entry gives a verifiable time only with its SET (inclusion promise) and a non-zero integratedTime; toSignedEntity drops the latter.
  const times = entity.timestamps.filter(
    (t) => t.$case === 'timestamp-authority' || t.tlogEntry.inclusionPromise !== undefined,
  );
  if (times.length === 0) {
    const window = `valid ${certificate.notBefore.toISOString()} to ${certificate.notAfter.toISOString()}`;
    if (!certificate.validForDate(check.now)) {
      return {
        ok: false,
        reason: 'expired-certificate',
        detail: `expired certificate without a transparency-log entry or signed timestamp: the certificate was ${window}, it is ${check.now.toISOString()} now, and nothing proves the signature was made while it was valid`,
      };
    }
    return {
      ok: false,
      reason: 'no-timestamp',
      detail: `no transparency-log entry or signed timestamp: a keyless signature needs one to prove when it was made (the certificate is ${window})`,
    };
  }
  let signer: Signer;
  try {
    const verifier = new Verifier(check.trust.material(), {
      tlogThreshold: entity.tlogEntries.length > 0 ? 1 : 0,
      ctlogThreshold: 1,
      timestampThreshold: 1,
    });
    signer = verifier.verify(entity);
  } catch (cause) {
    return libraryFailure(cause, check, 'the payload');
  }
  const identity = signer.identity?.subjectAlternativeName;
  const issuer = signer.identity?.extensions?.issuer;
  const want = check.rule.keyless ?? {};
  const identityOk = matches(identity, want.identity, want.identityRegExp);
  const issuerOk = matches(issuer, want.issuer, want.issuerRegExp);
  const wantIdentity =
    want.identity !== undefined
      ? `identity ${JSON.stringify(want.identity)}`
      : `identityRegExp ${JSON.stringify(want.identityRegExp)}`;
  const wantIssuer =
    want.issuer !== undefined
      ? `issuer ${JSON.stringify(want.issuer)}`
      : `issuerRegExp ${JSON.stringify(want.issuerRegExp)}`;
  if (!identityOk) {
    const alsoIssuer = issuerOk
      ? ''
      : `; its issuer ${JSON.stringify(issuer ?? '')} does not match ${wantIssuer} either`;
    return {
      ok: false,
      reason: 'wrong-identity',
      detail: `wrong identity: expected ${wantIdentity}, the certificate is for ${JSON.stringify(identity ?? '')}${alsoIssuer}`,
    };
  }
  if (!issuerOk)
    return {
      ok: false,
      reason: 'wrong-issuer',
      detail: `wrong issuer: expected ${wantIssuer}, the certificate was issued for ${JSON.stringify(issuer ?? '')} (identity ${JSON.stringify(identity ?? '')})`,
    };
  return { ok: true, ...(identity !== undefined ? { identity } : {}), ...(issuer !== undefined ? { issuer } : {}) };
}

/** Key rules: the signature with the rule's key only; log entries and timestamps neither required nor read. */
function verifyWithKey(entity: SignedEntity, check: Check, what: string): Outcome {
  const key = check.key!;
  const keyed: SignedEntity = {
    ...entity,
    key: { $case: 'public-key', hint: KEY_HINT },
    tlogEntries: [],
    timestamps: [],
  };
  try {
    const verifier = new Verifier(
      check.trust.material(() => ({ publicKey: key.object, validFor: () => true })),
      { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 },
    );
    verifier.verify(keyed);
  } catch (cause) {
    return libraryFailure(cause, check, what);
  }
  return { ok: true };
}

/** Exact, or a regexp matched unanchored (cosign's Go MatchString, sigstore-js's String.match). */
function matches(value: string | undefined, exact: string | undefined, regexp: string | undefined): boolean {
  if (value === undefined) return false;
  if (exact !== undefined) return value === exact;
  if (regexp !== undefined) return new RegExp(regexp).test(value);
  return false;
}

/** sigstore-js's failure as a reason and a sentence. */
function libraryFailure(cause: unknown, check: Check, what: string): Outcome {
  if (!(cause instanceof VerificationError))
    return {
      ok: false,
      reason: 'unreadable',
      detail: `unreadable signature: ${(cause as Error)?.message ?? String(cause)}`,
    };
  const why = cause.message;
  const trust = check.trust.description;
  switch (cause.code) {
    case 'SIGNATURE_ERROR':
    case 'PUBLIC_KEY_ERROR':
      return {
        ok: false,
        reason: 'bad-signature',
        detail: check.key
          ? `bad signature: it does not verify over ${what} with the key ${check.key.file}`
          : `bad signature: it does not verify over ${what} with the certificate's key (the payload was changed after signing)`,
      };
    case 'TLOG_BODY_ERROR':
      return {
        ok: false,
        reason: 'bad-signature',
        detail: `bad signature: the transparency-log entry records another signature or payload than this one (${why}): the payload or signature was changed after signing`,
      };
    case 'CERTIFICATE_ERROR': {
      const inner = cause.cause instanceof Error ? `: ${cause.cause.message}` : '';
      return {
        ok: false,
        reason: 'untrusted-certificate',
        detail: `untrusted certificate: ${why}${inner}, checked against the Fulcio CAs and CT logs of ${trust}`,
      };
    }
    case 'TLOG_INCLUSION_PROMISE_ERROR':
    case 'TLOG_INCLUSION_PROOF_ERROR':
    case 'TLOG_MISSING_INCLUSION_ERROR':
    case 'TLOG_ERROR':
      return {
        ok: false,
        reason: 'untrusted-log-entry',
        detail: `untrusted transparency-log entry: ${why}, checked against the logs of ${trust}`,
      };
    case 'TIMESTAMP_ERROR':
      return /^expected \d+ timestamps/.test(why)
        ? { ok: false, reason: 'no-timestamp', detail: `no transparency-log entry or signed timestamp: ${why}` }
        : {
            ok: false,
            reason: 'untrusted-timestamp',
            detail: `untrusted timestamp: ${why}, checked against the timestamp authorities of ${trust}`,
          };
    default:
      return { ok: false, reason: 'unreadable', detail: `unreadable signature: ${why}` };
  }
}

/** The simple-signing claim: `critical.image.docker-manifest-digest` is the pinned digest. Undefined when it is. */
function claimsSimpleSigning(payload: Uint8Array, digest: string): Outcome | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(payload));
  } catch {
    return { ok: false, reason: 'unreadable', detail: 'unreadable signature: the signed payload is not JSON' };
  }
  const critical = record(record(parsed)?.critical);
  const signed = record(critical?.image)?.['docker-manifest-digest'];
  if (critical?.type !== SIMPLE_SIGNING_TYPE || typeof signed !== 'string') {
    return {
      ok: false,
      reason: 'unreadable',
      detail: `unreadable signature: the signed payload is not a cosign simple-signing payload (critical.type ${JSON.stringify(SIMPLE_SIGNING_TYPE)}, critical.image.docker-manifest-digest)`,
    };
  }
  if (signed !== digest) return otherDigest(signed, digest);
  return undefined;
}

/** The in-toto claim: cosign's signature predicate, with the pinned digest among the subjects. Undefined when it holds. */
function claimsInToto(payload: Buffer, digest: string): Outcome | undefined {
  let statement: Record<string, unknown> | undefined;
  try {
    statement = record(JSON.parse(payload.toString('utf8')));
  } catch {
    statement = undefined;
  }
  if (!statement || !IN_TOTO_STATEMENT_TYPES.has(String(statement._type)))
    return {
      ok: false,
      reason: 'unreadable',
      detail: 'unreadable signature: the signed envelope does not hold an in-toto statement',
    };
  if (statement.predicateType !== COSIGN_SIGN_PREDICATE_TYPE) {
    return {
      ok: false,
      reason: 'unreadable',
      detail: `unreadable signature: the bundle is an attestation (${JSON.stringify(statement.predicateType)}), not a cosign signature (${COSIGN_SIGN_PREDICATE_TYPE})`,
    };
  }
  const [algorithm, hex] = digest.split(':') as [string, string];
  const subjects = Array.isArray(statement.subject) ? statement.subject : [];
  const signed = subjects
    .map((s) => record(record(s)?.digest)?.[algorithm])
    .filter((d): d is string => typeof d === 'string');
  if (signed.some((d) => d.toLowerCase() === hex.toLowerCase())) return undefined;
  return otherDigest(
    signed.length > 0 ? signed.map((d) => `${algorithm}:${d}`).join(', ') : `no ${algorithm} subject`,
    digest,
  );
}

function otherDigest(signed: string, digest: string): Outcome {
  return {
    ok: false,
    reason: 'other-digest',
    detail: `signature is for another digest: it signs ${signed}, the pinned image is ${digest}`,
  };
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}
