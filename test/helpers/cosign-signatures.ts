/**
 * cosign signatures for tests, made offline and pushed to a test registry in both places cosign
 * keeps them — so any test can sign an image or an OCI artifact (anything with a manifest digest)
 * and have it verified by the real code path:
 *
 * - {@link createTestSigstore}: a local Sigstore stand-in from @sigstore/mock's building blocks
 *   (its fake Fulcio CA with a CT log that embeds SCTs, its Rekor log that returns a SET and an
 *   inclusion proof with a signed checkpoint, its RFC 3161 TSA), no network and no nock
 *   interceptors; writes a `trusted_root.json` listing exactly them, for `loadTrustedRoot(file)`.
 *   It hands out keyless signers (a Fulcio certificate for an identity and issuer, valid 10 minutes
 *   from now or from a given time) and key signers (an ECDSA P-256 pair, the `cosign.pub` PEM).
 * - {@link signImageLegacy}: what `cosign sign` ≤ v2 writes: a simple-signing payload layer in the
 *   `sha256-<hex>.sig` manifest (appended when the tag exists, as cosign does), with the signature,
 *   certificate, chain, Rekor bundle and RFC 3161 annotations.
 * - {@link attachBundleReferrer}: what `cosign sign` v3 writes: a Sigstore bundle v0.3 (DSSE
 *   envelope around an in-toto statement, predicate `https://sigstore.dev/cosign/sign/v1`) as an
 *   OCI 1.1 referrer pushed by digest, listed in the `sha256-<hex>` fallback index when the registry
 *   has no referrers API (Debian's distribution 2.8 has none).
 * - {@link legacySignature} / {@link signatureBundle}: the same material without pushing it.
 *
 * Knobs for the failure cases: `claimedDigest` (sign another digest), `tamper` (change the payload
 * after signing), `transparencyLog` / `timestamp` (which proofs of time to attach), a signer whose
 * certificate was issued in the past (`keyless(…, { at })`), `predicateType` (an attestation).
 */
import { createHash, generateKeyPairSync, randomInt, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleToJSON, toDSSEBundle, type Bundle } from '@sigstore/bundle';
import { dsse, pem } from '@sigstore/core';
import { initializeCA, initializeCTLog, initializeTLog, initializeTSA } from '@sigstore/mock';
import { createOciClient, type OciClient } from '../../src/source/oci/oci-client.js';
import type { OciCredentials } from '../../src/source/oci/oci-credentials.js';
import { computeOciDigest } from '../../src/source/oci/oci-digest.js';
import { createOciHttp, type OciHttp } from '../../src/source/oci/oci-http.js';
import {
  IMAGE_MANIFEST_TYPES,
  MEDIA_TYPE_EMPTY_JSON,
  MEDIA_TYPE_OCI_INDEX,
  MEDIA_TYPE_OCI_MANIFEST,
} from '../../src/source/oci/oci-media-types.js';
import { registryHostPort } from '../../src/source/oci/oci-reference.js';

export const BUNDLE_V03_MEDIA_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';
export const SIMPLE_SIGNING_MEDIA_TYPE = 'application/vnd.dev.cosign.simplesigning.v1+json';
export const COSIGN_SIGN_PREDICATE = 'https://sigstore.dev/cosign/sign/v1';
export const IN_TOTO_PAYLOAD_TYPE = 'application/vnd.in-toto+json';
/** Fulcio's OIDC issuer extensions: 1.1 (raw string, deprecated) and 1.8 (DER UTF8String). */
const OID_ISSUER_V1 = '1.3.6.1.4.1.57264.1.1';
const OID_ISSUER_V2 = '1.3.6.1.4.1.57264.1.8';
const OID_SHA256 = '2.16.840.1.101.3.4.2.1';
const REKOR_URL = 'https://rekor.capi-render.test';
const FULCIO_URL = 'https://fulcio.capi-render.test';
const TSA_URL = 'https://tsa.capi-render.test/api/v1/timestamp';
/** Every authority of the test root is valid from here on, so signers may be dated in the past. */
const VALID_FROM = '2020-01-01T00:00:00Z';

type MockCA = Awaited<ReturnType<typeof initializeCA>>;
type MockTLog = Awaited<ReturnType<typeof initializeTLog>>;
type MockTSA = Awaited<ReturnType<typeof initializeTSA>>;
type KeyPair = { publicKey: KeyObject; privateKey: KeyObject };

