/**
 * `capi-render publish --sign-key / --sign-keyless` against a real registry (Debian's
 * docker-registry, distribution 2.8: no referrers API, so the bundle lands in the fallback index)
 * and a local Sigstore (@sigstore/mock's Fulcio and Rekor behind --fulcio-url/--rekor-url). Every
 * signature is read back and checked the way cosign and Flux check it: the `.sig` image's
 * simple-signing payload names the pushed digest and its signature verifies with the public key
 * (or the Fulcio certificate, with the Rekor SET), and the referrer's Sigstore bundle verifies with
 * @sigstore/verify — key mode with no transparency log (as Flux does), keyless against the stand-in's
 * trust material with the expected identity.
 */
import {
  X509Certificate,
  createHash,
  createPublicKey,
  generateKeyPairSync,
  verify as verifySignature,
} from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleFromJSON } from '@sigstore/bundle';
import { Verifier, toSignedEntity, type TrustMaterial } from '@sigstore/verify';
import jsYaml from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COSIGN_KEY } from '../helpers/cosign-test-key.js';
import { createOciClient } from '../../src/source/oci/oci-client.js';
import { runCli } from '../helpers/cli.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { copyExample } from '../helpers/repo.js';
import { startSigstoreStandIn, unsignedJwt, type SigstoreStandIn } from '../helpers/sigstore-stand-in.js';

const unavailable = registryUnavailableReason();
const skipRegistry = skipWithout(unavailable, 'the publish signing tests');

const REMOTE = 'https://github.com/example/capi-render-example.git';
const NAMED = ['--source', REMOTE, '--revision', `main@sha1:${'0'.repeat(40)}`];
const INDEX = 'application/vnd.oci.image.index.v1+json';
const MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
const BUNDLE_TYPE = 'application/vnd.dev.sigstore.bundle.v0.3+json';

const COSIGN_PASSWORD = 'hello';
/** Its public key: what cosign.pub holds, and the Flux Secret. */
const COSIGN_PUB = `-----BEGIN PUBLIC KEY-----
MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE7z9gA/tqa9iHt/f9F3ulyVi4lwqU
LfHWfhG2mK4eyJ8LDcLstb+VVhxj3pkMjc3fNo+sSfiIY2NLR7c+DG1V4w==
-----END PUBLIC KEY-----
`;

const GITHUB_ISSUER = 'https://token.actions.githubusercontent.com';
const WORKFLOW_IDENTITY = 'https://github.com/acme/fleet/.github/workflows/publish.yaml@refs/heads/main';

interface Fetched {
  bytes: Uint8Array;
  json: any;
}

/** The registry as cosign and Flux see it: manifests by tag or digest (any type), blobs, the referrers answer. */
function reader(host: string) {
  const client = createOciClient({ registry: host, plainHttp: true });
  return {
    async manifest(repo: string, reference: string, accept = `${MANIFEST}, ${INDEX}`): Promise<Fetched | undefined> {
      const response = await fetch(`http://${host}/v2/${repo}/manifests/${reference}`, { headers: { accept } });
      if (response.status === 404) return undefined;
      expect(response.status).toBe(200);
      const bytes = new Uint8Array(await response.arrayBuffer());
      return { bytes, json: JSON.parse(Buffer.from(bytes).toString('utf8')) };
    },
    blob: (repo: string, digest: string, size?: number) => client.getBlob(repo, digest, size),
    async referrersStatus(repo: string, digest: string): Promise<number> {
      const response = await fetch(`http://${host}/v2/${repo}/referrers/${digest}`, { headers: { accept: INDEX } });
      await response.body?.cancel();
      return response.status;
    },
    async tags(repo: string): Promise<string[]> {
      const response = await fetch(`http://${host}/v2/${repo}/tags/list`);
      if (response.status === 404) return [];
      return ((await response.json()) as { tags?: string[] }).tags ?? [];
    },
  };
}

const sha256 = (bytes: Uint8Array) => `sha256:${createHash('sha256').update(bytes).digest('hex')}`;

