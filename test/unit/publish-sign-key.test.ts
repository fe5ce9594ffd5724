/**
 * `publish --sign-key`: reading cosign's encrypted key format (a key cosign itself wrote, and keys
 * this test seals the way go-securesystemslib's `encrypted` package does), PEM PKCS#8/SEC1 keys, and
 * the refusals — a wrong or missing password (never printed), a public key, another algorithm.
 */
import { createPublicKey, generateKeyPairSync, randomBytes, scryptSync, sign, verify } from 'node:crypto';
import { secretbox } from '@noble/ciphers/salsa';
import { describe, expect, it } from 'vitest';
import { COSIGN_KEY } from '../helpers/cosign-test-key.js';
import { SpecError } from '../../src/errors.js';
import { createKeySigner, loadSigningKey } from '../../src/publish/sign-key.js';
import { ANNOTATION_SIGNATURE } from '../../src/publish/sign-formats.js';

const SOURCE = { file: 'keys/cosign.key', passwordEnv: 'COSIGN_PASSWORD' };

/** Seals a PKCS#8 key as go-securesystemslib `encrypted.Encrypt` does (cosign generate-key-pair), for other parameters than the vector's. */
function sealCosignKey(
  der: Buffer,
  password: string,
  options: { N?: number; label?: string; cipher?: string } = {},
): string {
  const N = options.N ?? 65536;
  const salt = randomBytes(32);
  const nonce = randomBytes(24);
  const key = scryptSync(Buffer.from(password), salt, 32, { N, r: 8, p: 1, maxmem: 256 * 1024 * 1024 });
  const ciphertext = secretbox(key, nonce).seal(der);
  const json = JSON.stringify({
    kdf: { name: 'scrypt', params: { N, r: 8, p: 1 }, salt: salt.toString('base64') },
    cipher: { name: options.cipher ?? 'nacl/secretbox', nonce: nonce.toString('base64') },
    ciphertext: Buffer.from(ciphertext).toString('base64'),
  });
  const label = options.label ?? 'ENCRYPTED SIGSTORE PRIVATE KEY';
  const body = Buffer.from(json).toString('base64').replace(/.{64}/g, '$&\n');
  return `-----BEGIN ${label}-----\n${body}\n-----END ${label}-----\n`;
}

function failure(run: () => unknown): { message: string; hint: string } {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(SpecError);
    const d = (e as SpecError).diagnostics[0]!;
    expect(d.code).toBe('publish');
    return { message: d.message, hint: d.hint ?? '' };
  }
  throw new Error('expected a failure');
}