/** The fake services a signer records its signatures with. */
interface Services {
  rekor: MockTLog;
  /** The TSA's key: each timestamp comes from a TSA instance over it whose clock is the current whole second (see timestampOf). */
  tsaKeys: KeyPair;
}

/** Signs as a Fulcio certificate's holder. */
export interface KeylessSigner {
  kind: 'keyless';
  identity: string;
  issuer: string;
  /** The leaf, PEM (what `dev.sigstore.cosign/certificate` holds). */
  certificatePem: string;
  /** The CA's root, PEM (what `…/chain` holds). */
  chainPem: string;
  notBefore: Date;
  notAfter: Date;
  privateKey: KeyObject;
  services: Services;
}

/** Signs with a cosign key pair. */
export interface KeySigner {
  kind: 'key';
  /** The public key, PEM — what a `cosign.pub` file holds. */
  publicKeyPem: string;
  privateKey: KeyObject;
  services: Services;
}

export type TestSigner = KeylessSigner | KeySigner;

export interface TestSigstore {
  /** A `trusted_root.json` with this Sigstore's Fulcio CA, Rekor, CT log and TSA. */
  trustedRootPath: string;
  trustedRoot: Record<string, unknown>;
  /** A signer with a fresh certificate for `identity` (SAN) and `issuer` (Fulcio extensions 1.1 and 1.8); issued now, or at `at`, valid 10 minutes. */
  keyless(who: { identity: string; issuer: string }, options?: { at?: Date }): Promise<KeylessSigner>;
  /** A signer with a fresh ECDSA P-256 key pair. */
  key(): KeySigner;
}

const p256 = (): KeyPair => generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const spki = (key: KeyObject): Buffer => key.export({ format: 'der', type: 'spki' });
const b64 = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64');
/** The bytes of a view the mock hands out. */
const bytesOf = (view: ArrayBufferView): Buffer => Buffer.from(view.buffer, view.byteOffset, view.byteLength);
const sha256 = (bytes: Uint8Array): Buffer => createHash('sha256').update(bytes).digest();

