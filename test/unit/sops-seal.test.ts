/**
 * The seal step on its own (secrets/sops/seal-environment.ts): a marked Secret becomes its encrypted
 * file; the committed ciphertext is kept while it proves itself; a Secret whose values are
 * unavailable keeps a committed ciphertext that proves itself and is an error without one.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { KubeObject } from 'capi-render';
import { planEnvironment, type RenderedEnvironment } from '../../src/plan/output-plan.js';
import { markForSops } from '../../src/secrets/sops/pending.js';
import { createSopsSealer } from '../../src/secrets/sops/seal-environment.js';
import { decryptSopsSecret } from '../../src/secrets/sops/sops-document.js';
import { identitiesIn } from '../../src/secrets/sops/age-keys.js';
import { tempDir } from '../helpers/tmp.js';

const KEYS = path.join(import.meta.dirname, '../fixtures/sops/kustomize-controller/keys-age.txt');
const RECIPIENT = 'age1l44xcng8dqj32nlv6d930qvvrny05hglzcv9qpc7kxjc6902ma4qufys29';
const FILE = 'dev/infrastructure-aws/secret-creds.yaml';
const secret: KubeObject = {
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name: 'creds', namespace: 'capa-system' },
  data: { token: Buffer.from('s3cr3t-value').toString('base64') },
  type: 'Opaque',
};
const env = (obj: KubeObject): RenderedEnvironment => ({
  name: 'dev',
  components: [{ name: 'infrastructure-aws', objects: [obj] }],
});

function setup() {
  const repo = tempDir();
  writeFileSync(
    path.join(repo, '.sops.yaml'),
    `creation_rules:\n  - path_regex: ^rendered/\n    encrypted_regex: ^(data|stringData)$\n    age: ${RECIPIENT}\n`,
  );
  const outputDir = path.join(repo, 'rendered');
  const sealer = (withKey: boolean, check = false) =>
    createSopsSealer({
      repoRoot: repo,
      outputDir,
      env: withKey ? { SOPS_AGE_KEY_FILE: KEYS } : {},
      check,
      now: () => new Date('2026-03-04T05:06:07Z'),
    });
  const seal = async (obj: KubeObject, withKey: boolean, check = false) => {
    const files = planEnvironment(env(obj));
    const out = await sealer(withKey, check).seal(env(obj), files, 'flux');
    return { text: files.get(FILE)!, ...out };
  };
  const commit = (text: string) => {
    mkdirSync(path.dirname(path.join(outputDir, FILE)), { recursive: true });
    writeFileSync(path.join(outputDir, FILE), text);
  };
  return { repo, seal, commit };
}

const message = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof SpecError) return e.diagnostics[0]!.message;
    throw e;
  }
  return 'no error';
};

describe('seal', () => {
  it('encrypts a marked Secret; the sealed object replaces it; lastmodified is the clock given', async () => {
    const { seal } = setup();
    const { text, environment } = await seal(markForSops(secret, 'sops-age'), false);
    expect(text).toContain("lastmodified: '2026-03-04T05:06:07Z'");
    expect(text).not.toContain(Buffer.from('s3cr3t-value').toString('base64'));
    const sealed = environment.components[0]!.objects[0]!;
    expect((sealed.sops as { age: unknown[] }).age).toHaveLength(1);
    expect(await decryptSopsSecret(text, identitiesIn(readFileSync(KEYS, 'utf8')).keys)).toEqual(secret);
  });

  it('keeps the committed ciphertext while it decrypts to the same values; encrypts anew otherwise', async () => {
    const { seal, commit } = setup();
    const first = (await seal(markForSops(secret, 'sops-age'), true)).text;
    commit(first);
    expect((await seal(markForSops(secret, 'sops-age'), true)).text).toBe(first);
    const changed = { ...secret, data: { token: Buffer.from('rotated').toString('base64') } };
    const second = await seal(markForSops(changed, 'sops-age'), true);
    expect(second.text).not.toBe(first);
    // check without a key keeps what proves its structure and recipients; build without one encrypts anew, saying so.
    expect((await seal(markForSops(secret, 'sops-age'), false, true)).text).toBe(first);
    // Without a key, keys and unencrypted values still tell: a key added is seen by check.
    const more = await seal(
      markForSops({ ...secret, data: { ...(secret.data as object), extra: 'eHh4eA==' } }, 'sops-age'),
      false,
      true,
    );
    expect(more.text).not.toBe(first);
    expect(more.warnings.map((w) => w.message)).toEqual([
      `rendered/${FILE} holds other keys or unencrypted values than the inputs render; it needs rebuilding`,
    ]);
    const relabelled = await seal(
      markForSops({ ...secret, type: 'kubernetes.io/basic-auth' }, 'sops-age'),
      false,
      true,
    );
    expect(relabelled.text).not.toBe(first);
    const blind = await seal(markForSops(secret, 'sops-age'), false);
    expect(blind.text).not.toBe(first);
    expect(blind.warnings.map((w) => w.message)).toEqual([
      `rendered/${FILE}: encrypted anew (no SOPS_AGE_KEY or SOPS_AGE_KEY_FILE to compare the committed ciphertext with)`,
    ]);
  });

  it('values unavailable: the committed ciphertext is kept once it proves itself, and is required', async () => {
    const { seal, commit } = setup();
    const unset = markForSops({ ...secret, data: {} }, 'sops-age', { valuesUnavailable: true });
    expect(await message(seal(unset, false))).toBe(
      `rendered/${FILE}: its values are not set in this build, and there is no committed encrypted file to keep`,
    );
    const first = (await seal(markForSops(secret, 'sops-age'), true)).text;
    commit(first);
    expect((await seal(unset, false)).text).toBe(first);
    expect((await seal(unset, true)).text).toBe(first);
    expect((await seal(unset, true, true)).text).toBe(first);
    // Values that are set are compared with the committed ones when it can be decrypted.
    const partly = markForSops({ ...secret, data: { token: Buffer.from('rotated').toString('base64') } }, 'sops-age', {
      valuesUnavailable: true,
    });
    expect(await message(seal(partly, true))).toBe(
      `rendered/${FILE}: its values are not set in this build, and the committed file holds another data.token than the inputs render, which cannot be encrypted anew while the others are not set`,
    );
    expect((await seal(markForSops(secret, 'sops-age', { valuesUnavailable: true }), true)).text).toBe(first);
    // A record that does not verify cannot stand in for the values.
    commit(
      first.replace(
        /token: ENC\[AES256_GCM,data:(.)/,
        (_m, c: string) => `token: ENC[AES256_GCM,data:${c === 'A' ? 'B' : 'A'}`,
      ),
    );
    expect(await message(seal(unset, true))).toMatch(/has a value at data\.token that does not authenticate/);
    commit(
      first.replace(
        `recipient: ${RECIPIENT}`,
        'recipient: age1henwn645drkd3fa34t27t2w2x0nsgw3w4h62gmg5x5xflyjpy38s5cncph',
      ),
    );
    expect(await message(seal(unset, false))).toMatch(
      /its values are not set in this build, and the committed file is encrypted to other recipients/,
    );
  });
});