/** The legacy signature of `digest` as cosign reads it: the `.sig` image's layers, each with its payload. */
async function legacySignatures(r: ReturnType<typeof reader>, repo: string, digest: string) {
  const sig = await r.manifest(repo, `${digest.replace(':', '-')}.sig`, MANIFEST);
  expect(sig, 'the .sig tag').toBeDefined();
  expect(sig!.json.mediaType).toBe(MANIFEST);
  expect(sig!.json.config.mediaType).toBe('application/vnd.oci.image.config.v1+json');
  const config = JSON.parse(
    Buffer.from(await r.blob(repo, sig!.json.config.digest, sig!.json.config.size)).toString('utf8'),
  );
  const layers = await Promise.all(
    (
      sig!.json.layers as { mediaType: string; digest: string; size: number; annotations: Record<string, string> }[]
    ).map(async (layer) => {
      expect(layer.mediaType).toBe('application/vnd.dev.cosign.simplesigning.v1+json');
      const payload = await r.blob(repo, layer.digest, layer.size);
      return { payload, json: JSON.parse(Buffer.from(payload).toString('utf8')), annotations: layer.annotations };
    }),
  );
  expect(config.rootfs.diff_ids).toEqual(sig!.json.layers.map((l: { digest: string }) => l.digest));
  return { digest: sha256(sig!.bytes), layers };
}

/** The Sigstore bundle referrers of `digest`: from the referrers API, or (distribution 2.8) the fallback tag's index. */
async function bundleReferrers(r: ReturnType<typeof reader>, repo: string, digest: string) {
  expect(await r.referrersStatus(repo, digest), 'distribution 2.8 has no referrers API').toBe(404);
  const index = await r.manifest(repo, digest.replace(':', '-'), INDEX);
  expect(index, 'the fallback referrers index').toBeDefined();
  expect(index!.json.mediaType).toBe(INDEX);
  const entries = (
    index!.json.manifests as { digest: string; artifactType: string; annotations: Record<string, string> }[]
  ).filter((m) => m.artifactType === BUNDLE_TYPE);
  return Promise.all(
    entries.map(async (entry) => {
      expect(entry.annotations['dev.sigstore.bundle.predicateType']).toBe('https://sigstore.dev/cosign/sign/v1');
      const manifest = (await r.manifest(repo, entry.digest, MANIFEST))!;
      expect(sha256(manifest.bytes)).toBe(entry.digest);
      expect(manifest.json.artifactType).toBe(BUNDLE_TYPE);
      expect(manifest.json.config).toMatchObject({ mediaType: 'application/vnd.oci.empty.v1+json', size: 2 });
      expect(manifest.json.subject).toMatchObject({ mediaType: MANIFEST, digest });
      expect(manifest.json.layers).toHaveLength(1);
      expect(manifest.json.layers[0].mediaType).toBe(BUNDLE_TYPE);
      const json = JSON.parse(
        Buffer.from(await r.blob(repo, manifest.json.layers[0].digest, manifest.json.layers[0].size)).toString('utf8'),
      );
      return { digest: entry.digest, json, bundle: bundleFromJSON(json) };
    }),
  );
}

/** The in-toto statement of a DSSE bundle: its subject digests must name the artifact. */
function statementOf(bundle: ReturnType<typeof bundleFromJSON>): {
  predicateType: string;
  subject: { digest: Record<string, string> }[];
} {
  if (bundle.content.$case !== 'dsseEnvelope') throw new Error('not a DSSE bundle');
  expect(bundle.content.dsseEnvelope.payloadType).toBe('application/vnd.in-toto+json');
  return JSON.parse(bundle.content.dsseEnvelope.payload.toString('utf8'));
}

/** Trust material of one public key, verified with no log and no timestamp: Flux's key mode. */
function keyTrust(publicKeyPem: string): TrustMaterial {
  const publicKey = createPublicKey(publicKeyPem);
  return {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: () => ({ publicKey, validFor: () => true }),
  };
}