/** Creates the Sigstore stand-in and writes its trusted root to `dir/trusted_root.json` (`dir` is created if needed). */
export async function createTestSigstore(dir: string): Promise<TestSigstore> {
  const caKeys = p256();
  const ctKeys = p256();
  const rekorKeys = p256();
  const tsaKeys = p256();
  const ctLog = await initializeCTLog(ctKeys);
  const ca = await initializeCA(caKeys, ctLog);
  const rekor = await initializeTLog(REKOR_URL, rekorKeys);
  const tsa = await initializeTSA(tsaKeys);
  const services: Services = { rekor, tsaKeys };
  const rootPem = pem.fromDER(bytesOf(ca.rootCertificate));
  const logId = (keys: KeyPair) => b64(sha256(spki(keys.publicKey)));
  const trustedRoot = {
    mediaType: 'application/vnd.dev.sigstore.trustedroot+json;version=0.1',
    tlogs: [
      {
        baseUrl: REKOR_URL,
        hashAlgorithm: 'SHA2_256',
        publicKey: {
          rawBytes: b64(spki(rekorKeys.publicKey)),
          keyDetails: 'PKIX_ECDSA_P256_SHA_256',
          validFor: { start: VALID_FROM },
        },
        logId: { keyId: logId(rekorKeys) },
      },
    ],
    certificateAuthorities: [
      {
        subject: { organization: 'sigstore.mock', commonName: 'sigstore' },
        uri: FULCIO_URL,
        certChain: { certificates: [{ rawBytes: b64(bytesOf(ca.rootCertificate)) }] },
        validFor: { start: VALID_FROM },
      },
    ],
    ctlogs: [
      {
        baseUrl: 'https://ctfe.capi-render.test/test',
        hashAlgorithm: 'SHA2_256',
        publicKey: {
          rawBytes: b64(spki(ctKeys.publicKey)),
          keyDetails: 'PKIX_ECDSA_P256_SHA_256',
          validFor: { start: VALID_FROM },
        },
        logId: { keyId: logId(ctKeys) },
      },
    ],
    timestampAuthorities: [
      {
        subject: { organization: 'sigstore.mock', commonName: 'tsa' },
        uri: TSA_URL,
        certChain: {
          certificates: [
            { rawBytes: b64(bytesOf(tsa.intCertificate)) },
            { rawBytes: b64(bytesOf(tsa.rootCertificate)) },
          ],
        },
        validFor: { start: VALID_FROM },
      },
    ],
  };
  mkdirSync(dir, { recursive: true });
  const trustedRootPath = path.join(dir, 'trusted_root.json');
  writeFileSync(trustedRootPath, `${JSON.stringify(trustedRoot, null, 2)}\n`);

  async function keyless(
    who: { identity: string; issuer: string },
    options: { at?: Date } = {},
  ): Promise<KeylessSigner> {
    // The mock CA's clock is fixed when it is made: a signer from the past gets its own CA instance over the same key (so the same trusted root).
    const issuing: MockCA = options.at
      ? await initializeCA(caKeys, await initializeCTLog(ctKeys, options.at), options.at)
      : ca;
    const keys = p256();
    const der = bytesOf(
      await issuing.issueCertificate({
        publicKey: new Uint8Array(spki(keys.publicKey)),
        subjectAltName: who.identity,
        extensions: [
          { oid: OID_ISSUER_V1, value: who.issuer, legacy: true },
          { oid: OID_ISSUER_V2, value: who.issuer },
        ],
      }),
    );
    const issuedAt = new Date(Math.floor((options.at ?? new Date()).getTime() / 1000) * 1000);
    return {
      kind: 'keyless',
      identity: who.identity,
      issuer: who.issuer,
      certificatePem: pem.fromDER(der),
      chainPem: rootPem,
      notBefore: issuedAt,
      notAfter: new Date(issuedAt.getTime() + 10 * 60 * 1000),
      privateKey: keys.privateKey,
      services,
    };
  }

  function key(): KeySigner {
    const keys = p256();
    return {
      kind: 'key',
      publicKeyPem: keys.publicKey.export({ format: 'pem', type: 'spki' }).toString(),
      privateKey: keys.privateKey,
      services,
    };
  }

  return { trustedRootPath, trustedRoot, keyless, key };
}

/** What can be changed about a signature, for the failure cases. */
export interface SignOptions {
  /** The digest the signature claims (default: the one it is attached to) — a signature "of another digest". */
  claimedDigest?: string;
  /** Record it in the fake Rekor and attach the entry. Default: true for keyless, false for a key (as `cosign sign --key --tlog-upload=false`). */
  transparencyLog?: boolean;
  /** Attach an RFC 3161 timestamp from the fake TSA over the signature. Default: false. */
  timestamp?: boolean;
  /** Change the signed payload after signing (a tampered signature). */
  tamper?: boolean;
  /** Hash for a key signer's signature (cert-manager signs over SHA-512). Default: sha256. */
  digestAlgorithm?: 'sha256' | 'sha512';
}

/** What a push needs beyond the registry's host: the test registries speak plain HTTP without credentials by default. */
export interface PushOptions {
  plainHttp?: boolean;
  credentials?: OciCredentials;
}

/** The content of one legacy `.sig` layer. */
export interface LegacySignature {
  payload: Buffer;
  annotations: Record<string, string>;
}

