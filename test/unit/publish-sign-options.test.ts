/**
 * `publish`'s signing flags without a registry: what they accept and refuse (before anything is
 * rendered), and the warnings when the environment's OCIRepository would not accept what they sign.
 */
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpecError, UsageError } from '../../src/errors.js';
import { describeSignatures, prepareSigner, signaturesJson, verifyMismatch } from '../../src/publish/sign-options.js';
import { tempDir } from '../helpers/tmp.js';

const FILE = 'gitops/flux/prod/oci-repository.yaml';
const source = (verify: string) =>
  `apiVersion: source.toolkit.fluxcd.io/v1\nkind: OCIRepository\nmetadata: {name: capi-prod}\nspec:\n  url: oci://r/prod\n${verify}`;
const KEY = source('  verify: {provider: cosign, secretRef: {name: k}}\n');
const KEYLESS = source('  verify: {provider: cosign, matchOIDCIdentity: [{issuer: "^i$", subject: "^s$"}]}\n');
const NONE = source('');

describe('prepareSigner', () => {
  it('no flag, no signer; a key file relative to the working directory; keyless with a token', () => {
    const dir = tempDir();
    writeFileSync(
      path.join(dir, 'cosign.key'),
      generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'pem', type: 'pkcs8' }),
    );
    expect(prepareSigner({}, { cwd: dir, env: {} })).toBeUndefined();
    expect(prepareSigner({ 'sign-key': 'cosign.key' }, { cwd: dir, env: {} })?.mode).toBe('key');
    expect(
      prepareSigner(
        { 'sign-keyless': true, 'fulcio-url': 'https://fulcio.internal/', 'rekor-url': 'https://rekor.internal' },
        { cwd: dir, env: { SIGSTORE_ID_TOKEN: 'a.b.c' } },
      )?.mode,
    ).toBe('keyless');
  });

  it('usage mistakes are UsageErrors (exit 2); no token is a SpecError naming id-token: write', () => {
    const io = { cwd: tempDir(), env: {} };
    for (const values of [
      { 'sign-key': 'k', 'sign-keyless': true },
      { 'sign-key-password-env': 'PW' },
      { 'sign-key': 'k', 'sign-key-password-env': '1PW' },
      { 'rekor-url': 'https://rekor.internal' },
      { 'sign-keyless': true, 'fulcio-url': 'ftp://fulcio' },
      { 'sign-key': '' },
    ]) {
      expect(() => prepareSigner(values, io), JSON.stringify(values)).toThrow(UsageError);
    }
    expect(() => prepareSigner({ 'sign-keyless': true }, io)).toThrow(SpecError);
    expect(() => prepareSigner({ 'sign-keyless': true }, io)).toThrow(/needs an OIDC identity token/);
    // A half-set GitHub Actions environment (the job lacks id-token: write) is no token either.
    expect(() =>
      prepareSigner({ 'sign-keyless': true }, { ...io, env: { ACTIONS_ID_TOKEN_REQUEST_URL: 'https://x' } }),
    ).toThrow(/needs an OIDC identity token/);
  });
});

describe('verifyMismatch', () => {
  it('warns when Flux would refuse the artifact, or nothing checks its signature; not when they agree or there is no OCIRepository', () => {
    const messages = (text: string | undefined, mode: 'key' | 'keyless' | undefined) =>
      verifyMismatch(text, FILE, mode).map((d) => d.message);
    expect(messages(KEY, 'key')).toEqual([]);
    expect(messages(KEYLESS, 'keyless')).toEqual([]);
    expect(messages(NONE, undefined)).toEqual([]);
    expect(messages(undefined, 'key')).toEqual([]);
    expect(messages(KEY, undefined)).toEqual([
      'the OCIRepository verifies key signatures, and this artifact is not signed: Flux will refuse it',
    ]);
    expect(messages(KEYLESS, 'key')).toEqual([
      'the OCIRepository verifies keyless signatures, and this artifact is signed key: Flux will refuse it',
    ]);
    expect(messages(NONE, 'keyless')).toEqual([
      'the artifact is signed but the OCIRepository does not verify signatures',
    ]);
    expect(verifyMismatch(KEY, FILE, undefined)[0]).toMatchObject({
      severity: 'warning',
      code: 'publish',
      file: FILE,
      field: 'spec.verify',
      hint: expect.stringMatching(/--sign-key FILE/),
    });
  });
});

describe('the summary', () => {
  it('names the signature tag, the referrer and the fallback index, and what was already there', () => {
    const signed = {
      mode: 'key' as const,
      legacy: { tag: 'sha256-ab.sig', digest: 'sha256:cd', reused: true },
      bundle: {
        digest: 'sha256:ef',
        artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
        reused: false,
        fallbackTag: 'sha256-ab',
      },
    };
    expect(describeSignatures(signed)).toBe(
      '(key): signature sha256-ab.sig (already there), bundle referrer sha256:ef, listed in sha256-ab',
    );
    expect(signaturesJson(signed)).toEqual({
      mode: 'key',
      legacy: { tag: 'sha256-ab.sig', digest: 'sha256:cd' },
      bundle: { digest: 'sha256:ef', artifactType: signed.bundle.artifactType, fallbackTag: 'sha256-ab' },
    });
  });
});
