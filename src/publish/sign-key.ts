/**
 * The private key of `publish --sign-key FILE`, read the way cosign reads `--key` files
 * (pkg/cosign/keys.go LoadPrivateKey) plus the plain PEM forms a key manager exports.
 *
 * Design notes: docs/internals.md "publish/sign-key.ts".
 */
import { createHash, createPrivateKey, createPublicKey, scryptSync, sign, verify, type KeyObject } from 'node:crypto';
import { secretbox } from '@noble/ciphers/salsa';
import { bundleFromJSON, bundleToJSON } from '@sigstore/bundle';
import { DSSEBundleBuilder, type Signer } from '@sigstore/sign';
import { Verifier, toSignedEntity, type TrustMaterial } from '@sigstore/verify';
import { SpecError, error } from '../errors.js';
import type { ArtifactSigner } from './sign-artifact.js';
import {
  ANNOTATION_CERTIFICATE,
  ANNOTATION_SIGNATURE,
  COSIGN_SIGN_PREDICATE_TYPE,
  IN_TOTO_PAYLOAD_TYPE,
  statementDigests,
} from './sign-formats.js';

/** A loaded signing key. */
export interface SigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** The public key as `-----BEGIN PUBLIC KEY-----` PEM: what cosign.pub holds and the Flux Secret needs. */
  publicKeyPem: string;
  /** cosign's key hint: base64 of the SHA-256 of the DER SubjectPublicKeyInfo. */
  hint: string;
}

/** Where the key came from, for messages: the file as the user named it and the password variable. */
export interface SigningKeySource {
  file: string;
  passwordEnv: string;
}

/** PEM labels of cosign's encrypted key format. */
export const COSIGN_KEY_LABELS: readonly string[] = ['ENCRYPTED SIGSTORE PRIVATE KEY', 'ENCRYPTED COSIGN PRIVATE KEY'];

/** The scrypt strengths go-securesystemslib writes (legacy, standard, OWASP), all with r 8, p 1. */
const SCRYPT_N: readonly number[] = [32768, 65536, 131072];
const BOX_KEY_BYTES = 32;
const BOX_NONCE_BYTES = 24;
/** scrypt needs 128·N·r bytes; Node's default cap (32 MiB) is below the OWASP strength. */
const SCRYPT_MAXMEM = 256 * 1024 * 1024;

/**
 * Reads a private key. `password` is the value of the password variable, or undefined when it is
 * not set (an encrypted key is then tried with the empty password, as cosign allows one).
 */
export function loadSigningKey(text: string, password: string | undefined, source: SigningKeySource): SigningKey {
  const fail = (message: string, hint?: string) =>
    new SpecError(error('publish', `--sign-key ${source.file}: ${message}`, hint ? { hint } : {}));
  const block = firstPemBlock(text);
  if (!block)
    throw fail(
      'it holds no PEM block',
      'pass the private key cosign generate-key-pair wrote (cosign.key), or a PEM PKCS#8 EC private key',
    );
  let privateKey: KeyObject;
  if (COSIGN_KEY_LABELS.includes(block.label)) {
    privateKey = decryptCosignKey(block.body, password, source, fail);
  } else if (block.label === 'PRIVATE KEY' || block.label === 'EC PRIVATE KEY') {
    privateKey = parsePrivateKey(() => createPrivateKey({ key: block.pem, format: 'pem' }), fail);
  } else if (block.label === 'ENCRYPTED PRIVATE KEY') {
    if (password === undefined)
      throw fail(`the key is encrypted and $${source.passwordEnv} is not set`, passwordHint(source));
    try {
      privateKey = createPrivateKey({ key: block.pem, format: 'pem', passphrase: password });
    } catch {
      throw fail(`cannot decrypt the key with the password in $${source.passwordEnv}`, passwordHint(source));
    }
  } else if (block.label === 'PUBLIC KEY') {
    throw fail(
      'it holds a public key',
      'pass the private key (cosign.key); the public key (cosign.pub) goes into the Secret Flux verifies with',
    );
  } else {
    throw fail(
      `-----BEGIN ${block.label}----- is not a key capi-render signs with`,
      'use a cosign key (cosign generate-key-pair) or a PEM PKCS#8 ECDSA P-256 private key',
    );
  }
  const details = privateKey.asymmetricKeyDetails;
  if (privateKey.asymmetricKeyType !== 'ec' || details?.namedCurve !== 'prime256v1') {
    const what =
      privateKey.asymmetricKeyType === 'ec'
        ? `an EC ${details?.namedCurve ?? ''} key`
        : `a ${privateKey.asymmetricKeyType ?? 'unknown'} key`;
    throw fail(
      `it is ${what}; publish signs with ECDSA P-256 keys`,
      'Flux verifies cosign keys with SHA-256 (ECDSA P-256, what cosign generate-key-pair makes): generate one with cosign generate-key-pair',
    );
  }
  const publicKey = createPublicKey(privateKey);
  const spki = publicKey.export({ format: 'der', type: 'spki' });
  return {
    privateKey,
    publicKey,
    publicKeyPem: publicKey.export({ format: 'pem', type: 'spki' }).toString(),
    hint: createHash('sha256').update(spki).digest('base64'),
  };
}

interface PemBlock {
  label: string;
  body: Buffer;
  pem: string;
}

/** The first PEM block of the text (labels as RFC 7468 allows them). */
function firstPemBlock(text: string): PemBlock | undefined {
  const match = /-----BEGIN ([A-Z0-9 ]+)-----\r?\n([A-Za-z0-9+/=\r\n\t ]*?)-----END \1-----/.exec(text);
  if (!match) return undefined;
  return { label: match[1]!, body: Buffer.from(match[2]!.replace(/\s+/g, ''), 'base64'), pem: match[0] };
}

