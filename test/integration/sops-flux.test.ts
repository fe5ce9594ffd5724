/**
 * `secrets.mode: sops` through the CLI, on the real CAPA components (TKG's v2.0.2 copy) whose AWS
 * credential lands in Secret capa-manager-bootstrap-credentials: the build writes it encrypted as
 * sops writes it, to the recipients of `.sops.yaml`, and the Flux Kustomization of its folder
 * decrypts it. Checked by readers sharing no code with capi-render: Debian's `age` unwraps the data
 * key and test/helpers/sops_verify.py (python3-cryptography) decrypts the values and the MAC. The
 * ciphertext is kept while nothing changed (a second build writes nothing; `check` passes with and
 * without the key), and a tampered value, MAC or recipient fails `check` naming the file.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { consumerSchemaProblems } from '../helpers/consumer-schemas.js';
import type { JsonObject } from 'capi-render';
import { encryptDocument } from '../../src/secrets/sops/sops-document.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';

const CREDENTIAL = Buffer.from(
  '[default]\naws_access_key_id = AKIAEXAMPLESECRET\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n',
).toString('base64');
const KEY_ID = 'AKIAEXAMPLESECRET';
const SECRET_FILE = 'rendered/default/infrastructure-aws/secret-capa-manager-bootstrap-credentials.yaml';
const INPUT = 'providers/vars.yaml';
const KEYS = path.join(import.meta.dirname, '../fixtures/sops/kustomize-controller');
/** Flux's published age test keys (test/fixtures/PROVENANCE.md). */
const RECIPIENT = 'age1l44xcng8dqj32nlv6d930qvvrny05hglzcv9qpc7kxjc6902ma4qufys29';
const OTHER_RECIPIENT = 'age1henwn645drkd3fa34t27t2w2x0nsgw3w4h62gmg5x5xflyjpy38s5cncph';
const VERIFIER = path.join(import.meta.dirname, '../helpers/sops_verify.py');

const haveTools =
  spawnSync('age', ['--version']).status === 0 &&
  spawnSync('/usr/bin/python3', ['-c', 'import cryptography, yaml']).status === 0;
// CI installs them (.ci/run); a developer machine without them skips the independent readers only.
const itTools = haveTools || process.env.CI ? it : it.skip;