/** A simple-signing payload for `digest`, signed by `signer`, with cosign's layer annotations. */
export async function legacySignature(
  dockerReference: string,
  digest: string,
  signer: TestSigner,
  options: SignOptions = {},
): Promise<LegacySignature> {
  const claimed = options.claimedDigest ?? digest;
  const payload = Buffer.from(
    JSON.stringify({
      critical: {
        identity: { 'docker-reference': dockerReference },
        image: { 'docker-manifest-digest': claimed },
        type: 'cosign container image signature',
      },
      optional: null,
    }),
  );
  const hash = signer.kind === 'key' ? (options.digestAlgorithm ?? 'sha256') : 'sha256';
  const signature = cryptoSign(hash, payload, signer.privateKey);
  const annotations: Record<string, string> = { 'dev.cosignproject.cosign/signature': b64(signature) };
  if (signer.kind === 'keyless') {
    annotations['dev.sigstore.cosign/certificate'] = signer.certificatePem;
    annotations['dev.sigstore.cosign/chain'] = signer.chainPem;
  }
  if (options.transparencyLog ?? signer.kind === 'keyless') {
    const verifier = signer.kind === 'keyless' ? signer.certificatePem : signer.publicKeyPem;
    const entry = await logEntry(signer.services.rekor, {
      apiVersion: '0.0.1',
      kind: 'hashedrekord',
      spec: {
        data: { hash: { algorithm: hash, value: createHash(hash).update(payload).digest('hex') } },
        signature: { content: b64(signature), publicKey: { content: b64(Buffer.from(verifier)) } },
      },
    });
    annotations['dev.sigstore.cosign/bundle'] = JSON.stringify({
      SignedEntryTimestamp: entry.verification.signedEntryTimestamp,
      Payload: { body: entry.body, integratedTime: entry.integratedTime, logIndex: entry.logIndex, logID: entry.logID },
    });
  }
  if (options.timestamp)
    annotations['dev.sigstore.cosign/rfc3161timestamp'] = JSON.stringify({
      SignedRFC3161Timestamp: b64(await timestampOf(signer.services.tsaKeys, signature)),
    });
  return { payload: options.tamper ? tampered(payload) : payload, annotations };
}

/**
 * Signs `digest` (an image's or an artifact's manifest) the legacy way and pushes the signature to
 * `repository:sha256-<hex>.sig`, appending a layer when the tag exists. Returns the tag and the
 * digest of the `.sig` manifest written.
 */
export async function signImageLegacy(
  registryHost: string,
  repository: string,
  digest: string,
  signer: TestSigner,
  options: SignOptions & PushOptions = {},
): Promise<{ tag: string; manifestDigest: string; payload: Buffer }> {
  const { client, http } = connect(registryHost, options);
  const signature = await legacySignature(`${registryHost}/${repository}`, digest, signer, options);
  const tag = `${digest.replace(':', '-')}.sig`;
  const existing = await getJson(http, repository, tag, IMAGE_MANIFEST_TYPES.join(', '));
  const layers = Array.isArray(existing?.layers) ? (existing.layers as Record<string, unknown>[]) : [];
  const payloadDigest = await client.pushBlob(repository, signature.payload);
  layers.push({
    mediaType: SIMPLE_SIGNING_MEDIA_TYPE,
    digest: payloadDigest,
    size: signature.payload.length,
    annotations: signature.annotations,
  });
  const config = Buffer.from(
    JSON.stringify({
      architecture: '',
      created: '0001-01-01T00:00:00Z',
      history: layers.map(() => ({ created: '0001-01-01T00:00:00Z' })),
      os: '',
      rootfs: { type: 'layers', diff_ids: layers.map((l) => l.digest) },
      config: {},
    }),
  );
  const configDigest = await client.pushBlob(repository, config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPE_OCI_MANIFEST,
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', size: config.length, digest: configDigest },
      layers,
    }),
  );
  const manifestDigest = await client.pushManifest(repository, tag, manifest, MEDIA_TYPE_OCI_MANIFEST);
  return { tag, manifestDigest, payload: signature.payload };
}

