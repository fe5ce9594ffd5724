/**
 * The SOPS format as capi-render reads and writes it: files written by the real sops (Flux's
 * kustomize-controller test data, encrypted to its published age test keys) decrypt through
 * capi-render's reader with their MAC verified; what capi-render writes decrypts back; tampering is
 * named by line; `.sops.yaml` rules resolve as sops resolves them (first match wins).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { identitiesIn } from '../../src/secrets/sops/age-keys.js';
import {
  decryptSopsDocument,
  decryptSopsSecret,
  encryptDocument,
  readSopsDocument,
} from '../../src/secrets/sops/sops-document.js';
import { parseSopsRules } from '../../src/secrets/sops/sops-rules.js';
import { decryptSopsInputs } from '../../src/secrets/sops/decrypt-inputs.js';
import { parse } from 'yaml';
import {
  additionalDataOf,
  decryptValue,
  encryptValue,
  macAdditionalData,
  shouldEncrypt,
} from '../../src/secrets/sops/sops-values.js';

const DIR = path.join(import.meta.dirname, '../fixtures/sops/kustomize-controller');
const fixture = (f: string) => readFileSync(path.join(DIR, f), 'utf8');
const key = (f: string) => identitiesIn(fixture(f)).keys;
const FLUX_RECIPIENT = 'age1l44xcng8dqj32nlv6d930qvvrny05hglzcv9qpc7kxjc6902ma4qufys29';

const message = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof SpecError) return e.diagnostics.map((d) => `${d.file}:${d.line} ${d.message}`).join('\n');
    throw e;
  }
  return 'no error';
};

describe('files written by sops', () => {
  it('decrypts algorithms/age.yaml (sops 3.9.0) with its test identity, MAC verified', async () => {
    const plain = await decryptSopsSecret(fixture('algorithms-age.yaml'), key('keys-age.txt'), 'algorithms-age.yaml');
    expect(plain).toMatchObject({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'age' } });
    expect(Object.keys(plain.stringData as object)).toEqual(['key']);
    expect(typeof (plain.stringData as Record<string, unknown>).key).toBe('string');
    expect(plain.sops).toBeUndefined();
  });

  it('decrypts global/secret.yaml (sops 3.10.2)', async () => {
    const plain = await decryptSopsSecret(
      fixture('global-secret.yaml'),
      key('keys-age-global.txt'),
      'global-secret.yaml',
    );
    expect(plain).toMatchObject({
      kind: 'Secret',
      metadata: { name: 'global-age-secret', namespace: 'default' },
      type: 'Opaque',
    });
  });

  it('decrypts a sops-written Secret among the inputs, as the parsed object the loader holds', async () => {
    const input = {
      object: parse(fixture('global-secret.yaml')),
      file: 'providers/global.yaml',
      locate: () => ({ line: 9, col: 1 }),
    };
    const plain = {
      object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'p', namespace: 'x' } },
      file: 'providers/p.yaml',
      locate: () => ({ line: 1, col: 1 }),
    };
    const out = await decryptSopsInputs(
      { providers: [], configMaps: [], secrets: [input, plain] },
      { SOPS_AGE_KEY: fixture('keys-age-global.txt') },
    );
    expect(out.secrets[0]!.object).toMatchObject({ metadata: { name: 'global-age-secret' }, type: 'Opaque' });
    expect(out.secrets[0]!.object.sops).toBeUndefined();
    expect(out.secrets[1]).toBe(plain);
  });

  it('names the recipients when no identity opens the file', async () => {
    expect(
      await message(decryptSopsSecret(fixture('global-secret.yaml'), key('keys-age.txt'), 'global-secret.yaml')),
    ).toMatch(/^global-secret.yaml:\d+ global-secret.yaml is encrypted to age1henwn645/);
  });

  it('refuses an altered value, naming its line', async () => {
    const text = fixture('algorithms-age.yaml').replace('data:mHeXsmQ=', 'data:mHeYsmQ=');
    expect(await message(decryptSopsSecret(text, key('keys-age.txt'), 'age.yaml'))).toMatch(
      /^age.yaml:6 age.yaml has a value at stringData.key that does not authenticate/,
    );
  });

  it('refuses a changed lastmodified (the MAC is bound to it)', async () => {
    const text = fixture('algorithms-age.yaml').replace('2024-11-12T13:33:42Z', '2024-11-12T13:33:43Z');
    expect(await message(decryptSopsSecret(text, key('keys-age.txt'), 'age.yaml'))).toMatch(
      /age.yaml:\d+ age.yaml has a sops.mac that does not authenticate/,
    );
  });

  it('refuses a changed unencrypted value (the MAC covers every value)', async () => {
    const text = fixture('algorithms-age.yaml').replace('name: age', 'name: agf');
    expect(await message(decryptSopsSecret(text, key('keys-age.txt'), 'age.yaml'))).toMatch(
      /age.yaml:\d+ age.yaml does not match its sops.mac/,
    );
  });

  it('reports structure problems without a key', () => {
    const record = readSopsDocument(
      fixture('algorithms-age.yaml').replace('tag:IroV7hykADvD0IUaq6kikA==', 'tag:IroV7hyk'),
      'age.yaml',
    );
    expect(record.problems).toEqual([
      { line: 6, message: "has a value at stringData.key that has a 6-byte tag (AES-GCM's is 16)" },
    ]);
    expect(readSopsDocument(fixture('algorithms-age.yaml'), 'age.yaml').problems).toEqual([]);
    expect(readSopsDocument(fixture('algorithms-age.yaml'), 'age.yaml').age.map((a) => a.recipient)).toEqual([
      FLUX_RECIPIENT,
    ]);
  });
});

describe('what capi-render writes', () => {
  const plainSecret =
    'apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: capa-system\ndata:\n  b: Zm9v\n  a: YmFy\nstringData:\n  empty: ""\n  n: "12"\ntype: Opaque\n';

  it('round-trips through its own reader with the MAC verified, keeping key order', async () => {
    const text = await encryptDocument(
      plainSecret,
      { recipients: [FLUX_RECIPIENT], encryptedRegex: '^(data|stringData)$' },
      new Date('2026-01-02T03:04:05.678Z'),
    );
    expect(text).toMatch(
      /^apiVersion: v1\nkind: Secret\nmetadata:\n  name: creds\n  namespace: capa-system\ndata:\n  b: ENC\[AES256_GCM,data:[^\n]+type:str\]\n  a: ENC/,
    );
    expect(text).toContain('  empty: ""\n');
    expect(text).toMatch(
      /\nsops:\n  age:\n  - recipient: age1l44x[a-z0-9]+\n    enc: \|\n      -----BEGIN AGE ENCRYPTED FILE-----\n/,
    );
    expect(text).toMatch(
      /  lastmodified: "2026-01-02T03:04:05Z"\n  mac: ENC\[AES256_GCM,[^\n]+\]\n  encrypted_regex: \^\(data\|stringData\)\$\n  version: 3\.9\.0\n$/,
    );
    expect(text).not.toContain('Zm9v');
    const plain = await decryptSopsSecret(text, key('keys-age.txt'), 'mine.yaml');
    expect(plain).toEqual({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'creds', namespace: 'capa-system' },
      data: { b: 'Zm9v', a: 'YmFy' },
      stringData: { empty: '', n: '12' },
      type: 'Opaque',
    });
  });

  it('encrypts values as sops does: 32-byte IV, key path as additional data', () => {
    const k = Buffer.alloc(32, 7);
    const enc = encryptValue('hello', k, additionalDataOf(['data', 'x']));
    expect(enc).toMatch(/^ENC\[AES256_GCM,data:[^,]+,iv:[A-Za-z0-9+/]{43}=,tag:[^,]{22}==,type:str\]$/);
    expect(decryptValue(enc, k, 'data:x:')).toBe('hello');
    expect(() => decryptValue(enc, k, 'data:y:')).toThrow(/does not authenticate/);
    expect(decryptValue(encryptValue(true, k, 'a:'), k, 'a:')).toBe(true);
    expect(decryptValue(encryptValue(12, k, 'a:'), k, 'a:')).toBe(12);
    expect(macAdditionalData('2024-11-12T13:33:42+00:00')).toBe('2024-11-12T13:33:42Z');
    expect(macAdditionalData('2024-11-12T13:33:42.123+02:00')).toBe('2024-11-12T13:33:42+02:00');
    expect(macAdditionalData('yesterday')).toBeUndefined();
  });

  it('selects values as sops does: any key of the path decides', () => {
    expect(shouldEncrypt(['data', 'x'], { encryptedRegex: '^(data|stringData)$' })).toBe(true);
    expect(shouldEncrypt(['metadata', 'name'], { encryptedRegex: '^(data|stringData)$' })).toBe(false);
    expect(shouldEncrypt(['metadata', 'labels', 'data'], { encryptedRegex: '^(data|stringData)$' })).toBe(true);
    expect(shouldEncrypt(['kind'], { unencryptedRegex: '^(kind|apiVersion|metadata)$' })).toBe(false);
    expect(shouldEncrypt(['x_unencrypted', 'y'], { unencryptedSuffix: '_unencrypted' })).toBe(false);
    expect(shouldEncrypt(['x'], { encryptedSuffix: '_enc' })).toBe(false);
  });

  it('a record that decrypts to other plaintext is told from one that does not open', async () => {
    const text = await encryptDocument(
      plainSecret,
      { recipients: [FLUX_RECIPIENT], encryptedRegex: '^(data|stringData)$' },
      new Date(0),
    );
    expect(await decryptSopsDocument(readSopsDocument(text, 'f'), key('keys-age-global.txt'))).toBeUndefined();
  });
});

describe('.sops.yaml creation rules', () => {
  const rules = parseSopsRules(
    [
      'creation_rules:',
      '  - path_regex: rendered/prod/.*\\.yaml$',
      '    encrypted_regex: ^(data|stringData)$',
      `    age: ${FLUX_RECIPIENT}, age1henwn645drkd3fa34t27t2w2x0nsgw3w4h62gmg5x5xflyjpy38s5cncph`,
      '  - path_regex: rendered/dev/',
      '    encrypted_regex: ^(data|stringData)$',
      '    age:',
      `      - ${FLUX_RECIPIENT}`,
      '  - path_regex: rendered/grouped/',
      '    encrypted_regex: ^(data|stringData)$',
      '    key_groups:',
      `      - age: [${FLUX_RECIPIENT}]`,
      '  - path_regex: rendered/pgp/',
      '    encrypted_regex: ^(data|stringData)$',
      '    pgp: 35C1A64CD7FC0AB6EB66756B2445463C3234ECE1',
      '  - path_regex: rendered/all/',
      `    age: ${FLUX_RECIPIENT}`,
      '  - path_regex: rendered/none/',
      '    encrypted_regex: ^(data|stringData)$',
      '  - path_regex: rendered/shamir/',
      '    encrypted_regex: ^(data|stringData)$',
      '    key_groups:',
      `      - age: [${FLUX_RECIPIENT}]`,
      `      - age: [${FLUX_RECIPIENT}]`,
      '',
    ].join('\n'),
    '.sops.yaml',
  );
  const outcome = (p: string) => {
    try {
      const r = rules.ruleFor(p);
      return `rule ${r.index}: ${r.recipients.map((x) => x.slice(0, 9)).join(',')} ${r.encryptedRegex}`;
    } catch (e) {
      return (e as SpecError).diagnostics[0]!.message;
    }
  };
  it.each([
    ['rendered/prod/infrastructure-aws/secret-x.yaml', 'rule 0: age1l44xc,age1henwn ^(data|stringData)$'],
    ['rendered/dev/infrastructure-aws/secret-x.yaml', 'rule 1: age1l44xc ^(data|stringData)$'],
    // First match wins: a prod path never reaches the dev rule, a dev/ file under prod/ is prod.
    ['rendered/prod/dev/secret.yaml', 'rule 0: age1l44xc,age1henwn ^(data|stringData)$'],
    ['rendered/grouped/a/secret.yaml', 'rule 2: age1l44xc ^(data|stringData)$'],
    [
      'rendered/pgp/a/secret.yaml',
      'creation_rules[3] (the first rule matching rendered/pgp/a/secret.yaml) names pgp keys; capi-render encrypts to age recipients only',
    ],
    [
      'rendered/all/a/secret.yaml',
      'creation_rules[4] (the first rule matching rendered/all/a/secret.yaml) encrypts every value, kind and metadata included, which kustomize and Flux cannot read',
    ],
    [
      'rendered/none/a/secret.yaml',
      'creation_rules[5] (the first rule matching rendered/none/a/secret.yaml) has no age recipient',
    ],
    [
      'rendered/shamir/a/secret.yaml',
      'creation_rules[6] (the first rule matching rendered/shamir/a/secret.yaml) has 2 key_groups (Shamir secret sharing); capi-render writes one group of age recipients',
    ],
    [
      'elsewhere/secret.yaml',
      'no creation rule of .sops.yaml matches elsewhere/secret.yaml, so it has no recipients to encrypt to',
    ],
  ])('%s → %s', (p, expected) => {
    expect(outcome(p)).toBe(expected);
  });

  it("reads Flux's own .sops.yaml (anchors, aliases, a fallback rule without path_regex)", () => {
    const flux = parseSopsRules(fixture('.sops.yaml'), '.sops.yaml');
    expect(flux.ruleFor('algorithms/age.yaml')).toMatchObject({
      index: 2,
      recipients: [FLUX_RECIPIENT],
      encryptedRegex: '^(data|stringData)$',
    });
    expect(() => flux.ruleFor('inside.yaml')).toThrow(/names pgp keys/);
    // The fallback (no path_regex) matches anything; it selects no values (everything would be encrypted).
    expect(() => flux.ruleFor('files/file.bin')).toThrow(/creation_rules\[4\] .* encrypts every value/);
  });
});
