/**
 * `publish`'s signing flags (the command declares them): which signer they ask for, checked and prepared before anything is
 * rendered or pushed (a wrong password or a missing identity token fails first), and whether the
 * OCIRepository the repository generates for the environment will accept what they make.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { SpecError, UsageError, error, warning, type Diagnostic } from '../errors.js';
import type { ArtifactSigner, SignedArtifact } from './sign-artifact.js';
import { createKeySigner, loadSigningKey } from './sign-key.js';
import { createKeylessSigner } from './sign-keyless.js';

/** cosign's password variable. */
export const DEFAULT_PASSWORD_ENV = 'COSIGN_PASSWORD';

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

/**
 * The signer the flags ask for, ready to sign, or undefined without a signing flag. Usage mistakes
 * throw UsageError; an unreadable key, a wrong password or no identity token throw SpecError `publish`.
 */
export function prepareSigner(
  values: Values,
  io: { cwd: string; env: Readonly<Record<string, string | undefined>> },
): ArtifactSigner | undefined {
  const keyFile = values['sign-key'] === undefined ? undefined : String(values['sign-key']);
  const keyless = values['sign-keyless'] === true;
  const passwordEnv =
    values['sign-key-password-env'] === undefined ? undefined : String(values['sign-key-password-env']);
  const urls = {
    fulcio: optionalUrl(values['fulcio-url'], '--fulcio-url'),
    rekor: optionalUrl(values['rekor-url'], '--rekor-url'),
  };
  if (keyFile !== undefined && keyless)
    throw new UsageError('--sign-key and --sign-keyless exclude each other: sign with a key or keyless');
  if (passwordEnv !== undefined && keyFile === undefined)
    throw new UsageError('--sign-key-password-env goes with --sign-key FILE');
  if (passwordEnv !== undefined && !/^[A-Za-z_][A-Za-z0-9_]*$/.test(passwordEnv))
    throw new UsageError(
      `--sign-key-password-env takes the name of an environment variable, not ${JSON.stringify(passwordEnv)}`,
    );
  if ((urls.fulcio || urls.rekor) && !keyless)
    throw new UsageError(`${urls.fulcio ? '--fulcio-url' : '--rekor-url'} goes with --sign-keyless`);
  if (keyFile !== undefined) {
    if (keyFile === '') throw new UsageError('--sign-key takes the file of the private key');
    const variable = passwordEnv ?? DEFAULT_PASSWORD_ENV;
    const file = path.resolve(io.cwd, keyFile);
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch (cause) {
      const code = (cause as NodeJS.ErrnoException).code;
      throw new SpecError(
        error('publish', `--sign-key ${keyFile}: cannot read it (${code ?? 'error'})`, {
          hint: 'pass the path of the private key (cosign.key)',
        }),
      );
    }
    return createKeySigner(loadSigningKey(text, io.env[variable], { file: keyFile, passwordEnv: variable }));
  }
  if (keyless)
    return createKeylessSigner({
      env: io.env,
      ...(urls.fulcio ? { fulcioUrl: urls.fulcio } : {}),
      ...(urls.rekor ? { rekorUrl: urls.rekor } : {}),
    });
  return undefined;
}

function optionalUrl(value: Values[string], flag: string): string | undefined {
  if (value === undefined) return undefined;
  const text = String(value);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`${flag} must be an http(s) URL, not ${JSON.stringify(text)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new UsageError(`${flag} must be an http(s) URL, not ${JSON.stringify(text)}`);
  return text.replace(/\/+$/, '');
}

/**
 * Warnings when the environment's generated OCIRepository (`gitops/flux/<env>/oci-repository.yaml`,
 * its text, or undefined without one) and the signing flags disagree: Flux would refuse the artifact
 * (verify set, nothing signed; key against keyless), or nothing checks the signature.
 */
export function verifyMismatch(
  ociRepositoryText: string | undefined,
  file: string,
  mode: ArtifactSigner['mode'] | undefined,
): Diagnostic[] {
  if (ociRepositoryText === undefined) return [];
  let verify: Record<string, unknown> | undefined;
  try {
    const parsed = jsYaml.load(ociRepositoryText) as { spec?: { verify?: Record<string, unknown> } } | undefined;
    verify = parsed?.spec?.verify;
  } catch {
    return [];
  }
  const wants =
    verify === undefined
      ? undefined
      : verify.secretRef !== undefined
        ? 'key'
        : verify.matchOIDCIdentity !== undefined
          ? 'keyless'
          : undefined;
  const where = { file, field: 'spec.verify', object: 'OCIRepository' };
  if (wants === undefined && mode !== undefined) {
    return [
      warning('publish', 'the artifact is signed but the OCIRepository does not verify signatures', {
        ...where,
        hint: `set gitops.flux.oci.verify (${mode === 'key' ? 'key: {secretRef: …}' : 'keyless: {issuer: …, identity: …}'}) so Flux checks them`,
      }),
    ];
  }
  if (wants !== undefined && mode === undefined) {
    return [
      warning(
        'publish',
        `the OCIRepository verifies ${wants} signatures, and this artifact is not signed: Flux will refuse it`,
        {
          ...where,
          hint:
            wants === 'key' ? "add --sign-key FILE (the private key of the Secret's cosign.pub)" : 'add --sign-keyless',
        },
      ),
    ];
  }
  if (wants !== undefined && mode !== undefined && wants !== mode) {
    return [
      warning(
        'publish',
        `the OCIRepository verifies ${wants} signatures, and this artifact is signed ${mode}: Flux will refuse it`,
        { ...where, hint: wants === 'key' ? 'sign with --sign-key FILE' : 'sign with --sign-keyless' },
      ),
    ];
  }
  return [];
}

/** `(key): signature sha256-….sig, bundle referrer sha256:…, listed in sha256-…` for the stderr line. */
export function describeSignatures(signed: SignedArtifact): string {
  const kept = (reused: boolean) => (reused ? ' (already there)' : '');
  const listed = signed.bundle.fallbackTag ? `, listed in ${signed.bundle.fallbackTag}` : '';
  return `(${signed.mode}): signature ${signed.legacy.tag}${kept(signed.legacy.reused)}, bundle referrer ${signed.bundle.digest}${kept(signed.bundle.reused)}${listed}`;
}

/** The `signatures` member of `publish --json`. */
export function signaturesJson(signed: SignedArtifact): Record<string, unknown> {
  const { fallbackTag } = signed.bundle;
  return {
    mode: signed.mode,
    legacy: { tag: signed.legacy.tag, digest: signed.legacy.digest },
    bundle: {
      digest: signed.bundle.digest,
      artifactType: signed.bundle.artifactType,
      ...(fallbackTag ? { fallbackTag } : {}),
    },
  };
}
