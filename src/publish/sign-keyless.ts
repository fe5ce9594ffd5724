/**
 * Keyless signing for `publish --sign-keyless`, through the Sigstore project's own signer
 * (@sigstore/sign): an ephemeral ECDSA P-256 key, a Fulcio certificate binding it to the CI's
 * OIDC identity (FulcioSigner), and a Rekor entry for each signature (RekorWitness), as `cosign
 * sign` makes them.
 *
 * Design notes: docs/internals.md "publish/sign-keyless.ts".
 */
import { generateKeyPairSync, sign } from 'node:crypto';
import { bundleToJSON } from '@sigstore/bundle';
import {
  CIContextProvider,
  DSSEBundleBuilder,
  FulcioSigner,
  MessageSignatureBundleBuilder,
  RekorWitness,
  type IdentityProvider,
  type Signature,
  type Signer,
} from '@sigstore/sign';
import { FetchError, SpecError, error } from '../errors.js';
import type { ArtifactSigner } from './sign-artifact.js';
import {
  ANNOTATION_BUNDLE,
  ANNOTATION_CERTIFICATE,
  ANNOTATION_SIGNATURE,
  IN_TOTO_PAYLOAD_TYPE,
  rekorBundleAnnotation,
  type SerializedTlogEntry,
} from './sign-formats.js';

/** Sigstore's public-good instances (cosign's defaults). */
export const DEFAULT_FULCIO_URL = 'https://fulcio.sigstore.dev';
export const DEFAULT_REKOR_URL = 'https://rekor.sigstore.dev';
/** The variable cosign reads an identity token from. */
export const ID_TOKEN_ENV = 'SIGSTORE_ID_TOKEN';

export interface KeylessOptions {
  /** The environment the token comes from. */
  env: Readonly<Record<string, string | undefined>>;
  fulcioUrl?: string;
  rekorUrl?: string;
  /** Per request to Fulcio and Rekor. Default 30 s. */
  timeoutMs?: number;
}

/**
 * The keyless signer. Throws SpecError `publish` when there is no identity token to be had, so
 * `publish` fails before it pushes anything.
 */
export function createKeylessSigner(options: KeylessOptions): ArtifactSigner {
  const tokens: string[] = [];
  const identity = identityProvider(options.env, tokens);
  const fetchOptions = { timeout: options.timeoutMs ?? 30_000, retry: 2 };
  const fulcioUrl = options.fulcioUrl ?? DEFAULT_FULCIO_URL;
  const rekorUrl = options.rekorUrl ?? DEFAULT_REKOR_URL;
  const ephemeral = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const keyHolder: Signer = {
    sign: async (data) => ({
      signature: sign('sha256', data, ephemeral.privateKey),
      key: { $case: 'publicKey', publicKey: ephemeral.publicKey.export({ format: 'pem', type: 'spki' }).toString() },
    }),
  };
  const fulcio = new FulcioSigner({ identityProvider: identity, keyHolder, fulcioBaseURL: fulcioUrl, ...fetchOptions });
  let certificate: string | undefined;
  // The first signature gets the certificate from Fulcio; later ones reuse it with the same key.
  const certified: Signer = {
    async sign(data): Promise<Signature> {
      if (certificate === undefined) {
        const signed = await fulcio.sign(data);
        if (signed.key.$case === 'x509Certificate') certificate = signed.key.certificate;
        return signed;
      }
      const signed = await keyHolder.sign(data);
      return { signature: signed.signature, key: { $case: 'x509Certificate', certificate } };
    },
  };
  const witnesses = [new RekorWitness({ rekorBaseURL: rekorUrl, ...fetchOptions })];
  const failed = (cause: unknown, what: string) => signingError(cause, what, { fulcioUrl, rekorUrl, secrets: tokens });
  return {
    mode: 'keyless',
    async signPayload(payload) {
      try {
        const bundle = await new MessageSignatureBundleBuilder({ signer: certified, witnesses }).create({
          data: Buffer.from(payload),
        });
        const json = bundleToJSON(bundle);
        const signature = json.messageSignature?.signature;
        const entry = json.verificationMaterial.tlogEntries[0] as SerializedTlogEntry | undefined;
        const rekorBundle = entry && rekorBundleAnnotation(entry);
        if (!signature || !certificate || !rekorBundle)
          throw new Error('the signer returned no signature, certificate or Rekor entry');
        return {
          [ANNOTATION_SIGNATURE]: signature,
          [ANNOTATION_CERTIFICATE]: certificate,
          [ANNOTATION_BUNDLE]: rekorBundle,
        };
      } catch (cause) {
        throw failed(cause, 'signing the simple-signing payload');
      }
    },
    async signStatement(statement) {
      try {
        const bundle = await new DSSEBundleBuilder({ signer: certified, witnesses }).create({
          data: Buffer.from(statement),
          type: IN_TOTO_PAYLOAD_TYPE,
        });
        return bundleToJSON(bundle);
      } catch (cause) {
        throw failed(cause, 'signing the Sigstore bundle');
      }
    },
  };
}

/** `SIGSTORE_ID_TOKEN`, else GitHub Actions' OIDC token; remembers what it handed out so messages can leave it out. */
function identityProvider(env: Readonly<Record<string, string | undefined>>, tokens: string[]): IdentityProvider {
  const given = env[ID_TOKEN_ENV];
  if (given) {
    tokens.push(given);
    return { getToken: async () => given };
  }
  if (env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN) {
    const ci = new CIContextProvider('sigstore');
    tokens.push(env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);
    return {
      async getToken() {
        const token = await ci.getToken();
        tokens.push(token);
        return token;
      },
    };
  }
  throw new SpecError(
    error('publish', '--sign-keyless needs an OIDC identity token, and there is none here', {
      hint: `in GitHub Actions give the job "permissions: id-token: write"; elsewhere set ${ID_TOKEN_ENV} to a token for the audience "sigstore"`,
    }),
  );
}

/** A FetchError `publish` for a failed Fulcio or Rekor exchange, the library's message kept and every secret removed. */
function signingError(
  cause: unknown,
  what: string,
  where: { fulcioUrl: string; rekorUrl: string; secrets: readonly string[] },
): FetchError {
  if (cause instanceof FetchError || cause instanceof SpecError) return cause;
  const parts: string[] = [];
  for (let c: unknown = cause, depth = 0; c !== undefined && depth < 4; depth++) {
    const text = c instanceof Error ? c.message : typeof c === 'string' ? c : '';
    if (text && !parts.some((p) => p.includes(text))) parts.push(text);
    c = c instanceof Error ? c.cause : undefined;
  }
  const code = typeof (cause as { code?: unknown })?.code === 'string' ? (cause as { code: string }).code : '';
  let message = `keyless signing failed while ${what}: ${parts.join(': ') || 'unknown error'}`;
  for (const secret of where.secrets) if (secret) message = message.split(secret).join('[redacted]');
  const hint =
    code.startsWith('CA_') || code.startsWith('IDENTITY_')
      ? `check the identity token and that Fulcio (${where.fulcioUrl}) accepts its issuer (--fulcio-url)`
      : code.startsWith('TLOG_')
        ? `check that Rekor (${where.rekorUrl}) is reachable (--rekor-url)`
        : `check that Fulcio (${where.fulcioUrl}) and Rekor (${where.rekorUrl}) are reachable`;
  return new FetchError(error('publish', message, { hint }));
}