/** A Sigstore bundle v0.3 (JSON) as `cosign sign` v3 makes it for `digest`. */
export async function signatureBundle(
  subjectName: string,
  digest: string,
  signer: TestSigner,
  options: SignOptions & { predicateType?: string } = {},
): Promise<Record<string, unknown>> {
  const [algorithm, hex] = (options.claimedDigest ?? digest).split(':') as [string, string];
  const statement = {
    _type: 'https://in-toto.io/Statement/v1',
    subject: [{ name: subjectName, digest: { [algorithm]: hex } }],
    predicateType: options.predicateType ?? COSIGN_SIGN_PREDICATE,
    predicate: {},
  };
  const payload = Buffer.from(JSON.stringify(statement));
  const signature = cryptoSign('sha256', dsse.preAuthEncoding(IN_TOTO_PAYLOAD_TYPE, payload), signer.privateKey);
  const certificate = signer.kind === 'keyless' ? pem.toDER(signer.certificatePem) : undefined;
  const bundle: Bundle = toDSSEBundle({
    artifact: options.tamper ? tampered(payload) : payload,
    artifactType: IN_TOTO_PAYLOAD_TYPE,
    signature,
    ...(certificate ? { certificate } : { keyHint: '' }),
  });
  if (options.transparencyLog ?? signer.kind === 'keyless') {
    const verifier = signer.kind === 'keyless' ? signer.certificatePem : signer.publicKeyPem;
    const envelope = JSON.stringify({
      payload: b64(payload),
      payloadType: IN_TOTO_PAYLOAD_TYPE,
      signatures: [{ sig: b64(signature) }],
    });
    const entry = await logEntry(signer.services.rekor, {
      apiVersion: '0.0.1',
      kind: 'dsse',
      spec: {
        envelopeHash: { algorithm: 'sha256', value: sha256(Buffer.from(envelope)).toString('hex') },
        payloadHash: { algorithm: 'sha256', value: sha256(payload).toString('hex') },
        signatures: [{ signature: b64(signature), verifier: b64(Buffer.from(verifier)) }],
      },
    });
    const proof = entry.verification.inclusionProof;
    bundle.verificationMaterial.tlogEntries.push({
      logIndex: String(entry.logIndex),
      logId: { keyId: Buffer.from(entry.logID, 'hex') },
      kindVersion: { kind: 'dsse', version: '0.0.1' },
      integratedTime: String(entry.integratedTime),
      inclusionPromise: { signedEntryTimestamp: Buffer.from(entry.verification.signedEntryTimestamp, 'base64') },
      inclusionProof: {
        logIndex: String(proof.logIndex),
        rootHash: Buffer.from(proof.rootHash, 'hex'),
        treeSize: String(proof.treeSize),
        hashes: proof.hashes.map((h) => Buffer.from(h, 'hex')),
        checkpoint: { envelope: proof.checkpoint },
      },
      canonicalizedBody: Buffer.from(entry.body, 'base64'),
    });
  }
  if (options.timestamp) {
    bundle.verificationMaterial.timestampVerificationData = {
      rfc3161Timestamps: [{ signedTimestamp: await timestampOf(signer.services.tsaKeys, signature) }],
    };
  }
  return bundleToJSON(bundle);
}

/**
 * Signs `digest` the cosign v3 way and attaches the bundle as a referrer: the bundle blob, the empty
 * config, a manifest with `subject` and `artifactType` pushed by digest, and — when the registry
 * answers 404 to the referrers API — an entry in the `sha256-<hex>` fallback index. Returns the
 * referrer manifest's digest.
 */
export async function attachBundleReferrer(
  registryHost: string,
  repository: string,
  digest: string,
  signer: TestSigner,
  options: SignOptions & PushOptions & { predicateType?: string } = {},
): Promise<{ manifestDigest: string; bundle: Record<string, unknown> }> {
  const { client, http } = connect(registryHost, options);
  const bundle = await signatureBundle(`${registryHost}/${repository}`, digest, signer, options);
  const bundleBytes = Buffer.from(JSON.stringify(bundle));
  const bundleDigest = await client.pushBlob(repository, bundleBytes);
  const empty = Buffer.from('{}');
  const emptyDigest = await client.pushBlob(repository, empty);
  const subject = await head(http, repository, digest);
  const predicateType = options.predicateType ?? COSIGN_SIGN_PREDICATE;
  const annotations = {
    'dev.sigstore.bundle.content': 'dsse-envelope',
    'dev.sigstore.bundle.predicateType': predicateType,
    'org.opencontainers.image.created': new Date().toISOString(),
  };
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MEDIA_TYPE_OCI_MANIFEST,
      artifactType: BUNDLE_V03_MEDIA_TYPE,
      config: { mediaType: MEDIA_TYPE_EMPTY_JSON, digest: emptyDigest, size: empty.length },
      layers: [{ mediaType: BUNDLE_V03_MEDIA_TYPE, digest: bundleDigest, size: bundleBytes.length }],
      subject: { mediaType: subject.mediaType, digest, size: subject.size },
      annotations,
    }),
  );
  const manifestDigest = computeOciDigest(manifest);
  await client.pushManifest(repository, manifestDigest, manifest, MEDIA_TYPE_OCI_MANIFEST);
  const api = await http.send({
    method: 'GET',
    target: `/v2/${repository}/referrers/${digest}`,
    scope: `repository:${repository}:pull`,
    headers: { accept: MEDIA_TYPE_OCI_INDEX },
  });
  await api.body?.cancel();
  if (api.status === 404) {
    const tag = digest.replace(':', '-');
    const index = (await getJson(http, repository, tag, MEDIA_TYPE_OCI_INDEX)) ?? {
      schemaVersion: 2,
      mediaType: MEDIA_TYPE_OCI_INDEX,
      manifests: [],
    };
    (index.manifests as unknown[]).push({
      mediaType: MEDIA_TYPE_OCI_MANIFEST,
      digest: manifestDigest,
      size: manifest.length,
      artifactType: BUNDLE_V03_MEDIA_TYPE,
      annotations,
    });
    await client.pushManifest(repository, tag, Buffer.from(JSON.stringify(index)), MEDIA_TYPE_OCI_INDEX);
  }
  return { manifestDigest, bundle };
}