describe('loadSigningKey', () => {
  it("reads a key cosign wrote (ENCRYPTED SIGSTORE PRIVATE KEY) with its password: ECDSA P-256, the public key and cosign's hint", () => {
    const key = loadSigningKey(COSIGN_KEY, 'hello', SOURCE);
    expect(key.privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(key.publicKeyPem).toMatch(/^-----BEGIN PUBLIC KEY-----\n/);
    expect(createPublicKey(key.publicKeyPem).equals(key.publicKey)).toBe(true);
    expect(Buffer.from(key.hint, 'base64')).toHaveLength(32);
    const signature = sign('sha256', Buffer.from('payload'), key.privateKey);
    expect(verify('sha256', Buffer.from('payload'), createPublicKey(key.publicKeyPem), signature)).toBe(true);
  });

  it('reads every scrypt strength go-securesystemslib writes, the older COSIGN label, and an empty password with the variable unset', () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const der = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
    for (const N of [32768, 65536, 131072])
      expect(
        loadSigningKey(sealCosignKey(der, 'pw', { N }), 'pw', SOURCE).publicKey.equals(pair.publicKey),
        `N ${N}`,
      ).toBe(true);
    expect(
      loadSigningKey(
        sealCosignKey(der, 'pw', { label: 'ENCRYPTED COSIGN PRIVATE KEY' }),
        'pw',
        SOURCE,
      ).publicKey.equals(pair.publicKey),
    ).toBe(true);
    expect(loadSigningKey(sealCosignKey(der, ''), undefined, SOURCE).publicKey.equals(pair.publicKey)).toBe(true);
  });

  it('a wrong password, or none: a clear message naming the variable, never the password', () => {
    const secret = 'correct horse battery staple';
    const wrong = failure(() => loadSigningKey(COSIGN_KEY, secret, SOURCE));
    expect(wrong.message).toBe(
      '--sign-key keys/cosign.key: cannot decrypt the key with the password in $COSIGN_PASSWORD',
    );
    expect(wrong.hint).toMatch(/set \$COSIGN_PASSWORD to the key's password .* --sign-key-password-env/);
    expect(JSON.stringify(wrong)).not.toContain(secret);
    const unset = failure(() => loadSigningKey(COSIGN_KEY, undefined, { file: 'k', passwordEnv: 'KEY_PW' }));
    expect(unset.message).toBe('--sign-key k: the key is encrypted and $KEY_PW is not set');
  });

  it('PEM keys: PKCS#8, SEC1 (EC PRIVATE KEY) and encrypted PKCS#8', () => {
    const pair = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const pkcs8 = pair.privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    const sec1 = pair.privateKey.export({ format: 'pem', type: 'sec1' }).toString();
    const encrypted = pair.privateKey
      .export({ format: 'pem', type: 'pkcs8', cipher: 'aes-256-cbc', passphrase: 'pw' })
      .toString();
    for (const text of [pkcs8, sec1, `some text before\n${pkcs8}`])
      expect(loadSigningKey(text, undefined, SOURCE).publicKey.equals(pair.publicKey)).toBe(true);
    expect(loadSigningKey(encrypted, 'pw', SOURCE).publicKey.equals(pair.publicKey)).toBe(true);
    expect(failure(() => loadSigningKey(encrypted, 'nope', SOURCE)).message).toMatch(
      /cannot decrypt the key with the password in \$COSIGN_PASSWORD/,
    );
    expect(failure(() => loadSigningKey(encrypted, undefined, SOURCE)).message).toMatch(
      /the key is encrypted and \$COSIGN_PASSWORD is not set/,
    );
  });

  it('refuses what Flux could not verify or is no private key, saying what it is', () => {
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(failure(() => loadSigningKey(p384, undefined, SOURCE)).message).toMatch(
      /it is an EC secp384r1 key; publish signs with ECDSA P-256 keys/,
    );
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
      .privateKey.export({ format: 'pem', type: 'pkcs8' })
      .toString();
    expect(failure(() => loadSigningKey(rsa, undefined, SOURCE)).message).toMatch(/it is a rsa key/);
    const rsaCosign = sealCosignKey(
      generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'der', type: 'pkcs8' }),
      'pw',
    );
    expect(failure(() => loadSigningKey(rsaCosign, 'pw', SOURCE)).message).toMatch(/it is a rsa key/);
    const publicKey = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      .publicKey.export({ format: 'pem', type: 'spki' })
      .toString();
    expect(failure(() => loadSigningKey(publicKey, undefined, SOURCE))).toMatchObject({
      message: '--sign-key keys/cosign.key: it holds a public key',
    });
    expect(failure(() => loadSigningKey('not a key', undefined, SOURCE)).message).toMatch(/it holds no PEM block/);
    expect(
      failure(() => loadSigningKey('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n', undefined, SOURCE))
        .message,
    ).toMatch(/-----BEGIN CERTIFICATE----- is not a key/);
    const der = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'der', type: 'pkcs8' });
    expect(failure(() => loadSigningKey(sealCosignKey(der, 'pw', { N: 1024 }), 'pw', SOURCE)).message).toMatch(
      /not a readable cosign key \(unsupported scrypt parameters\)/,
    );
    expect(
      failure(() => loadSigningKey(sealCosignKey(der, 'pw', { cipher: 'aes-gcm' }), 'pw', SOURCE)).message,
    ).toMatch(/cipher "aes-gcm", not nacl\/secretbox/);
  });
});

describe('the key signer', () => {
  it("signs the payload with ECDSA P-256/SHA-256 and recognises its own signatures and bundles, not another key's", async () => {
    const key = loadSigningKey(COSIGN_KEY, 'hello', SOURCE);
    const other = createKeySigner(
      loadSigningKey(
        generateKeyPairSync('ec', { namedCurve: 'P-256' })
          .privateKey.export({ format: 'pem', type: 'pkcs8' })
          .toString(),
        undefined,
        SOURCE,
      ),
    );
    const signer = createKeySigner(key);
    const payload = new TextEncoder().encode('{"critical":{}}');
    const annotations = await signer.signPayload(payload);
    expect(Object.keys(annotations)).toEqual([ANNOTATION_SIGNATURE]);
    expect(verify('sha256', payload, key.publicKey, Buffer.from(annotations[ANNOTATION_SIGNATURE]!, 'base64'))).toBe(
      true,
    );
    expect(signer.isOwnPayloadSignature!(payload, annotations)).toBe(true);
    expect(other.isOwnPayloadSignature!(payload, annotations)).toBe(false);
    expect(signer.isOwnPayloadSignature!(new TextEncoder().encode('{}'), annotations)).toBe(false);

    const digest = `sha256:${'ab'.repeat(32)}`;
    const statement = new TextEncoder().encode(
      JSON.stringify({
        _type: 'https://in-toto.io/Statement/v1',
        subject: [{ digest: { sha256: 'ab'.repeat(32) } }],
        predicateType: 'https://sigstore.dev/cosign/sign/v1',
        predicate: {},
      }),
    );
    const bundle = (await signer.signStatement(statement)) as {
      mediaType: string;
      verificationMaterial: { publicKey: { hint: string } };
      dsseEnvelope: { payloadType: string };
    };
    expect(bundle.mediaType).toBe('application/vnd.dev.sigstore.bundle.v0.3+json');
    expect(bundle.verificationMaterial.publicKey.hint).toBe(key.hint);
    expect(bundle.dsseEnvelope.payloadType).toBe('application/vnd.in-toto+json');
    expect(signer.isOwnBundle!(bundle, digest)).toBe(true);
    expect(signer.isOwnBundle!(bundle, `sha256:${'cd'.repeat(32)}`)).toBe(false);
    expect(other.isOwnBundle!(bundle, digest)).toBe(false);
    expect(signer.isOwnBundle!({ mediaType: 'nonsense' }, digest)).toBe(false);
  });
});