const aws = `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.0.2\n  configSecret:\n    name: aws-variables\n`;
const vars = (credential: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws-variables\n  namespace: capa-system\nstringData:\n  AWS_B64ENCODED_CREDENTIALS: "${credential}"\n`;
const config = (extra = '', variables = '') =>
  configYaml(
    `variables:\n  CAPA_CONTROLLER_IMAGE_TAG: v2.0.2\n  TKG_NO_PROXY: ""\n  TKG_HTTPS_PROXY: ""\n  TKG_HTTP_PROXY: ""\n${variables}secrets:\n  mode: sops\n${extra}gitops:\n  flavour: flux\n`,
    // TKG's v2.0.2 copy of CAPA first: the bundled repository has real AWS releases too, and the first holding the label wins.
    [`${FIXTURES}derived/tanzu-framework`],
  );
const sopsYaml = (recipients: string) =>
  `creation_rules:\n  - path_regex: ^rendered/.*\\.yaml$\n    encrypted_regex: ^(data|stringData)$\n    age: ${recipients}\n`;

function repoWith(files: Record<string, string> = {}): { repo: string; keyFile: string } {
  const repo = makeRepo({
    'capi-render.yaml': config(),
    'providers/core.yaml': CORE(),
    'providers/aws.yaml': aws,
    [INPUT]: vars(CREDENTIAL),
    '.sops.yaml': sopsYaml(RECIPIENT),
    ...files,
  });
  // The identity lives outside the repository, as a developer's or CI's would.
  const keyFile = path.join(repo, '..', `${path.basename(repo)}-age.txt`);
  copyFileSync(path.join(KEYS, 'keys-age.txt'), keyFile);
  return { repo, keyFile };
}

const withKey = (keyFile: string) => ({ SOPS_AGE_KEY_FILE: keyFile });

/** The regular files under `dir` (relative path → text); a FIFO or link planted by a case is not read. */
function regularFilesUnder(dir: string, rel = ''): [string, string][] {
  return readdirSync(path.join(dir, rel))
    .sort()
    .flatMap((name) => {
      const child = rel ? `${rel}/${name}` : name;
      const st = lstatSync(path.join(dir, child));
      return st.isDirectory()
        ? regularFilesUnder(dir, child)
        : st.isFile()
          ? [[child, readFileSync(path.join(dir, child), 'utf8')] as [string, string]]
          : [];
    });
}

/** Every place the credential shows up, in any form: only the input may hold it. */
function placesOf(repo: string, r: CliResult, value: string): string[] {
  const forms = [value, Buffer.from(value).toString('base64')];
  const holds = (text: string) => forms.some((f) => text.includes(f));
  return [
    ...(holds(r.stdout) ? ['stdout'] : []),
    ...(holds(r.stderr) ? ['stderr'] : []),
    ...regularFilesUnder(repo)
      .filter(([, t]) => holds(t))
      .map(([f]) => f),
  ];
}

function verify(
  repo: string,
  keyFile: string,
): { plaintext: { data: Record<string, string> }; recipients: string[]; opened: string; mac: string } {
  return JSON.parse(
    execFileSync('/usr/bin/python3', [VERIFIER, path.join(repo, SECRET_FILE), keyFile], { encoding: 'utf8' }),
  );
}

describe('secrets.mode sops (Flux)', () => {
  itTools('build encrypts the Secret as sops does; age and an independent reader decrypt it', async () => {
    const { repo, keyFile } = repoWith();
    const r = await runCli(['build'], { cwd: repo, env: withKey(keyFile) });
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(path.join(repo, SECRET_FILE), 'utf8');
    expect(text).toMatch(/^apiVersion: v1\nkind: Secret\nmetadata:\n/);
    expect(text).toMatch(
      /\n {2}credentials: ENC\[AES256_GCM,data:[A-Za-z0-9+/=]+,iv:[A-Za-z0-9+/=]{44},tag:[A-Za-z0-9+/=]{24},type:str\]\n/,
    );
    // Serialised as every output file is: keys sorted after apiVersion, kind, metadata (sops reads its block anywhere).
    expect(text).toMatch(
      /\nsops:\n {2}age:\n {2}- enc: \|\n {6}-----BEGIN AGE ENCRYPTED FILE-----\n(?: {6}[A-Za-z0-9+/=]{1,64}\n)+ {6}-----END AGE ENCRYPTED FILE-----\n {4}recipient: age1l44x[a-z0-9]+\n {2}encrypted_regex: \^\(data\|stringData\)\$\n {2}lastmodified: '\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ'\n {2}mac: ENC\[AES256_GCM,[^\n]+,type:str\]\n {2}version: 3\.9\.0\ntype: Opaque\n$/,
    );
    // `build --stdout` prints exactly what rendered/ holds.
    const stdout = await runCli(['build', '--stdout'], { cwd: repo, env: withKey(keyFile) });
    expect(stdout.code, stdout.stderr).toBe(0);
    expect(
      stdout.stdout
        .split(/^---\n/m)
        .find((d) => d.includes('name: capa-manager-bootstrap-credentials\n') && d.includes('kind: Secret')),
    ).toBe(text);
    // The credential is in its input only: not in any output file, stdout or stderr, in no form.
    expect(placesOf(repo, r, CREDENTIAL)).toEqual([INPUT]);
    expect(placesOf(repo, r, KEY_ID)).toEqual([]);

    // Debian's age opens the data key with the identity: 32 bytes.
    const sops = (jsYaml.load(text) as { sops: { age: { enc: string }[] } }).sops;
    const dataKey = execFileSync('age', ['--decrypt', '--identity', keyFile], { input: sops.age[0]!.enc });
    expect(dataKey.length).toBe(32);
    // The independent reader decrypts every value and verifies the MAC.
    const out = verify(repo, keyFile);
    expect(out).toMatchObject({ recipients: [RECIPIENT], opened: RECIPIENT, mac: 'verified' });
    expect(Buffer.from(out.plaintext.data.credentials!, 'base64').toString()).toContain(KEY_ID);

    // The Flux Kustomization of the folder decrypts with the sops-age Secret; the others do not decrypt.
    const kustomizations = jsYaml.loadAll(
      readFileSync(path.join(repo, 'gitops/flux/default/flux-kustomizations.yaml'), 'utf8'),
    ) as { metadata: { name: string }; spec: { decryption?: unknown } }[];
    expect(kustomizations.map((k) => [k.metadata.name, k.spec.decryption ?? null])).toEqual([
      ['capi-default-cert-manager', null],
      ['capi-default-cluster-api', null],
      ['capi-default-infrastructure-aws', { provider: 'sops', secretRef: { name: 'sops-age' } }],
    ]);
    // Valid against kustomize-controller's own CRD.
    for (const k of kustomizations) expect(consumerSchemaProblems(k as unknown as JsonObject)).toEqual([]);
    // .sops.yaml is an input: the lock records it.
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toMatch(/file: \.sops\.yaml\n/);

    // Unchanged inputs: the ciphertext is kept, a second build writes nothing (forced past the no-op shortcut).
    const before = snapshotTree(repo);
    const again = await runCli(['build', '--force'], { cwd: repo, env: withKey(keyFile) });
    expect(again.code, again.stderr).toBe(0);
    expect(snapshotTree(repo)).toEqual(before);
    // check passes with the key (decrypted, MAC and values compared) and without (structure, recipients).
    expect((await runCli(['check'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
    const noKey = await runCli(['check'], { cwd: repo });
    expect(noKey.code, noKey.stderr).toBe(0);
    expect(placesOf(repo, noKey, CREDENTIAL)).toEqual([INPUT]);
  });

  itTools('changed values or recipients are encrypted anew; without a key a build says so in one line', async () => {
    const { repo, keyFile } = repoWith();
    expect((await runCli(['build'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
    const first = readFileSync(path.join(repo, SECRET_FILE), 'utf8');

    // A new credential: check (with the key) reports drift; the build re-encrypts to the new value.
    const rotated = Buffer.from('[default]\naws_access_key_id = AKIAROTATEDSECRETX\n').toString('base64');
    writeFileSync(path.join(repo, INPUT), vars(rotated));
    const drift = await runCli(['check'], { cwd: repo, env: withKey(keyFile) });
    expect(drift.code).toBe(1);
    expect(drift.stderr).toContain(SECRET_FILE);
    expect(drift.stderr).not.toContain('AKIAROTATED');
    expect((await runCli(['build'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
    expect(readFileSync(path.join(repo, SECRET_FILE), 'utf8')).not.toBe(first);
    expect(Buffer.from(verify(repo, keyFile).plaintext.data.credentials!, 'base64').toString()).toContain(
      'AKIAROTATEDSECRETX',
    );

    // A second recipient in .sops.yaml: encrypted anew to both, each stanza opens.
    writeFileSync(path.join(repo, '.sops.yaml'), sopsYaml(`${RECIPIENT},${OTHER_RECIPIENT}`));
    expect((await runCli(['check'], { cwd: repo })).code).toBe(1);
    expect((await runCli(['build'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
    expect(verify(repo, keyFile).recipients).toEqual([RECIPIENT, OTHER_RECIPIENT]);
    const globalKey = path.join(KEYS, 'keys-age-global.txt');
    expect(verify(repo, globalKey).opened).toBe(OTHER_RECIPIENT);

    // Without a key the build cannot tell whether the committed values are current: it encrypts anew and says so.
    const kept = readFileSync(path.join(repo, SECRET_FILE), 'utf8');
    const blind = await runCli(['build', '--force'], { cwd: repo });
    expect(blind.code, blind.stderr).toBe(0);
    expect(blind.stderr).toMatch(
      /warning\[sops\]: rendered\/default\/infrastructure-aws\/secret-capa-manager-bootstrap-credentials\.yaml: encrypted anew \(no SOPS_AGE_KEY or SOPS_AGE_KEY_FILE to compare the committed ciphertext with\)/,
    );
    expect(readFileSync(path.join(repo, SECRET_FILE), 'utf8')).not.toBe(kept);
    expect(verify(repo, keyFile).mac).toBe('verified');
  });

  it('a no-op build writes nothing even without the identity; .sops.yaml is an input of the no-op stamp', async () => {
    const { repo, keyFile } = repoWith();
    expect((await runCli(['build'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
    const before = snapshotTree(repo);
    const noop = await runCli(['build'], { cwd: repo });
    expect(noop.code, noop.stderr).toBe(0);
    expect(noop.stderr).not.toContain('warning[sops]');
    expect(snapshotTree(repo)).toEqual(before);
    // A new recipient in .sops.yaml: the next build is a real one, and encrypts to it.
    writeFileSync(path.join(repo, '.sops.yaml'), sopsYaml(`${RECIPIENT},${OTHER_RECIPIENT}`));
    expect((await runCli(['build'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
    expect(
      (
        jsYaml.load(readFileSync(path.join(repo, SECRET_FILE), 'utf8')) as { sops: { age: { recipient: string }[] } }
      ).sops.age.map((a) => a.recipient),
    ).toEqual([RECIPIENT, OTHER_RECIPIENT]);
  });

  it('check fails on a tampered value, MAC or recipient, naming the file', async () => {
    const { repo, keyFile } = repoWith();
    expect((await runCli(['build'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
    const file = path.join(repo, SECRET_FILE);
    const good = readFileSync(file, 'utf8');
    const lineOf = (needle: string) => good.split('\n').findIndex((l) => l.includes(needle)) + 1;

    // A value swapped for another well-formed ciphertext: only the key can tell.
    const value = /credentials: ENC\[AES256_GCM,data:([A-Za-z0-9+/]{8})/.exec(good)![1]!;
    const flipped = value.slice(0, 4) + (value[4] === 'A' ? 'B' : 'A') + value.slice(5);
    writeFileSync(file, good.replace(`data:${value}`, `data:${flipped}`));
    const tampered = await runCli(['check'], { cwd: repo, env: withKey(keyFile) });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toContain(`${SECRET_FILE}:${lineOf('credentials: ENC')}`);
    expect(tampered.stderr).toMatch(/has a value at data\.credentials that does not authenticate/);

    // A MAC that is not one: seen without a key.
    writeFileSync(file, good.replace(/mac: ENC\[AES256_GCM,data:[^,]+,/, 'mac: ENC[AES256_GCM,data:AAAA,'));
    const mac = await runCli(['check'], { cwd: repo });
    expect(mac.code).toBe(1);
    expect(mac.stderr).toContain(`${SECRET_FILE}:${lineOf('  mac: ')}`);
    expect(mac.stderr).toMatch(/sops\.mac that is not an encrypted SHA-512 hex digest/);

    // A recipient swapped: the rules name another, so the file needs rebuilding.
    writeFileSync(file, good.replace(`recipient: ${RECIPIENT}`, `recipient: ${OTHER_RECIPIENT}`));
    const recipient = await runCli(['check'], { cwd: repo });
    expect(recipient.code).toBe(1);
    expect(recipient.stderr).toContain(SECRET_FILE);
    expect(recipient.stderr).toMatch(
      /is encrypted to other recipients or values than creation_rules\[0\] of \.sops\.yaml names/,
    );

    // Restored, it passes again.
    writeFileSync(file, good);
    expect((await runCli(['check'], { cwd: repo })).code).toBe(0);
  });

  it('without .sops.yaml, or a rule for the file, the build fails in one line naming both', async () => {
    const none = repoWith({ '.sops.yaml': '' }).repo;
    rmSync(path.join(none, '.sops.yaml'));
    const r = await runCli(['build'], { cwd: none });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error\[sops\]: secrets\.mode sops: the repository has no \.sops\.yaml to take the recipients of rendered\/default\/infrastructure-aws\/secret-capa-manager-bootstrap-credentials\.yaml from/,
    );
    expect(r.stderr).toMatch(/hint: create \.sops\.yaml/);

    const other = repoWith({
      '.sops.yaml': `creation_rules:\n  - path_regex: ^secrets/\n    encrypted_regex: ^(data|stringData)$\n    age: ${RECIPIENT}\n`,
    }).repo;
    const r2 = await runCli(['build'], { cwd: other });
    expect(r2.code).toBe(1);
    expect(r2.stderr).toMatch(
      /\.sops\.yaml:\d+.*no creation rule of \.sops\.yaml matches rendered\/default\/infrastructure-aws\/secret-capa-manager-bootstrap-credentials\.yaml/,
    );
    expect(snapshotTree(other)[SECRET_FILE]).toBeUndefined();
  });

  it('a decryption Secret of its own name; Argo CD is refused', async () => {
    const { repo } = repoWith({ 'capi-render.yaml': config('  sops:\n    decryptionSecret: flux-age\n') });
    expect((await runCli(['build'], { cwd: repo })).code).toBe(0);
    expect(readFileSync(path.join(repo, 'gitops/flux/default/flux-kustomizations.yaml'), 'utf8')).toContain(
      'decryption:\n    provider: sops\n    secretRef:\n      name: flux-age\n',
    );

    const argo = repoWith({ 'capi-render.yaml': config().replace('flavour: flux', 'flavour: argocd') }).repo;
    const r = await runCli(['build'], { cwd: argo });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error\[sops\]: secrets\.mode sops in environment default: Argo CD cannot decrypt SOPS files by itself/,
    );
  });
});

/** Hostile and broken SOPS inputs and records: one error each, exit 1, rendered/ as it was. */
describe('secrets.mode sops: hostile input', () => {
  const outside = (repo: string, name: string, text: string) => {
    const dir = path.join(repo, '..', `${path.basename(repo)}-outside`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, name), text);
    return path.join(dir, name);
  };
  const cases: {
    name: string;
    built?: boolean;
    setup: (repo: string, keyFile: string) => Record<string, string> | void;
    code: string;
    text: RegExp;
  }[] = [
    {
      name: 'a .sops.yaml linked to a file outside the repository',
      setup: (repo) => {
        rmSync(path.join(repo, '.sops.yaml'));
        symlinkSync(outside(repo, 'sops.yaml', sopsYaml(RECIPIENT)), path.join(repo, '.sops.yaml'));
      },
      code: 'input-path',
      text: /\.sops\.yaml/,
    },
    {
      name: 'a .sops.yaml that is a FIFO',
      setup: (repo) => {
        rmSync(path.join(repo, '.sops.yaml'));
        execFileSync('mkfifo', [path.join(repo, '.sops.yaml')]);
      },
      code: 'input-path',
      text: /\.sops\.yaml/,
    },
    {
      name: 'a huge .sops.yaml',
      setup: (repo) =>
        writeFileSync(path.join(repo, '.sops.yaml'), `# ${'x'.repeat(2 * 1024 * 1024)}\n${sopsYaml(RECIPIENT)}`),
      code: 'yaml-limit',
      text: /\.sops\.yaml/,
    },
    {
      name: 'a .sops.yaml alias bomb',
      setup: (repo) => {
        const lines = ['x0: &x0 [a, a, a, a, a, a, a, a, a, a]'];
        for (let i = 1; i < 9; i++)
          lines.push(
            `x${i}: &x${i} [${Array(10)
              .fill(`*x${i - 1}`)
              .join(', ')}]`,
          );
        writeFileSync(path.join(repo, '.sops.yaml'), `${lines.join('\n')}\n${sopsYaml(RECIPIENT)}`);
      },
      code: 'sops',
      text: /\.sops\.yaml has aliases capi-render does not expand/,
    },
    {
      name: "a .sops.yaml rule that would leave the Secret's data in plain text",
      setup: (repo) =>
        writeFileSync(
          path.join(repo, '.sops.yaml'),
          sopsYaml(RECIPIENT).replace('^(data|stringData)$', '^stringData$'),
        ),
      code: 'sops',
      text: /\.sops\.yaml:2: error\[sops\]: creation_rules\[0\] of \.sops\.yaml would leave data\.credentials of rendered\/default\/infrastructure-aws\/secret-capa-manager-bootstrap-credentials\.yaml unencrypted, and it holds secret values/,
    },
    {
      name: 'a .sops.yaml recipient that is not an age key',
      setup: (repo) => writeFileSync(path.join(repo, '.sops.yaml'), sopsYaml('ssh-ed25519 AAAAC3Nza')),
      code: 'sops',
      text: /has a recipient that is not an age X25519 public key/,
    },
    {
      name: 'SOPS_AGE_KEY_FILE naming a FIFO',
      built: true,
      setup: (repo) => {
        const fifo = path.join(repo, '..', `${path.basename(repo)}-key.fifo`);
        execFileSync('mkfifo', [fifo]);
        return { SOPS_AGE_KEY_FILE: fifo };
      },
      code: 'sops',
      text: /SOPS_AGE_KEY_FILE names .*, which is not a regular file/,
    },
    {
      name: 'a committed encrypted Secret replaced by a link out of the repository',
      built: true,
      setup: (repo) => {
        const file = path.join(repo, SECRET_FILE);
        const text = readFileSync(file, 'utf8');
        rmSync(file);
        symlinkSync(outside(repo, 'secret.yaml', text), file);
      },
      code: 'output-location',
      text: /secret-capa-manager-bootstrap-credentials\.yaml/,
    },
  ];
  it.each(cases)('$name → one error ($code), exit 1, rendered/ untouched', async ({ built, setup, code, text }) => {
    const { repo, keyFile } = repoWith();
    if (built) expect((await runCli(['build'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
    const env = setup(repo, keyFile) ?? {};
    const snap = () =>
      built
        ? snapshotTree(path.join(repo, 'rendered'))
        : regularFilesUnder(repo).filter(([f]) => f.startsWith('rendered/'));
    const before = snap();
    for (const command of ['build', 'check']) {
      const r = await runCli([command, '--force'].slice(0, command === 'build' ? 2 : 1), { cwd: repo, env });
      expect(r.code, `${command}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(`error[${code}]`);
      expect(r.stderr).toMatch(text);
      expect(placesOf(repo, r, CREDENTIAL)).toEqual([INPUT]);
    }
    expect(snap()).toEqual(before);
  });
});

describe('SOPS-encrypted configSecrets under providers/', () => {
  const encryptedVars = () =>
    encryptDocument(
      vars(CREDENTIAL),
      { recipients: [RECIPIENT], encryptedRegex: '^(data|stringData)$' },
      new Date('2026-01-01T00:00:00Z'),
    );

  itTools('are decrypted with the identity, and their values encrypted again into the output', async () => {
    const { repo, keyFile } = repoWith({ [INPUT]: await encryptedVars() });
    expect(readFileSync(path.join(repo, INPUT), 'utf8')).not.toContain(CREDENTIAL);
    const r = await runCli(['build'], { cwd: repo, env: withKey(keyFile) });
    expect(r.code, r.stderr).toBe(0);
    expect(Buffer.from(verify(repo, keyFile).plaintext.data.credentials!, 'base64').toString()).toContain(KEY_ID);
    // The value is nowhere in plain text: not the input, not the output, not a message.
    expect(placesOf(repo, r, CREDENTIAL)).toEqual([]);
    expect((await runCli(['check'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
  });

  it('without an identity the build fails in one line naming the file and the variables to set', async () => {
    const { repo } = repoWith({ [INPUT]: await encryptedVars() });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /providers\/vars\.yaml:\d+:\d+: error\[sops\]: providers\/vars\.yaml holds a SOPS-encrypted Secret capa-system\/aws-variables, and no age identity is set to decrypt it/,
    );
    expect(r.stderr).toMatch(/hint: set SOPS_AGE_KEY or SOPS_AGE_KEY_FILE/);
    // An identity of another recipient: named as such.
    const wrong = await runCli(['build'], {
      cwd: repo,
      env: { SOPS_AGE_KEY: readFileSync(path.join(KEYS, 'keys-age-global.txt'), 'utf8') },
    });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(
      /Secret capa-system\/aws-variables: providers\/vars\.yaml is encrypted to age1l44x[a-z0-9]+, and no identity given opens it/,
    );
  });
});

describe('secrets.mode sops with a secret reference left unset', () => {
  const byReference = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws-variables\n  namespace: capa-system\nstringData:\n  AWS_B64ENCODED_CREDENTIALS: {fromEnv: AWS_CREDS}\n`;

  itTools(
    'keeps the committed ciphertext once it proves itself: CI needs neither the credential nor the identity',
    async () => {
      const { repo, keyFile } = repoWith({ [INPUT]: byReference });
      const first = await runCli(['build'], { cwd: repo, env: { ...withKey(keyFile), AWS_CREDS: CREDENTIAL } });
      expect(first.code, first.stderr).toBe(0);
      expect(Buffer.from(verify(repo, keyFile).plaintext.data.credentials!, 'base64').toString()).toContain(KEY_ID);
      const before = snapshotTree(repo);
      // Neither the credential nor the identity: the committed file is kept as it is, nothing written.
      const blind = await runCli(['build', '--force'], { cwd: repo });
      expect(blind.code, blind.stderr).toBe(0);
      expect(snapshotTree(repo)).toEqual(before);
      expect((await runCli(['check'], { cwd: repo })).code).toBe(0);
      // With the identity its MAC is verified too.
      expect((await runCli(['check'], { cwd: repo, env: withKey(keyFile) })).code).toBe(0);
      const file = path.join(repo, SECRET_FILE);
      const good = readFileSync(file, 'utf8');
      writeFileSync(
        file,
        good.replace(
          /mac: ENC\[AES256_GCM,data:(.)/,
          (_m, c: string) => `mac: ENC[AES256_GCM,data:${c === 'A' ? 'B' : 'A'}`,
        ),
      );
      const tampered = await runCli(['check'], { cwd: repo, env: withKey(keyFile) });
      expect(tampered.code).toBe(1);
      expect(tampered.stderr).toMatch(/sops\.mac that does not authenticate/);
      expect(placesOf(repo, tampered, CREDENTIAL)).toEqual([]);
    },
  );

  it('without a committed ciphertext the build fails naming the file and what to set', async () => {
    const { repo } = repoWith({ [INPUT]: byReference });
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /error\[sops\]: rendered\/default\/infrastructure-aws\/secret-capa-manager-bootstrap-credentials\.yaml: its values are not set in this build, and there is no committed encrypted file to keep/,
    );
    expect(r.stderr).toMatch(/hint: set the variables it is rendered from and build/);
    expect(snapshotTree(repo)[SECRET_FILE]).toBeUndefined();
  });
});