/** The same payload with one byte's worth of difference that still parses. */
function tampered(payload: Buffer): Buffer {
  const parsed = JSON.parse(payload.toString('utf8')) as Record<string, unknown>;
  return Buffer.from(JSON.stringify({ ...parsed, optional: { tampered: 'yes' } }));
}

interface RekorEntry {
  body: string;
  integratedTime: number;
  logID: string;
  logIndex: number;
  verification: {
    signedEntryTimestamp: string;
    inclusionProof: { logIndex: number; treeSize: number; rootHash: string; hashes: string[]; checkpoint: string };
  };
}

async function logEntry(rekor: MockTLog, proposed: object): Promise<RekorEntry> {
  const answer = (await rekor.log(proposed)) as unknown as Record<string, RekorEntry>;
  return Object.values(answer)[0]!;
}

/**
 * An RFC 3161 response over the signature. The mock TSA writes `genTime` with milliseconds, trailing
 * zeros dropped (`…05.12Z`), which @sigstore/core's time parser refuses unless there are exactly
 * three digits; a TSA whose clock is a whole second writes none. Same key, subject and serial as
 * the trusted root's TSA certificates, so its tokens verify against them.
 */
async function timestampOf(tsaKeys: KeyPair, signature: Buffer): Promise<Buffer> {
  const tsa: MockTSA = await initializeTSA(tsaKeys, new Date(Math.floor(Date.now() / 1000) * 1000));
  return bytesOf(
    await tsa.timestamp({
      artifactHash: sha256(signature),
      hashAlgorithmOID: OID_SHA256,
      nonce: randomInt(1, 2 ** 31),
      policyOID: '1.3.6.1.4.1.57264.2',
      certReq: false,
    }),
  );
}

function connect(registryHost: string, options: PushOptions): { client: OciClient; http: OciHttp } {
  const plainHttp = options.plainHttp ?? true;
  const http = createOciHttp({
    registry: registryHost,
    hostPort: registryHostPort({ registry: registryHost, plainHttp }),
    plainHttp,
    ...(options.credentials ? { credentials: options.credentials } : {}),
    fetchImpl: fetch,
    timeoutMs: 30_000,
  });
  return { client: createOciClient({ registry: registryHost, plainHttp, http }), http };
}

/** A manifest or index as JSON; undefined when the registry has none under `reference`. */
async function getJson(
  http: OciHttp,
  repository: string,
  reference: string,
  accept: string,
): Promise<Record<string, unknown> | undefined> {
  const response = await http.send({
    method: 'GET',
    target: `/v2/${repository}/manifests/${reference}`,
    scope: `repository:${repository}:pull`,
    headers: { accept },
  });
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (response.status !== 200) throw await http.unexpected(response, `GET ${repository}:${reference}`);
  return (await response.json()) as Record<string, unknown>;
}

/** Media type and size of a manifest, for a `subject` descriptor. */
async function head(http: OciHttp, repository: string, digest: string): Promise<{ mediaType: string; size: number }> {
  const response = await http.send({
    method: 'HEAD',
    target: `/v2/${repository}/manifests/${digest}`,
    scope: `repository:${repository}:pull`,
    headers: { accept: IMAGE_MANIFEST_TYPES.join(', ') },
  });
  await response.body?.cancel();
  if (response.status !== 200) throw await http.unexpected(response, `HEAD ${repository}@${digest}`);
  return {
    mediaType: (response.headers.get('content-type') ?? MEDIA_TYPE_OCI_MANIFEST).split(';')[0]!.trim(),
    size: Number(response.headers.get('content-length') ?? '0'),
  };
}
