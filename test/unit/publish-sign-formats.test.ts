/**
 * The bytes cosign's formats are made of (payload, `.sig` image, statement, referrer, fallback
 * index, Rekor bundle annotation), and how signatures are attached on a registry that has the OCI
 * 1.1 referrers API (it takes the subject: no fallback index) and on one without it — with an
 * in-memory registry, so both kinds are covered (the integration test's distribution 2.8 has no API).
 */
import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { attachSignatures, prepareSignatures, type ArtifactSigner } from '../../src/publish/sign-artifact.js';
import {
  bundleReferrerManifest,
  cosignStatement,
  indexDescriptors,
  payloadDigest,
  referrersIndex,
  rekorBundleAnnotation,
  signatureImage,
  signatureTag,
  simpleSigningPayload,
  statementDigests,
} from '../../src/publish/sign-formats.js';
import { createKeySigner, loadSigningKey } from '../../src/publish/sign-key.js';
import type { SignatureRegistry, StoredManifest } from '../../src/publish/sign-registry.js';
import type { OciClient } from '../../src/source/oci/oci-client.js';

const DIGEST = `sha256:${'12'.repeat(32)}`;
const text = (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8');
const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

describe('cosign formats', () => {
  it('the simple-signing payload is byte for byte what cosign marshals, and its claim is read back', () => {
    const payload = simpleSigningPayload('ghcr.io/acme/capi-render/prod', DIGEST);
    expect(text(payload)).toBe(
      `{"critical":{"identity":{"docker-reference":"ghcr.io/acme/capi-render/prod"},"image":{"docker-manifest-digest":"${DIGEST}"},"type":"cosign container image signature"},"optional":null}`,
    );
    expect(payloadDigest(payload)).toBe(DIGEST);
    expect(payloadDigest(new TextEncoder().encode('{"critical":{"type":"other"}}'))).toBeUndefined();
    expect(signatureTag(DIGEST)).toBe(`sha256-${'12'.repeat(32)}.sig`);
  });

  it('the .sig image: OCI manifest, go-containerregistry config with one diff_id per layer, annotations in Go map order', () => {
    const layer = {
      mediaType: 'application/vnd.dev.cosign.simplesigning.v1+json',
      digest: DIGEST,
      size: 10,
      annotations: {
        'dev.sigstore.cosign/certificate': 'c',
        'dev.cosignproject.cosign/signature': 's',
        'dev.sigstore.cosign/bundle': 'b',
      },
    };
    const { config, manifest } = signatureImage([layer, { ...layer, digest: `sha256:${'34'.repeat(32)}` }]);
    const m = JSON.parse(text(manifest));
    expect(m).toMatchObject({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: { mediaType: 'application/vnd.oci.image.config.v1+json', size: config.length, digest: sha256(config) },
    });
    expect(Object.keys(m.layers[0].annotations)).toEqual([
      'dev.cosignproject.cosign/signature',
      'dev.sigstore.cosign/bundle',
      'dev.sigstore.cosign/certificate',
    ]);
    expect(JSON.parse(text(config))).toEqual({
      architecture: '',
      created: '0001-01-01T00:00:00Z',
      history: [{ created: '0001-01-01T00:00:00Z' }, { created: '0001-01-01T00:00:00Z' }],
      os: '',
      rootfs: { type: 'layers', diff_ids: [DIGEST, `sha256:${'34'.repeat(32)}`] },
      config: {},
    });
  });

  it('the statement, the referrer manifest and the fallback index', () => {
    const statement = cosignStatement(DIGEST);
    expect(JSON.parse(text(statement))).toEqual({
      _type: 'https://in-toto.io/Statement/v1',
      subject: [{ digest: { sha256: '12'.repeat(32) } }],
      predicateType: 'https://sigstore.dev/cosign/sign/v1',
      predicate: {},
    });
    expect(statementDigests(statement)).toEqual({
      predicateType: 'https://sigstore.dev/cosign/sign/v1',
      digests: [DIGEST],
    });
    const referrer = JSON.parse(
      text(
        bundleReferrerManifest(
          { mediaType: 'x', digest: `sha256:${'56'.repeat(32)}`, size: 99 },
          { mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: DIGEST, size: 500 },
          '2026-01-01T00:00:00Z',
        ),
      ),
    );
    expect(referrer).toEqual({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      config: {
        mediaType: 'application/vnd.oci.empty.v1+json',
        size: 2,
        digest: 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
      },
      layers: [
        { mediaType: 'application/vnd.dev.sigstore.bundle.v0.3+json', size: 99, digest: `sha256:${'56'.repeat(32)}` },
      ],
      subject: { mediaType: 'application/vnd.oci.image.manifest.v1+json', size: 500, digest: DIGEST },
      annotations: {
        'dev.sigstore.bundle.content': 'dsse-envelope',
        'dev.sigstore.bundle.predicateType': 'https://sigstore.dev/cosign/sign/v1',
        'org.opencontainers.image.created': '2026-01-01T00:00:00Z',
      },
    });
    const a = {
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: `sha256:${'aa'.repeat(32)}`,
      size: 1,
      artifactType: 't',
      annotations: { k: 'v' },
    };
    const b = { ...a, digest: `sha256:${'bb'.repeat(32)}` };
    const index = referrersIndex([a, b], { ...a, size: 2 });
    expect(JSON.parse(text(index)).mediaType).toBe('application/vnd.oci.image.index.v1+json');
    expect(indexDescriptors(index)).toEqual([b, { ...a, size: 2 }]);
  });

  it("cosign's Rekor bundle annotation: SET and body base64, integer time and index, hex log ID", () => {
    const keyId = Buffer.alloc(32, 7);
    const annotation = rekorBundleAnnotation({
      logIndex: '42',
      logId: { keyId: keyId.toString('base64') },
      integratedTime: '1767225600',
      inclusionPromise: { signedEntryTimestamp: 'U0VU' },
      canonicalizedBody: 'Qk9EWQ==',
    });
    expect(annotation).toBe(
      `{"SignedEntryTimestamp":"U0VU","Payload":{"body":"Qk9EWQ==","integratedTime":1767225600,"logIndex":42,"logID":"${keyId.toString('hex')}"}}`,
    );
    expect(
      rekorBundleAnnotation({ logIndex: '1', logId: { keyId: '' }, integratedTime: '0', canonicalizedBody: '' }),
    ).toBeUndefined();
  });
});

/** An in-memory registry: manifests by tag and digest, blobs, and the referrers API when `api`. */
function memoryRegistry(api: boolean) {
  const manifests = new Map<string, StoredManifest>();
  const blobs = new Map<string, Uint8Array>();
  const puts: string[] = [];
  const client = {
    pushBlob: async (_repo: string, bytes: Uint8Array) => {
      blobs.set(sha256(bytes), bytes);
      return sha256(bytes);
    },
    getBlob: async (_repo: string, digest: string) => blobs.get(digest)!,
  } as unknown as OciClient;
  const registry: SignatureRegistry = {
    client,
    repository: 'acme/prod',
    find: async (reference) => manifests.get(reference),
    async put(reference, bytes, mediaType) {
      const stored = { bytes, digest: sha256(bytes), mediaType };
      manifests.set(reference, stored);
      manifests.set(stored.digest, stored);
      puts.push(reference);
      return { digest: stored.digest, subjectAccepted: api && JSON.parse(text(bytes)).subject !== undefined };
    },
    async referrers(digest) {
      if (!api) {
        const fallback = manifests.get(digest.replace(':', '-'));
        return { descriptors: (fallback && indexDescriptors(fallback.bytes)) ?? [], api: false };
      }
      const descriptors = [...new Set([...manifests.values()])]
        .map((m) => ({ m, json: JSON.parse(text(m.bytes)) }))
        .filter(({ json }) => json.subject?.digest === digest)
        .map(({ m, json }) => ({
          mediaType: m.mediaType,
          digest: m.digest,
          size: m.bytes.length,
          artifactType: json.artifactType,
          annotations: json.annotations,
        }));
      return { descriptors, api: true };
    },
  };
  return { registry, manifests, puts };
}

describe('attaching signatures', () => {
  const keyPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const signer: ArtifactSigner = createKeySigner(loadSigningKey(keyPem, undefined, { file: 'k', passwordEnv: 'P' }));
  const target = { repositoryName: 'registry.example.com/acme/prod', digest: DIGEST, size: 512 };
  const now = () => new Date('2026-03-04T05:06:07.890Z');

  it('with the referrers API: the referrer is pushed by digest and the registry lists it; no fallback index; again, nothing is added', async () => {
    const { registry, manifests, puts } = memoryRegistry(true);
    const prepared = await prepareSignatures(target, signer);
    const signed = await attachSignatures(prepared, signer, registry, now);
    expect(signed.bundle.fallbackTag).toBeUndefined();
    expect(puts).toEqual([signatureTag(DIGEST), signed.bundle.digest]);
    expect(manifests.has(DIGEST.replace(':', '-'))).toBe(false);
    expect(
      JSON.parse(text(manifests.get(signed.bundle.digest)!.bytes)).annotations['org.opencontainers.image.created'],
    ).toBe('2026-03-04T05:06:07Z');
    const again = await attachSignatures(await prepareSignatures(target, signer), signer, registry, now);
    expect(again).toEqual({
      ...signed,
      legacy: { ...signed.legacy, reused: true },
      bundle: { ...signed.bundle, reused: true },
    });
    expect(puts).toHaveLength(2);
  });

  it('without it: the fallback index lists the referrer, keeping what it listed before', async () => {
    const { registry, manifests } = memoryRegistry(false);
    const foreign = {
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: `sha256:${'ef'.repeat(32)}`,
      size: 3,
      artifactType: 'application/spdx+json',
    };
    await registry.put(
      DIGEST.replace(':', '-'),
      referrersIndex([], foreign),
      'application/vnd.oci.image.index.v1+json',
    );
    const signed = await attachSignatures(await prepareSignatures(target, signer), signer, registry, now);
    expect(signed.bundle.fallbackTag).toBe(DIGEST.replace(':', '-'));
    const listed = indexDescriptors(manifests.get(DIGEST.replace(':', '-'))!.bytes)!;
    expect(listed.map((d) => d.digest)).toEqual([foreign.digest, signed.bundle.digest]);
    expect(listed[1]).toMatchObject({
      artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
      annotations: { 'dev.sigstore.bundle.predicateType': 'https://sigstore.dev/cosign/sign/v1' },
    });
  });

  it('refuses a .sig tag that is not a signature image', async () => {
    const { registry } = memoryRegistry(true);
    await registry.put(
      signatureTag(DIGEST),
      new TextEncoder().encode('{"manifests":[]}'),
      'application/vnd.oci.image.index.v1+json',
    );
    await expect(attachSignatures(await prepareSignatures(target, signer), signer, registry, now)).rejects.toThrow(
      /exists but is not a cosign signature image/,
    );
  });
});