describe.skipIf(skipRegistry)('publish signs the Flux artifact (real registry, local Sigstore)', () => {
  let registry: TestRegistry;
  let sigstore: SigstoreStandIn;
  let r: ReturnType<typeof reader>;
  let repo: string;
  let keys: string;
  // Shared by the tests of this file (tempDir() belongs to one test): removed after the last one.
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'capi-render-publish-sign-'));
  const cache = path.join(scratch, 'cache');
  const env = (extra: Record<string, string> = {}) => ({
    CAPI_RENDER_CACHE_DIR: cache,
    GIT_CEILING_DIRECTORIES: path.dirname(repo),
    PATH: process.env.PATH ?? '',
    ...extra,
  });
  beforeAll(async () => {
    [registry, sigstore] = await Promise.all([startRegistry(), startSigstoreStandIn()]);
    r = reader(registry.host);
    repo = copyExample({ committed: true, dir: path.join(scratch, 'repo') });
    keys = path.join(scratch, 'repo-keys');
    mkdirSync(keys);
    writeFileSync(path.join(keys, 'cosign.key'), COSIGN_KEY);
  });
  afterAll(async () => {
    await Promise.all([registry?.stop(), sigstore?.stop()]);
    rmSync(scratch, { recursive: true, force: true });
  });

  it('--sign-key with a cosign key: a .sig signature and a bundle referrer that verify as cosign and Flux verify them; the artifact digest is unchanged; publishing again adds nothing', async () => {
    const unsigned = await runCli(
      ['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/dev:unsigned`, ...NAMED],
      { cwd: repo, env: env() },
    );
    expect(unsigned.code, unsigned.stderr).toBe(0);
    const digest = unsigned.stdout.trim();
    expect(await r.tags('capi/dev')).toEqual(['unsigned']);

    const args = [
      'publish',
      '--env',
      'dev',
      '--oci',
      `http://${registry.host}/capi/dev:v1`,
      '--sign-key',
      path.join(keys, 'cosign.key'),
      '--json',
      ...NAMED,
    ];
    const signed = await runCli(args, { cwd: repo, env: env({ COSIGN_PASSWORD }) });
    expect(signed.code, signed.stderr).toBe(0);
    const out = JSON.parse(signed.stdout);
    // Signatures are separate manifests: the same content still has the same digest, under both tags.
    expect(out.digest).toBe(digest);
    expect(sha256((await r.manifest('capi/dev', 'v1', MANIFEST))!.bytes)).toBe(digest);
    expect(signed.stderr).toMatch(
      /signed http:\/\/.*@sha256:[a-f0-9]{64} \(key\): signature sha256-[a-f0-9]{64}\.sig, bundle referrer sha256:[a-f0-9]{64}, listed in sha256-[a-f0-9]{64}/,
    );
    expect(signed.stdout + signed.stderr).not.toContain(COSIGN_PASSWORD + '"');

    const legacy = await legacySignatures(r, 'capi/dev', digest);
    expect(out.signatures).toMatchObject({
      mode: 'key',
      legacy: { tag: `${digest.replace(':', '-')}.sig`, digest: legacy.digest },
      bundle: { artifactType: BUNDLE_TYPE, fallbackTag: digest.replace(':', '-') },
    });
    expect(legacy.layers).toHaveLength(1);
    const [layer] = legacy.layers;
    expect(layer!.json).toEqual({
      critical: {
        identity: { 'docker-reference': `${registry.host}/capi/dev` },
        image: { 'docker-manifest-digest': digest },
        type: 'cosign container image signature',
      },
      optional: null,
    });
    expect(Object.keys(layer!.annotations)).toEqual(['dev.cosignproject.cosign/signature']);
    const publicKeyPem = COSIGN_PUB;
    // cosign's SimpleClaimVerifier and Flux's SHA-256 ECDSA verifier, over the payload bytes as stored.
    expect(
      verifySignature(
        'sha256',
        layer!.payload,
        createPublicKey(publicKeyPem),
        Buffer.from(layer!.annotations['dev.cosignproject.cosign/signature']!, 'base64'),
      ),
    ).toBe(true);
    expect(
      verifySignature(
        'sha256',
        Buffer.from('{"other":"payload"}'),
        createPublicKey(publicKeyPem),
        Buffer.from(layer!.annotations['dev.cosignproject.cosign/signature']!, 'base64'),
      ),
    ).toBe(false);

    const referrers = await bundleReferrers(r, 'capi/dev', digest);
    expect(referrers.map((b) => b.digest)).toEqual([out.signatures.bundle.digest]);
    const { bundle, json } = referrers[0]!;
    expect(json.mediaType).toBe(BUNDLE_TYPE);
    expect(json.verificationMaterial.publicKey.hint).toBe(
      createHash('sha256')
        .update(createPublicKey(publicKeyPem).export({ format: 'der', type: 'spki' }))
        .digest('base64'),
    );
    expect(json.verificationMaterial.tlogEntries ?? []).toEqual([]);
    // Flux ≥ 2.8 in key mode: the key, no transparency log, no timestamp.
    new Verifier(keyTrust(publicKeyPem), { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(
      toSignedEntity(bundle),
    );
    const other = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .publicKey.export({ format: 'pem', type: 'spki' })
      .toString();
    expect(() =>
      new Verifier(keyTrust(other), { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(
        toSignedEntity(bundle),
      ),
    ).toThrow(/signature/i);
    const statement = statementOf(bundle);
    expect(statement.predicateType).toBe('https://sigstore.dev/cosign/sign/v1');
    expect(statement.subject.map((s) => `sha256:${s.digest.sha256}`)).toEqual([digest]);

    // Again with the same key and content: the signatures already there are kept, nothing is added.
    const again = await runCli(args, { cwd: repo, env: env({ COSIGN_PASSWORD }) });
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(again.stdout).signatures).toEqual(out.signatures);
    expect(again.stderr).toContain('(already there)');
    expect((await legacySignatures(r, 'capi/dev', digest)).digest).toBe(legacy.digest);
    expect((await bundleReferrers(r, 'capi/dev', digest)).map((b) => b.digest)).toEqual([out.signatures.bundle.digest]);
  }, 120_000);

  it('a PKCS#8 PEM key signs too, and its signature is appended beside an existing one (as cosign appends)', async () => {
    const first = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const second = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const files = [first, second].map((k, i) => {
      const file = path.join(keys, `pkcs8-${i}.pem`);
      writeFileSync(file, k.privateKey.export({ format: 'pem', type: 'pkcs8' }));
      return file;
    });
    let digest = '';
    for (const file of files) {
      const run = await runCli(
        ['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/pkcs8:v1`, '--sign-key', file, ...NAMED],
        { cwd: repo, env: env() },
      );
      expect(run.code, run.stderr).toBe(0);
      digest = run.stdout.trim();
    }
    const legacy = await legacySignatures(r, 'capi/pkcs8', digest);
    expect(legacy.layers).toHaveLength(2);
    legacy.layers.forEach((layer, i) => {
      const key = [first, second][i]!.publicKey;
      expect(
        verifySignature(
          'sha256',
          layer.payload,
          key,
          Buffer.from(layer.annotations['dev.cosignproject.cosign/signature']!, 'base64'),
        ),
        `layer ${i}`,
      ).toBe(true);
    });
    const referrers = await bundleReferrers(r, 'capi/pkcs8', digest);
    expect(referrers).toHaveLength(2);
    for (const [i, { bundle }] of referrers.entries()) {
      const pem = [first, second][i]!.publicKey.export({ format: 'pem', type: 'spki' }).toString();
      new Verifier(keyTrust(pem), { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 }).verify(
        toSignedEntity(bundle),
      );
    }
  }, 120_000);

  it('a wrong or missing password fails with a clear error, prints no secret and pushes nothing', async () => {
    const secret = 'Tr0ub4dor&3-not-the-password';
    const wrong = await runCli(
      [
        'publish',
        '--env',
        'dev',
        '--oci',
        `http://${registry.host}/capi/refused:v1`,
        '--sign-key',
        path.join(keys, 'cosign.key'),
        ...NAMED,
      ],
      { cwd: repo, env: env({ COSIGN_PASSWORD: secret }) },
    );
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /error\[publish\]: --sign-key .*cosign\.key: cannot decrypt the key with the password in \$COSIGN_PASSWORD/,
    );
    expect(wrong.stderr).toMatch(/hint: set \$COSIGN_PASSWORD to the key's password/);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).not.toContain(secret);
    // Another variable, named by the flag and not set.
    const unset = await runCli(
      [
        'publish',
        '--env',
        'dev',
        '--oci',
        `http://${registry.host}/capi/refused:v1`,
        '--sign-key',
        path.join(keys, 'cosign.key'),
        '--sign-key-password-env',
        'CAPI_KEY_PASSWORD',
        ...NAMED,
      ],
      { cwd: repo, env: env({ COSIGN_PASSWORD }) },
    );
    expect(unset.code).toBe(1);
    expect(unset.stderr).toMatch(/the key is encrypted and \$CAPI_KEY_PASSWORD is not set/);
    expect(unset.stderr).not.toContain(COSIGN_PASSWORD + '\n');
    // The password named by the flag works.
    const named = await runCli(
      [
        'publish',
        '--env',
        'dev',
        '--oci',
        `http://${registry.host}/capi/named:v1`,
        '--sign-key',
        path.join(keys, 'cosign.key'),
        '--sign-key-password-env',
        'CAPI_KEY_PASSWORD',
        ...NAMED,
      ],
      { cwd: repo, env: env({ CAPI_KEY_PASSWORD: COSIGN_PASSWORD }) },
    );
    expect(named.code, named.stderr).toBe(0);
    // Nothing reached the registry for the refused runs: the key is read before rendering and pushing.
    expect(await r.tags('capi/refused')).toEqual([]);
  }, 120_000);

  it('--sign-keyless through Fulcio and Rekor (SIGSTORE_ID_TOKEN): the bundle verifies against the trust material with the expected identity; the legacy layer carries the certificate and Rekor entry cosign verifies', async () => {
    const token = unsignedJwt({ iss: GITHUB_ISSUER, sub: WORKFLOW_IDENTITY });
    const run = await runCli(
      [
        'publish',
        '--env',
        'dev',
        '--oci',
        `http://${registry.host}/capi/keyless:v1`,
        '--sign-keyless',
        '--fulcio-url',
        sigstore.url,
        '--rekor-url',
        sigstore.url,
        '--json',
        ...NAMED,
      ],
      { cwd: repo, env: env({ SIGSTORE_ID_TOKEN: token }) },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).not.toContain(token);
    const { digest, signatures } = JSON.parse(run.stdout);
    expect(signatures.mode).toBe('keyless');
    const trust = sigstore.trustMaterial();
    const policy = { subjectAlternativeName: WORKFLOW_IDENTITY, extensions: { issuer: GITHUB_ISSUER } };

    const [referrer, ...more] = await bundleReferrers(r, 'capi/keyless', digest);
    expect(more).toEqual([]);
    expect(referrer!.json.mediaType).toBe(BUNDLE_TYPE);
    expect(referrer!.json.verificationMaterial.certificate.rawBytes).toBeTruthy();
    expect(referrer!.json.verificationMaterial.tlogEntries[0]).toMatchObject({
      kindVersion: { kind: 'dsse', version: '0.0.1' },
    });
    expect(referrer!.json.verificationMaterial.tlogEntries[0].inclusionProof.checkpoint.envelope).toBeTruthy();
    // Default thresholds: one transparency-log entry, one SCT, one timestamp (Rekor's integrated time).
    const signer = new Verifier(trust).verify(toSignedEntity(referrer!.bundle), policy);
    expect(signer.identity?.subjectAlternativeName).toBe(WORKFLOW_IDENTITY);
    expect(() =>
      new Verifier(trust).verify(toSignedEntity(referrer!.bundle), {
        ...policy,
        subjectAlternativeName: 'https://github.com/acme/other/.github/workflows/publish.yaml@refs/heads/main',
      }),
    ).toThrow(/subject alternative name|SAN|identity/i);
    expect(() =>
      new Verifier(trust).verify(toSignedEntity(referrer!.bundle), {
        ...policy,
        extensions: { issuer: 'https://accounts.google.com' },
      }),
    ).toThrow(/issuer|extension/i);
    expect(statementOf(referrer!.bundle).subject.map((s) => `sha256:${s.digest.sha256}`)).toEqual([digest]);

    const legacy = await legacySignatures(r, 'capi/keyless', digest);
    const [layer] = legacy.layers;
    expect(layer!.json.critical.image['docker-manifest-digest']).toBe(digest);
    expect(Object.keys(layer!.annotations).sort()).toEqual([
      'dev.cosignproject.cosign/signature',
      'dev.sigstore.cosign/bundle',
      'dev.sigstore.cosign/certificate',
    ]);
    const certificatePem = layer!.annotations['dev.sigstore.cosign/certificate']!;
    expect(certificatePem).toMatch(/^-----BEGIN CERTIFICATE-----\n/);
    const certificate = new X509Certificate(certificatePem);
    expect(certificate.subjectAltName).toContain(WORKFLOW_IDENTITY);
    const signature = Buffer.from(layer!.annotations['dev.cosignproject.cosign/signature']!, 'base64');
    expect(verifySignature('sha256', layer!.payload, certificate.publicKey, signature)).toBe(true);
    // One certificate signs both: the identity token was exchanged once.
    expect(
      Buffer.from(referrer!.json.verificationMaterial.certificate.rawBytes, 'base64').equals(certificate.raw),
    ).toBe(true);
    // cosign's bundle annotation: SET base64, body base64, numbers for time and index, logID in hex.
    const rekor = JSON.parse(layer!.annotations['dev.sigstore.cosign/bundle']!);
    expect(Object.keys(rekor).sort()).toEqual(['Payload', 'SignedEntryTimestamp']);
    expect(typeof rekor.Payload.integratedTime).toBe('number');
    expect(typeof rekor.Payload.logIndex).toBe('number');
    expect(rekor.Payload.logID).toMatch(/^[a-f0-9]{64}$/);
    const body = JSON.parse(Buffer.from(rekor.Payload.body, 'base64').toString('utf8'));
    expect(body).toMatchObject({
      kind: 'hashedrekord',
      apiVersion: '0.0.1',
      spec: {
        data: { hash: { algorithm: 'sha256', value: createHash('sha256').update(layer!.payload).digest('hex') } },
      },
    });
    // Verified as cosign verifies a legacy keyless signature: certificate chain to Fulcio's root with an
    // SCT, the SET from Rekor, the Rekor body matching signature and payload, the identity policy —
    // the annotations mapped into a v0.1 bundle (certificate, SET and body in its verification material) and given to @sigstore/verify.
    const v01 = bundleFromJSON({
      mediaType: 'application/vnd.dev.sigstore.bundle+json;version=0.1',
      verificationMaterial: {
        x509CertificateChain: { certificates: [{ rawBytes: certificate.raw.toString('base64') }] },
        tlogEntries: [
          {
            logIndex: String(rekor.Payload.logIndex),
            logId: { keyId: Buffer.from(rekor.Payload.logID, 'hex').toString('base64') },
            kindVersion: { kind: 'hashedrekord', version: '0.0.1' },
            integratedTime: String(rekor.Payload.integratedTime),
            inclusionPromise: { signedEntryTimestamp: rekor.SignedEntryTimestamp },
            canonicalizedBody: rekor.Payload.body,
          },
        ],
        timestampVerificationData: { rfc3161Timestamps: [] },
      },
      messageSignature: {
        messageDigest: { algorithm: 'SHA2_256', digest: createHash('sha256').update(layer!.payload).digest('base64') },
        signature: signature.toString('base64'),
      },
    });
    new Verifier(trust).verify(toSignedEntity(v01, Buffer.from(layer!.payload)), policy);
    expect(() => new Verifier(trust).verify(toSignedEntity(v01, Buffer.from('{"critical":{}}')), policy)).toThrow();
  }, 120_000);

  it('--sign-keyless in GitHub Actions: the OIDC token comes through the CI context provider (audience sigstore)', async () => {
    sigstore.setActionsClaims({ iss: GITHUB_ISSUER, sub: WORKFLOW_IDENTITY });
    const saved = {
      url: process.env.ACTIONS_ID_TOKEN_REQUEST_URL,
      token: process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN,
      id: process.env.SIGSTORE_ID_TOKEN,
    };
    // @sigstore/sign's CIContextProvider reads the process environment (as it does in a real job).
    process.env.ACTIONS_ID_TOKEN_REQUEST_URL = sigstore.actionsTokenUrl;
    process.env.ACTIONS_ID_TOKEN_REQUEST_TOKEN = sigstore.actionsRequestToken;
    delete process.env.SIGSTORE_ID_TOKEN;
    try {
      const run = await runCli(
        [
          'publish',
          '--env',
          'dev',
          '--oci',
          `http://${registry.host}/capi/actions:v1`,
          '--sign-keyless',
          '--fulcio-url',
          sigstore.url,
          '--rekor-url',
          sigstore.url,
          '--json',
          ...NAMED,
        ],
        {
          cwd: repo,
          env: env({
            ACTIONS_ID_TOKEN_REQUEST_URL: sigstore.actionsTokenUrl,
            ACTIONS_ID_TOKEN_REQUEST_TOKEN: sigstore.actionsRequestToken,
          }),
        },
      );
      expect(run.code, run.stderr).toBe(0);
      expect(run.stdout + run.stderr).not.toContain(sigstore.actionsRequestToken);
      expect(sigstore.requestedAudiences).toContain('sigstore');
      const { digest } = JSON.parse(run.stdout);
      const [referrer] = await bundleReferrers(r, 'capi/actions', digest);
      new Verifier(sigstore.trustMaterial()).verify(toSignedEntity(referrer!.bundle), {
        subjectAlternativeName: WORKFLOW_IDENTITY,
        extensions: { issuer: GITHUB_ISSUER },
      });
    } finally {
      for (const [key, value] of [
        ['ACTIONS_ID_TOKEN_REQUEST_URL', saved.url],
        ['ACTIONS_ID_TOKEN_REQUEST_TOKEN', saved.token],
        ['SIGSTORE_ID_TOKEN', saved.id],
      ] as const) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  }, 120_000);

  it('keyless without a token, with a token Fulcio cannot read, or with no Fulcio: a clear error, no secret, nothing pushed', async () => {
    const none = await runCli(
      ['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/notoken:v1`, '--sign-keyless', ...NAMED],
      { cwd: repo, env: env() },
    );
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/error\[publish\]: --sign-keyless needs an OIDC identity token/);
    expect(none.stderr).toMatch(/id-token: write/);
    expect(await r.tags('capi/notoken')).toEqual([]);
    // A token Fulcio cannot read (no subject): the library's message, without the token.
    const token = unsignedJwt({ iss: GITHUB_ISSUER });
    const refused = await runCli(
      [
        'publish',
        '--env',
        'dev',
        '--oci',
        `http://${registry.host}/capi/refused-keyless:v1`,
        '--sign-keyless',
        '--fulcio-url',
        `${sigstore.url}/nowhere`,
        '--rekor-url',
        sigstore.url,
        ...NAMED,
      ],
      { cwd: repo, env: env({ SIGSTORE_ID_TOKEN: token }) },
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /error\[publish\]: keyless signing failed while signing the simple-signing payload: invalid identity token: \[redacted\]/,
    );
    expect(refused.stderr).not.toContain(token);
    // A Fulcio that does not answer the API: its status in the message. Both fail before the push.
    const good = unsignedJwt({ iss: GITHUB_ISSUER, sub: WORKFLOW_IDENTITY });
    const absent = await runCli(
      [
        'publish',
        '--env',
        'dev',
        '--oci',
        `http://${registry.host}/capi/refused-keyless:v1`,
        '--sign-keyless',
        '--fulcio-url',
        `${sigstore.url}/nowhere`,
        '--rekor-url',
        sigstore.url,
        ...NAMED,
      ],
      { cwd: repo, env: env({ SIGSTORE_ID_TOKEN: good }) },
    );
    expect(absent.code).toBe(1);
    expect(absent.stderr).toMatch(
      /keyless signing failed while signing the simple-signing payload: error creating signing certificate - \(404\)/,
    );
    expect(absent.stderr).toMatch(
      /hint: check the identity token and that Fulcio \(http:\/\/127\.0\.0\.1:\d+\/nowhere\) accepts its issuer/,
    );
    expect(absent.stderr).not.toContain(good);
    expect(await r.tags('capi/refused-keyless')).toEqual([]);
  }, 120_000);

  it('usage: key and keyless together, a password flag without a key, a Sigstore URL without keyless', async () => {
    const cases: [string[], RegExp][] = [
      [['--sign-key', 'k', '--sign-keyless'], /--sign-key and --sign-keyless exclude each other/],
      [['--sign-key-password-env', 'PW'], /--sign-key-password-env goes with --sign-key FILE/],
      [['--fulcio-url', 'https://fulcio.example.com'], /--fulcio-url goes with --sign-keyless/],
      [['--sign-keyless', '--rekor-url', 'rekor'], /--rekor-url must be an http\(s\) URL/],
      [['--sign-key', 'k', '--sign-key-password-env', 'my password'], /takes the name of an environment variable/],
    ];
    for (const [flags, message] of cases) {
      const run = await runCli(
        ['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/usage:v1`, ...flags, ...NAMED],
        { cwd: repo, env: env() },
      );
      expect(run.code, flags.join(' ')).toBe(2);
      expect(run.stderr, flags.join(' ')).toMatch(message);
    }
    const missing = await runCli(
      [
        'publish',
        '--env',
        'dev',
        '--oci',
        `http://${registry.host}/capi/usage:v1`,
        '--sign-key',
        path.join(keys, 'absent.key'),
        ...NAMED,
      ],
      { cwd: repo, env: env() },
    );
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/--sign-key .*absent\.key: cannot read it \(ENOENT\)/);
  }, 60_000);

  it('the generated OCIRepository verifies what publish signs; publish warns when they disagree', async () => {
    const signedRepo = copyExample({ committed: true });
    const config = readFileSync(path.join(signedRepo, 'capi-render.yaml'), 'utf8').replace(
      /  flux:\n    sourceRef:\n      kind: GitRepository\n      name: capi-render-example\n      namespace: flux-system\n/,
      `  flux:\n    oci:\n      repository: ${registry.host}/capi\n      insecure: true\n      verify:\n        key:\n          secretRef:\n            name: capi-render-cosign\n`,
    );
    writeFileSync(path.join(signedRepo, 'capi-render.yaml'), config);
    const cacheEnv = {
      CAPI_RENDER_CACHE_DIR: cache,
      GIT_CEILING_DIRECTORIES: path.dirname(signedRepo),
      PATH: process.env.PATH ?? '',
    };
    const built = await runCli(['build'], { cwd: signedRepo, env: cacheEnv });
    expect(built.code, built.stderr).toBe(0);
    const source = jsYaml.load(
      readFileSync(path.join(signedRepo, 'gitops/flux/dev/oci-repository.yaml'), 'utf8'),
    ) as any;
    expect(source.spec.verify).toEqual({ provider: 'cosign', secretRef: { name: 'capi-render-cosign' } });
    const target = ['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/dev:verified`, ...NAMED];
    const unsigned = await runCli(target, { cwd: signedRepo, env: cacheEnv });
    expect(unsigned.code, unsigned.stderr).toBe(0);
    expect(unsigned.stderr).toMatch(
      /gitops\/flux\/dev\/oci-repository\.yaml: warning\[publish\]: the OCIRepository verifies key signatures, and this artifact is not signed: Flux will refuse it/,
    );
    const keyless = await runCli(
      [...target, '--sign-keyless', '--fulcio-url', sigstore.url, '--rekor-url', sigstore.url],
      {
        cwd: signedRepo,
        env: { ...cacheEnv, SIGSTORE_ID_TOKEN: unsignedJwt({ iss: GITHUB_ISSUER, sub: WORKFLOW_IDENTITY }) },
      },
    );
    expect(keyless.code, keyless.stderr).toBe(0);
    expect(keyless.stderr).toMatch(
      /warning\[publish\]: the OCIRepository verifies key signatures, and this artifact is signed keyless/,
    );
    const key = await runCli([...target, '--sign-key', path.join(keys, 'cosign.key')], {
      cwd: signedRepo,
      env: { ...cacheEnv, COSIGN_PASSWORD },
    });
    expect(key.code, key.stderr).toBe(0);
    expect(key.stderr).not.toMatch(/warning\[publish\]/);
  }, 180_000);
});
