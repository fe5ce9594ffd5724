/**
 * Image signature verification (src/images/verify/) against a real registry (Debian's
 * docker-registry, distribution 2.8: no referrers API, so bundles are found through the
 * `sha256-<hex>` fallback index) holding images the tests push and sign offline with a local
 * Sigstore stand-in (test/helpers/cosign-signatures.ts: @sigstore/mock's Fulcio CA, CT log, Rekor
 * and TSA, installed as a custom trusted root). One row per outcome, each failure with its own
 * reason and message.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createImageRegistry, type ImageRegistry } from '../../src/images/registry/image-registry.js';
import { loadTrustedRoot, type TrustMaterialSource } from '../../src/images/verify/trusted-root.js';
import {
  SignatureVerificationError,
  verifyEvidence,
  verifyImage,
  type ImageVerification,
  type VerifyContext,
} from '../../src/images/verify/verify-image.js';
import { ruleFor, ruleId, type VerifyRule } from '../../src/images/verify/verify-rules.js';
import {
  attachBundleReferrer,
  createTestSigstore,
  signImageLegacy,
  type KeySigner,
  type KeylessSigner,
  type TestSigstore,
} from '../helpers/cosign-signatures.js';
import { rejectionOf } from '../helpers/errors.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { pushTestImage } from '../helpers/test-images.js';
import { suiteTempDir } from '../helpers/tmp.js';

const unavailable = registryUnavailableReason();
const skipRegistry = skipWithout(unavailable, 'the image verification tests');

const K8S = { identity: 'krel-trust@k8s-releng-prod.iam.gserviceaccount.com', issuer: 'https://accounts.google.com' };
const GITHUB = {
  identity: 'https://github.com/metal3-io/project-infra/.github/workflows/container-image-build.yml@refs/heads/main',
  issuer: 'https://token.actions.githubusercontent.com',
};

describe.skipIf(skipRegistry)('image signature verification', () => {
  const dir = suiteTempDir('capi-render-verify-');
  const repoRoot = path.join(dir, 'repo');
  let registry: TestRegistry;
  let sigstore: TestSigstore;
  let trust: TrustMaterialSource;
  let client: ImageRegistry;
  let k8s: KeylessSigner;
  let metal3: KeylessSigner;
  let key: KeySigner;
  let rules: VerifyRule[];
  let ctx: VerifyContext;
  let counter = 0;

  beforeAll(async () => {
    registry = await startRegistry();
    mkdirSync(repoRoot, { recursive: true });
    sigstore = await createTestSigstore(dir);
    trust = loadTrustedRoot(sigstore.trustedRootPath);
    client = createImageRegistry({ env: {}, insecureRegistries: [registry.host] });
    k8s = await sigstore.keyless(K8S);
    metal3 = await sigstore.keyless(GITHUB);
    key = sigstore.key();
    mkdirSync(path.join(repoRoot, 'keys'), { recursive: true });
    writeFileSync(path.join(repoRoot, 'keys/cosign.pub'), key.publicKeyPem);
    rules = [
      { images: `${registry.host}/cluster-api/*`, keyless: K8S },
      {
        images: `${registry.host}/metal3-io/*`,
        keyless: {
          issuer: GITHUB.issuer,
          identityRegExp:
            '^https://github\\.com/metal3-io/project-infra/\\.github/workflows/container-image-build\\.yml@refs/heads/main$',
        },
      },
      { images: `${registry.host}/internal/*`, key: 'keys/cosign.pub' },
    ];
    ctx = { registry: client, repoRoot, trustedRoot: trust };
  });
  afterAll(async () => {
    await registry?.stop();
  });

  /** A fresh image under `group/` (so the group's rule applies), pushed as an index when `platforms`. */
  async function image(group: 'cluster-api' | 'metal3-io' | 'internal', options: { platforms?: string[] } = {}) {
    const repository = `${group}/controller-${++counter}`;
    const pushed = await pushTestImage(registry.host, repository, 'v1.0.0', options);
    return {
      reference: `${registry.host}/${repository}:v1.0.0`,
      registry: registry.host,
      repository,
      digest: pushed.digest,
    };
  }
  /** Verifies from the registry, then proves the evidence it returns verifies again with no registry at all. */
  const verify = async (img: Awaited<ReturnType<typeof image>>): Promise<ImageVerification> => {
    const result = await verifyImage(img, ruleFor(rules, img.reference)!, ctx);
    expect(verifyEvidence(img, ruleFor(rules, img.reference)!, result, { repoRoot, trustedRoot: trust })).toEqual(
      result,
    );
    return result;
  };
  const failure = async (img: Awaited<ReturnType<typeof image>>) =>
    rejectionOf(SignatureVerificationError, verify(img));

  it('passes a keyless legacy signature (.sig tag, Rekor bundle annotation) on a multi-platform index', async () => {
    const img = await image('cluster-api', { platforms: ['linux/amd64', 'linux/arm64'] });
    await signImageLegacy(registry.host, img.repository, img.digest, k8s);
    const result = await verify(img);
    expect(result).toEqual({
      rule: ruleId(rules[0]!),
      method: 'keyless',
      format: 'legacy-tag',
      identity: K8S.identity,
      issuer: K8S.issuer,
      evidence: expect.any(String),
    });
    expect(result.rule).toMatch(/^sha256:[0-9a-f]{12}$/);
  });

  it('passes a keyless Sigstore bundle referrer found through the fallback tag, with an identity regexp', async () => {
    const img = await image('metal3-io');
    const attached = await attachBundleReferrer(registry.host, img.repository, img.digest, metal3);
    const found = await client.referrers(img);
    expect(found.source).toBe('fallback-tag');
    expect(found.manifests.map((m) => m.digest)).toEqual([attached.manifestDigest]);
    expect(await verify(img)).toEqual({
      rule: ruleId(rules[1]!),
      method: 'keyless',
      format: 'bundle',
      identity: GITHUB.identity,
      issuer: GITHUB.issuer,
      evidence: expect.any(String),
    });
  });

  it('passes a key signature without a transparency-log entry, legacy (SHA-256 and SHA-512) and as a bundle', async () => {
    const legacy = await image('internal');
    await signImageLegacy(registry.host, legacy.repository, legacy.digest, key);
    const keyPem = key.publicKeyPem;
    expect(await verify(legacy)).toEqual({
      rule: ruleId(rules[2]!, keyPem),
      method: 'key',
      format: 'legacy-tag',
      evidence: expect.any(String),
    });
    expect(ruleId(rules[2]!, keyPem)).not.toBe(ruleId(rules[2]!));

    const sha512 = await image('internal');
    await signImageLegacy(registry.host, sha512.repository, sha512.digest, key, { digestAlgorithm: 'sha512' });
    expect((await verify(sha512)).format).toBe('legacy-tag');

    const bundled = await image('internal');
    await attachBundleReferrer(registry.host, bundled.repository, bundled.digest, key);
    expect(await verify(bundled)).toMatchObject({ method: 'key', format: 'bundle' });
  });

  it('passes a keyless signature whose time comes from an RFC 3161 timestamp instead of the log', async () => {
    const img = await image('cluster-api');
    await signImageLegacy(registry.host, img.repository, img.digest, k8s, { transparencyLog: false, timestamp: true });
    expect((await verify(img)).format).toBe('legacy-tag');
  });

  it('fails an unsigned image: no signature found, saying where it looked', async () => {
    const img = await image('cluster-api');
    const err = await failure(img);
    expect(err.reason).toBe('no-signature');
    expect(err.code).toBe('image');
    expect(err.diagnostics[0]!.field).toBe('imagePolicy.verify[0]');
    expect(err.message).toContain(
      `image ${img.reference}@${img.digest}: imagePolicy.verify[0] (keyless (issuer ${K8S.issuer}, identity ${K8S.identity})): no signature found`,
    );
    expect(err.message).toContain(
      `the referrers of ${img.digest} (neither the referrers API nor the fallback tag ${img.digest.replace(':', '-')} exists`,
    );
    expect(err.message).toContain(`the cosign signature tag ${img.digest.replace(':', '-')}.sig (absent)`);
  });

  it('fails a wrong identity, naming the expected and the found one', async () => {
    const img = await image('cluster-api');
    await signImageLegacy(
      registry.host,
      img.repository,
      img.digest,
      await sigstore.keyless({ identity: 'mallory@example.com', issuer: K8S.issuer }),
    );
    const err = await failure(img);
    expect(err.reason).toBe('wrong-identity');
    expect(err.message).toContain(
      `wrong identity: expected identity "${K8S.identity}", the certificate is for "mallory@example.com"`,
    );
  });

  it('fails a wrong issuer, naming the expected and the found one', async () => {
    const img = await image('cluster-api');
    await signImageLegacy(
      registry.host,
      img.repository,
      img.digest,
      await sigstore.keyless({ identity: K8S.identity, issuer: 'https://issuer.example.com' }),
    );
    const err = await failure(img);
    expect(err.reason).toBe('wrong-issuer');
    expect(err.message).toContain(
      `wrong issuer: expected issuer "${K8S.issuer}", the certificate was issued for "https://issuer.example.com"`,
    );
  });

  it('fails a tampered payload as a bad signature, legacy and bundle, keyless and key', async () => {
    const legacy = await image('cluster-api');
    await signImageLegacy(registry.host, legacy.repository, legacy.digest, k8s, { tamper: true });
    const a = await failure(legacy);
    expect(a.reason).toBe('bad-signature');
    expect(a.message).toContain('bad signature: the transparency-log entry records another signature or payload');

    const bundled = await image('metal3-io');
    await attachBundleReferrer(registry.host, bundled.repository, bundled.digest, metal3, { tamper: true });
    expect((await failure(bundled)).reason).toBe('bad-signature');

    const keyed = await image('internal');
    await signImageLegacy(registry.host, keyed.repository, keyed.digest, key, { tamper: true });
    const c = await failure(keyed);
    expect(c.reason).toBe('bad-signature');
    expect(c.message).toContain('bad signature: it does not verify over the payload with the key keys/cosign.pub');
  });

  it('fails an expired certificate without a transparency-log entry or timestamp', async () => {
    const img = await image('cluster-api');
    const old = await sigstore.keyless(K8S, { at: new Date(Date.now() - 60 * 60 * 1000) });
    await signImageLegacy(registry.host, img.repository, img.digest, old, { transparencyLog: false });
    const err = await failure(img);
    expect(err.reason).toBe('expired-certificate');
    expect(err.message).toContain(
      `expired certificate without a transparency-log entry or signed timestamp: the certificate was valid ${old.notBefore.toISOString()} to ${old.notAfter.toISOString()}`,
    );
  });

  it("passes a certificate that has expired since signing: its validity is checked at the log's time, not now", async () => {
    const img = await image('cluster-api');
    await signImageLegacy(registry.host, img.repository, img.digest, k8s);
    const later = { ...ctx, now: new Date(k8s.notAfter.getTime() + 24 * 60 * 60 * 1000) };
    expect((await verifyImage(img, ruleFor(rules, img.reference)!, later)).identity).toBe(K8S.identity);
    const unlogged = await image('cluster-api');
    await signImageLegacy(registry.host, unlogged.repository, unlogged.digest, k8s, { transparencyLog: false });
    expect(
      (await rejectionOf(SignatureVerificationError, verifyImage(unlogged, ruleFor(rules, unlogged.reference)!, later)))
        .reason,
    ).toBe('expired-certificate');
  });

  it('fails a current certificate without a transparency-log entry or timestamp too', async () => {
    const img = await image('cluster-api');
    await signImageLegacy(registry.host, img.repository, img.digest, k8s, { transparencyLog: false });
    const err = await failure(img);
    expect(err.reason).toBe('no-timestamp');
    expect(err.message).toContain('no transparency-log entry or signed timestamp: a keyless signature needs one');
  });

  it('fails a signature of another digest, legacy and bundle', async () => {
    const other = await image('cluster-api');
    const legacy = await image('cluster-api');
    await signImageLegacy(registry.host, legacy.repository, legacy.digest, k8s, { claimedDigest: other.digest });
    const a = await failure(legacy);
    expect(a.reason).toBe('other-digest');
    expect(a.message).toContain(
      `signature is for another digest: it signs ${other.digest}, the pinned image is ${legacy.digest}`,
    );

    const bundled = await image('metal3-io');
    await attachBundleReferrer(registry.host, bundled.repository, bundled.digest, metal3, {
      claimedDigest: other.digest,
    });
    const b = await failure(bundled);
    expect(b.reason).toBe('other-digest');
    expect(b.message).toContain(`it signs ${other.digest}, the pinned image is ${bundled.digest}`);
  });

  it('fails a certificate from a CA the trusted root does not list', async () => {
    const elsewhere = await createTestSigstore(path.join(dir, 'elsewhere'));
    const img = await image('cluster-api');
    await signImageLegacy(registry.host, img.repository, img.digest, await elsewhere.keyless(K8S));
    const err = await failure(img);
    expect(err.reason).toBe('untrusted-certificate');
    expect(err.message).toContain('untrusted certificate: Failed to verify certificate chain');
    expect(err.message).toContain(`the trusted root ${sigstore.trustedRootPath}`);
  });

  it('fails a key signature under a keyless rule, and ignores attestations among the referrers', async () => {
    const keyed = await image('cluster-api');
    await signImageLegacy(registry.host, keyed.repository, keyed.digest, key);
    expect((await failure(keyed)).reason).toBe('not-keyless');

    const attested = await image('metal3-io');
    await attachBundleReferrer(registry.host, attested.repository, attested.digest, metal3, {
      predicateType: 'https://spdx.dev/Document',
    });
    const err = await failure(attested);
    expect(err.reason).toBe('no-signature');
    expect(err.message).toContain('1 referrer, 0 a signature bundle');
  });

  it('passes when any signature satisfies the rule, and lists every reason when none does', async () => {
    const img = await image('cluster-api');
    await signImageLegacy(registry.host, img.repository, img.digest, metal3);
    await signImageLegacy(registry.host, img.repository, img.digest, k8s);
    // The second signature is the one that satisfies the rule: its identity is the one recorded.
    expect((await verify(img)).identity).toBe(K8S.identity);

    const bad = await image('cluster-api');
    await signImageLegacy(registry.host, bad.repository, bad.digest, metal3);
    await signImageLegacy(registry.host, bad.repository, bad.digest, k8s, { transparencyLog: false });
    const err = await failure(bad);
    expect(err.reason).toBe('wrong-identity');
    expect(err.message).toContain('none of 2 signatures satisfies the rule');
    expect(err.message).toContain('layer 0: wrong identity');
    expect(err.message).toContain('layer 1: no transparency-log entry or signed timestamp');
  });

  it('fails a log entry or timestamp the trusted root cannot verify', async () => {
    const root = structuredClone(sigstore.trustedRoot) as {
      tlogs: { publicKey: { rawBytes: string }; logId: { keyId: string } }[];
      timestampAuthorities: unknown[];
    };
    const other = (await createTestSigstore(path.join(dir, 'foreign'))).trustedRoot as typeof root;
    root.tlogs = other.tlogs;
    root.timestampAuthorities = other.timestampAuthorities;
    const file = path.join(dir, 'foreign-logs.json');
    writeFileSync(file, JSON.stringify(root));
    const foreign = { ...ctx, trustedRoot: loadTrustedRoot(file) };

    const logged = await image('cluster-api');
    await signImageLegacy(registry.host, logged.repository, logged.digest, k8s);
    const a = await rejectionOf(
      SignatureVerificationError,
      verifyImage(logged, ruleFor(rules, logged.reference)!, foreign),
    );
    expect(a.reason).toBe('untrusted-log-entry');
    expect(a.message).toContain(
      `untrusted transparency-log entry: inclusion promise could not be verified, checked against the logs of the trusted root ${file}`,
    );

    const stamped = await image('cluster-api');
    await signImageLegacy(registry.host, stamped.repository, stamped.digest, k8s, {
      transparencyLog: false,
      timestamp: true,
    });
    const b = await rejectionOf(
      SignatureVerificationError,
      verifyImage(stamped, ruleFor(rules, stamped.reference)!, foreign),
    );
    expect(b.reason).toBe('untrusted-timestamp');
    expect(b.message).toContain('untrusted timestamp: timestamp could not be verified');
  });

  it('reads the referrers API when the registry has one (filtered by artifact type, pages followed)', async () => {
    const img = await image('metal3-io');
    await attachBundleReferrer(registry.host, img.repository, img.digest, metal3, {
      predicateType: 'https://spdx.dev/Document',
    });
    await attachBundleReferrer(registry.host, img.repository, img.digest, metal3);
    const fallback = (await client.manifest({ ...img, reference: img.digest.replace(':', '-') }))!.json as {
      manifests: unknown[];
    };
    const unrelated = {
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: `sha256:${'0'.repeat(64)}`,
      size: 10,
      artifactType: 'application/spdx+json',
    };
    const pages = [[unrelated, fallback.manifests[0]], [fallback.manifests[1]]];
    const asked: string[] = [];
    // distribution 2.8 has no referrers API: answer it here from what the fallback index lists, in two pages.
    const withApi = (async (input: string | URL | Request, init?: RequestInit) => {
      const url = new URL(input instanceof Request ? input.url : String(input));
      if (url.pathname === `/v2/${img.repository}/referrers/${img.digest}`) {
        asked.push(url.search);
        const page = Number(url.searchParams.get('page') ?? '0');
        const headers: Record<string, string> = { 'content-type': 'application/vnd.oci.image.index.v1+json' };
        if (page === 0) headers.link = `</v2/${img.repository}/referrers/${img.digest}?page=1>; rel="next"`;
        return new Response(
          JSON.stringify({
            schemaVersion: 2,
            mediaType: 'application/vnd.oci.image.index.v1+json',
            manifests: pages[page],
          }),
          { status: 200, headers },
        );
      }
      return fetch(input, init);
    }) as typeof fetch;
    const apiClient = createImageRegistry({ env: {}, insecureRegistries: [registry.host], fetch: withApi });
    const all = await apiClient.referrers(img);
    expect(all.source).toBe('api');
    expect(all.manifests).toHaveLength(3);
    expect(
      (await apiClient.referrers(img, { artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json' })).manifests,
    ).toHaveLength(2);
    expect(await verifyImage(img, ruleFor(rules, img.reference)!, { ...ctx, registry: apiClient })).toMatchObject({
      format: 'bundle',
    });
    expect(asked).toContain('?page=1');
  });

  it('names a missing key file', async () => {
    const img = await image('internal');
    const err = await rejectionOf(
      SignatureVerificationError,
      verifyImage(img, { rule: { images: '*', key: 'keys/missing.pub' }, index: 3 }, ctx),
    );
    expect(err.reason).toBe('key-file');
    expect(err.message).toContain(
      'imagePolicy.verify[3] (key keys/missing.pub): the key file keys/missing.pub does not exist in the repository',
    );
  });

  it('loads the shipped public-good root, which does not trust the test CA', async () => {
    const shipped = loadTrustedRoot(undefined);
    expect(shipped.kind).toBe('public-good');
    expect(shipped.root.certificateAuthorities.length).toBeGreaterThan(0);
    expect(shipped.digest).toBe('sha256:6494e21ea73fa7ee769f85f57d5a3e6a08725eae1e38c755fc3517c9e6bc0b66');
    const img = await image('cluster-api');
    await signImageLegacy(registry.host, img.repository, img.digest, k8s);
    const err = await rejectionOf(
      SignatureVerificationError,
      verifyImage(img, ruleFor(rules, img.reference)!, { ...ctx, trustedRoot: shipped }),
    );
    expect(err.reason).toBe('untrusted-certificate');
    expect(err.message).toContain('the Sigstore public-good trusted root shipped with capi-render');
  });

  it('evidence kept in a lock proves only what it signs: another digest, an edited byte, another rule or garbage fail offline', async () => {
    const offline = { repoRoot, trustedRoot: trust };
    const a = await image('cluster-api');
    const b = await image('cluster-api');
    await signImageLegacy(registry.host, a.repository, a.digest, k8s);
    const proved = await verify(a);
    const evidenceFailure = (img: typeof a, record: ImageVerification, rule = ruleFor(rules, img.reference)!) => {
      try {
        verifyEvidence(img, rule, record, offline);
      } catch (e) {
        expect(e).toBeInstanceOf(SignatureVerificationError);
        return e as SignatureVerificationError;
      }
      throw new Error('the evidence verified');
    };
    // The digest beside the record edited: the evidence signs the other one.
    expect(evidenceFailure(b, proved).reason).toBe('other-digest');
    // One character of the signed payload changed.
    const body = JSON.parse(Buffer.from(proved.evidence!, 'base64').toString('utf8')) as { payload: string };
    const payload = Buffer.from(body.payload, 'base64');
    payload[payload.length - 3]! ^= 1;
    const edited = Buffer.from(JSON.stringify({ ...body, payload: payload.toString('base64') })).toString('base64');
    expect(['bad-signature', 'unreadable']).toContain(evidenceFailure(a, { ...proved, evidence: edited }).reason);
    // The rule now wants another identity: the same evidence no longer passes.
    expect(
      evidenceFailure(a, proved, {
        rule: { images: `${registry.host}/cluster-api/*`, keyless: { ...K8S, identity: 'someone@example.com' } },
        index: 0,
      }).reason,
    ).toBe('wrong-identity');
    // Not evidence at all, evidence of the other format, none.
    for (const evidence of [
      'not base64!',
      Buffer.from('{"bundle":{}}').toString('base64'),
      Buffer.from('[]').toString('base64'),
      undefined,
    ]) {
      expect(
        evidenceFailure(a, { ...proved, ...(evidence === undefined ? { evidence: undefined } : { evidence }) }).reason,
      ).toBe('unreadable');
    }
  });
});