function parsePrivateKey(parse: () => KeyObject, fail: (message: string, hint?: string) => SpecError): KeyObject {
  try {
    return parse();
  } catch {
    throw fail('the private key cannot be parsed');
  }
}

function passwordHint(source: SigningKeySource): string {
  return `set $${source.passwordEnv} to the key's password (cosign generate-key-pair asked for it), or name another variable with --sign-key-password-env`;
}

/** go-securesystemslib `encrypted.Decrypt`, then the PKCS#8 DER inside. */
function decryptCosignKey(
  body: Buffer,
  password: string | undefined,
  source: SigningKeySource,
  fail: (message: string, hint?: string) => SpecError,
): KeyObject {
  const bad = (why: string) =>
    fail(
      `it is not a readable cosign key (${why})`,
      'regenerate it with cosign generate-key-pair, or import it with cosign import-key-pair',
    );
  let sealed: unknown;
  try {
    sealed = JSON.parse(body.toString('utf8'));
  } catch {
    throw bad('its body is not the JSON cosign writes');
  }
  const kdf = field(sealed, 'kdf');
  const cipher = field(sealed, 'cipher');
  const params = field(kdf, 'params');
  if (field(kdf, 'name') !== 'scrypt') throw bad(`key derivation ${JSON.stringify(field(kdf, 'name'))}, not scrypt`);
  if (field(cipher, 'name') !== 'nacl/secretbox')
    throw bad(`cipher ${JSON.stringify(field(cipher, 'name'))}, not nacl/secretbox`);
  const N = field(params, 'N');
  if (typeof N !== 'number' || !SCRYPT_N.includes(N) || field(params, 'r') !== 8 || field(params, 'p') !== 1)
    throw bad('unsupported scrypt parameters');
  const salt = base64Field(kdf, 'salt');
  const nonce = base64Field(cipher, 'nonce');
  const ciphertext = base64Field(sealed, 'ciphertext');
  if (!salt || !nonce || !ciphertext) throw bad('salt, nonce or ciphertext missing');
  if (nonce.length !== BOX_NONCE_BYTES) throw bad('the nonce is not 24 bytes');
  const boxKey = scryptSync(Buffer.from(password ?? '', 'utf8'), salt, BOX_KEY_BYTES, {
    N,
    r: 8,
    p: 1,
    maxmem: SCRYPT_MAXMEM,
  });
  let der: Uint8Array;
  try {
    der = secretbox(boxKey, nonce).open(ciphertext);
  } catch {
    // Poly1305 rejects the box: the password is wrong (or the file was altered).
    const message =
      password === undefined
        ? `the key is encrypted and $${source.passwordEnv} is not set`
        : `cannot decrypt the key with the password in $${source.passwordEnv}`;
    throw fail(message, passwordHint(source));
  }
  return parsePrivateKey(() => createPrivateKey({ key: Buffer.from(der), format: 'der', type: 'pkcs8' }), fail);
}

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

/** A Go `[]byte` JSON field: standard base64. */
function base64Field(value: unknown, key: string): Uint8Array | undefined {
  const text = field(value, key);
  if (typeof text !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return undefined;
  return new Uint8Array(Buffer.from(text, 'base64'));
}

/**
 * The signer of a key: ECDSA P-256 over SHA-256 (node:crypto's DER signature, as cosign stores it),
 * the bundle built by @sigstore/sign's DSSEBundleBuilder with the key's hint and no transparency-log
 * entry — Flux verifies key signatures offline and ignores the log (`IgnoreTlog`), and a key
 * signature in the public log would publish the repository's name; `cosign verify --key` needs
 * `--insecure-ignore-tlog` for the same reason.
 */
export function createKeySigner(key: SigningKey): ArtifactSigner {
  const signer: Signer = {
    sign: async (data) => ({
      signature: sign('sha256', data, key.privateKey),
      key: { $case: 'publicKey', publicKey: key.publicKeyPem, hint: key.hint },
    }),
  };
  // Only this key: the hint is not trusted, as cosign's and Flux's key mode trust any hint.
  const trust: TrustMaterial = {
    certificateAuthorities: [],
    timestampAuthorities: [],
    tlogs: [],
    ctlogs: [],
    publicKey: () => ({ publicKey: key.publicKey, validFor: () => true }),
  };
  const verifier = new Verifier(trust, { tlogThreshold: 0, ctlogThreshold: 0, timestampThreshold: 0 });
  return {
    mode: 'key',
    async signPayload(payload) {
      return { [ANNOTATION_SIGNATURE]: sign('sha256', payload, key.privateKey).toString('base64') };
    },
    async signStatement(statement) {
      const bundle = await new DSSEBundleBuilder({ signer, witnesses: [] }).create({
        data: Buffer.from(statement),
        type: IN_TOTO_PAYLOAD_TYPE,
      });
      return bundleToJSON(bundle);
    },
    isOwnPayloadSignature(payload, annotations) {
      const signature = annotations[ANNOTATION_SIGNATURE];
      if (!signature || annotations[ANNOTATION_CERTIFICATE]) return false;
      return verify('sha256', payload, key.publicKey, Buffer.from(signature, 'base64'));
    },
    isOwnBundle(json, digest) {
      try {
        const bundle = bundleFromJSON(json);
        if (bundle.content.$case !== 'dsseEnvelope' || bundle.verificationMaterial.content.$case !== 'publicKey')
          return false;
        const statement = statementDigests(bundle.content.dsseEnvelope.payload);
        if (statement?.predicateType !== COSIGN_SIGN_PREDICATE_TYPE || !statement.digests.includes(digest))
          return false;
        verifier.verify(toSignedEntity(bundle));
        return true;
      } catch {
        return false;
      }
    },
  };
}
