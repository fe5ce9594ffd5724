/**
 * No value from a secret source is ever written to disk: not to the cache, not to a
 * temporary file, not to the lock — in every secrets mode, with a cold and a warm cache. A real
 * repository (CAPA's components from the fixtures) gets one value from a configSecret
 * (AWS_B64ENCODED_CREDENTIALS, substituted into CAPA's bootstrap-credentials Secret) and one from the
 * environment (`{fromEnv: …}`, substituted into a Secret the core provider's additionalManifests
 * declares). The built CLI runs as a user would, with a private cache folder, TMPDIR and HOME; then
 * every byte under the repository, the cache, TMPDIR and HOME is searched for each value in every
 * encoding it could be stored in.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import { createArtifactCache } from 'capi-render';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');

/** The credentials file the configSecret value encodes; its secret key is a canary of its own. */
const AWS_SECRET_KEY = 'c4n4ry/NeverOnDisk+Zq81xKw7';
const AWS_CREDENTIALS = Buffer.from(
  `[default]\naws_access_key_id = AKIACANARYONDISK7Q\naws_secret_access_key = ${AWS_SECRET_KEY}\n`,
).toString('base64');
/**
 * The environment's value. The "é" makes V8 keep it as a one-byte (latin1) string, whose bytes
 * differ from its UTF-8 form — so the latin1 search below is not redundant.
 */
const ENV_TOKEN = 'env-canary-Tq7Wz3-jamais-écrit';

/** Never used by these offline builds, but read at start-up: it must not reach a file either. */
const GITHUB_TOKEN = 'ghp_CanaryTokenNeverOnDisk0123456789';

const CANARIES: { name: string; value: string }[] = [
  { name: 'configSecret AWS_B64ENCODED_CREDENTIALS', value: AWS_CREDENTIALS },
  { name: 'the decoded credentials’ secret key', value: AWS_SECRET_KEY },
  { name: 'fromEnv CANARY_TOKEN', value: ENV_TOKEN },
  { name: 'GITHUB_TOKEN', value: GITHUB_TOKEN },
];

/**
 * Every byte sequence a value can take on disk: UTF-8 (files, YAML), latin1 and UTF-16LE (how
 * v8.serialize stores one-byte and two-byte strings), and base64 (a Secret's data).
 */
function needles(value: string): Buffer[] {
  const base64 = Buffer.from(value, 'utf8').toString('base64');
  return [
    Buffer.from(value, 'utf8'),
    Buffer.from(value, 'latin1'),
    Buffer.from(value, 'utf16le'),
    Buffer.from(base64, 'utf8'),
    Buffer.from(base64, 'utf16le'),
  ];
}

/** Every file under `root` (symbolic links not followed), absolute. */
function allFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir).sort()) {
      const file = path.join(dir, entry);
      const stat = lstatSync(file);
      if (stat.isDirectory()) walk(file);
      else if (stat.isFile()) out.push(file);
    }
  };
  walk(root);
  return out;
}

function allFolders(root: string): string[] {
  const out = [root];
  for (const entry of readdirSync(root).sort()) {
    const dir = path.join(root, entry);
    if (lstatSync(dir).isDirectory()) out.push(...allFolders(dir));
  }
  return out;
}

/** `file: canary` for every canary found in any form in any of the files. */
function findCanaries(files: readonly string[]): string[] {
  const hits: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    for (const c of CANARIES) if (needles(c.value).some((n) => bytes.includes(n))) hits.push(`${file}: ${c.name}`);
  }
  return hits;
}

const MODES = ['fail', 'omit', 'external-secrets', 'sops', 'plaintext'] as const;

/** For sops: Flux's published age test identity (test/fixtures/PROVENANCE.md) and its recipient. */
const AGE_KEYS = readFileSync(path.join(FIXTURES, 'sops/kustomize-controller/keys-age.txt'), 'utf8');
const SOPS_YAML =
  'creation_rules:\n  - path_regex: ^rendered/\n    encrypted_regex: ^(data|stringData)$\n    age: age1l44xcng8dqj32nlv6d930qvvrny05hglzcv9qpc7kxjc6902ma4qufys29\n';
type Mode = (typeof MODES)[number];

function config(mode: Mode): string {
  const store = mode === 'external-secrets' ? '  externalSecrets:\n    storeRef: {name: vault}\n' : '';
  return [
    'apiVersion: capi-render/v1alpha1',
    'kind: Config',
    'certManager:',
    '  version: v1.19.4',
    'repositories:',
    // The tanzu tree first: the bundled repository has real AWS releases too, and the first holding the label wins.
    `  - path: ${FIXTURES}derived/tanzu-framework`,
    `  - path: ${FIXTURES}repository`,
    'variables:',
    '  CAPA_CONTROLLER_IMAGE_TAG: v2.0.2',
    '  TKG_NO_PROXY: ""',
    '  TKG_HTTPS_PROXY: ""',
    '  TKG_HTTP_PROXY: ""',
    '  CANARY_TOKEN: {fromEnv: CANARY_TOKEN_FROM_ENV}',
    'secrets:',
    `  mode: ${mode}`,
    store,
  ].join('\n');
}

const CONFIG_SECRET_FILE = 'providers/aws-variables.yaml';

/** The core provider, whose additionalManifests add a Secret holding `${CANARY_TOKEN}`. */
const CORE_WITH_CANARY = {
  'providers/core.yaml': CORE('v1.12.0', 'capi-system', '  additionalManifests:\n    name: canary-manifests\n'),
  'providers/canary-manifests.yaml':
    'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: canary-manifests\n  namespace: capi-system\ndata:\n  manifests: |\n    apiVersion: v1\n    kind: Secret\n    metadata:\n      name: canary-token\n      namespace: capi-system\n    stringData:\n      token: ${CANARY_TOKEN}\n',
};

function secretRepo(mode: Mode): string {
  return makeRepo(
    {
      'capi-render.yaml': config(mode),
      ...CORE_WITH_CANARY,
      'providers/aws.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.0.2\n  configSecret:\n    name: aws-variables\n',
      [CONFIG_SECRET_FILE]: `apiVersion: v1\nkind: Secret\nmetadata:\n  name: aws-variables\n  namespace: capa-system\nstringData:\n  AWS_B64ENCODED_CREDENTIALS: "${AWS_CREDENTIALS}"\n`,
      ...(mode === 'sops' ? { '.sops.yaml': SOPS_YAML } : {}),
    },
    tempDir('capi-render-secrets-repo-'),
  );
}

interface Sandbox {
  repo: string;
  cache: string;
  tmp: string;
  home: string;
}

/** A repository with a private cache folder (not created yet), TMPDIR and HOME. */
function sandbox(repo: string): Sandbox {
  const root = tempDir('capi-render-secrets-');
  const box = { repo, cache: path.join(root, 'cache'), tmp: path.join(root, 'tmp'), home: path.join(root, 'home') };
  mkdirSync(box.tmp);
  mkdirSync(box.home);
  return box;
}

/** Runs `capi-render build` (or `command`) in the sandbox; `umask` (octal text) sets the process's umask first. */
function build(
  box: Sandbox,
  umask?: string,
  command = 'build',
): { code: number | null; stdout: string; stderr: string } {
  const argv =
    umask === undefined
      ? [process.execPath, CLI, command]
      : ['/bin/sh', '-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, CLI, command];
  const r = spawnSync(argv[0]!, argv.slice(1), {
    cwd: box.repo,
    encoding: 'utf8',
    // The age identity too: with it a second build keeps the committed ciphertext (secrets.mode sops).
    env: {
      PATH: process.env.PATH,
      HOME: box.home,
      TMPDIR: box.tmp,
      CAPI_RENDER_CACHE_DIR: box.cache,
      CANARY_TOKEN_FROM_ENV: ENV_TOKEN,
      GITHUB_TOKEN,
      NO_COLOR: '1',
      SOPS_AGE_KEY: AGE_KEYS,
    },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Files that may hold a value: the input Secret always; rendered/ too when the user opted into plaintext. */
function searched(box: Sandbox, mode: Mode): string[] {
  const legitimate = (file: string) => {
    const rel = path.relative(box.repo, file);
    return rel === CONFIG_SECRET_FILE || (mode === 'plaintext' && rel.startsWith(`rendered${path.sep}`));
  };
  return [box.repo, box.cache, box.tmp, box.home].flatMap(allFiles).filter((f) => !legitimate(f));
}

function expectOwnerOnly(cache: string): void {
  const loose = [
    ...allFolders(cache)
      .filter((d) => (lstatSync(d).mode & 0o777) !== 0o700)
      .map((d) => `${d} ${(lstatSync(d).mode & 0o777).toString(8)}`),
    ...allFiles(cache)
      .filter((f) => (lstatSync(f).mode & 0o777) !== 0o600)
      .map((f) => `${f} ${(lstatSync(f).mode & 0o777).toString(8)}`),
  ];
  expect(loose).toEqual([]);
}

describe('no secret value on disk', () => {
  it('the search finds each value in each encoding V8 may store it in (the search itself works)', () => {
    for (const c of CANARIES) {
      const stored = serialize({ objects: [{ stringData: { token: `prefix ${c.value} suffix` } }] });
      expect(
        needles(c.value).some((n) => stored.includes(n)),
        c.name,
      ).toBe(true);
    }
    // Two-byte strings (any character beyond latin1) are stored as UTF-16LE.
    expect(serialize(`${ENV_TOKEN}✓`).includes(Buffer.from(ENV_TOKEN, 'utf16le'))).toBe(true);
  });

  it.each(MODES)(
    'secrets.mode %s: nothing under the repository, the cache, TMPDIR or HOME holds a value, cold or warm',
    (mode) => {
      const box = sandbox(secretRepo(mode));
      // The search itself: the one input that legitimately holds the value is found.
      expect(findCanaries([path.join(box.repo, CONFIG_SECRET_FILE)])).toHaveLength(1);

      const first = build(box);
      if (mode === 'fail') {
        expect(first.code).toBe(1);
        expect(first.stderr).toMatch(/error\[secret-guard\]: the value of AWS_B64ENCODED_CREDENTIALS/);
        expect(first.stderr).toMatch(/error\[secret-guard\]: the value of CANARY_TOKEN/);
      } else {
        expect(first.code, first.stderr).toBe(0);
      }
      // Both values really were substituted: the guard saw them in the rendered objects.
      if (mode === 'omit') {
        const required = readFileSync(path.join(box.repo, 'gitops/secrets/default.required.yaml'), 'utf8');
        expect(required).toContain('AWS_B64ENCODED_CREDENTIALS');
        expect(required).toContain('CANARY_TOKEN');
      }
      if (mode === 'external-secrets') {
        const files = Object.keys(snapshotTree(path.join(box.repo, 'rendered')));
        expect(files).toContain('default/cluster-api/externalsecret-canary-token.yaml');
        expect(files).toContain('default/infrastructure-aws/externalsecret-capa-manager-bootstrap-credentials.yaml');
      }
      if (mode === 'sops') {
        for (const f of [
          'default/cluster-api/secret-canary-token.yaml',
          'default/infrastructure-aws/secret-capa-manager-bootstrap-credentials.yaml',
        ]) {
          const text = readFileSync(path.join(box.repo, 'rendered', f), 'utf8');
          expect(text).toMatch(/\n {2}\w+: ENC\[AES256_GCM,/);
          expect(text).toMatch(/\nsops:\n {2}age:\n/);
        }
      }
      if (mode === 'plaintext') {
        expect(findCanaries(allFiles(path.join(box.repo, 'rendered'))).sort()).toEqual(
          [
            `${path.join(box.repo, 'rendered/default/cluster-api/secret-canary-token.yaml')}: fromEnv CANARY_TOKEN`,
            `${path.join(box.repo, 'rendered/default/infrastructure-aws/secret-capa-manager-bootstrap-credentials.yaml')}: configSecret AWS_B64ENCODED_CREDENTIALS`,
          ].sort(),
        );
      }
      for (const c of CANARIES) expect(`${first.stdout}\n${first.stderr}`, c.name).not.toContain(c.value);
      expect(findCanaries(searched(box, mode))).toEqual([]);
      // The cache was used (so the search above was not vacuous: cert-manager's parse is cached, but a
      // failing build stops before cert-manager), and only by its owner.
      expect(readdirSync(box.cache).some((d) => d.startsWith(mode === 'fail' ? 'validated' : 'parsed2-v8-'))).toBe(
        true,
      );
      expectOwnerOnly(box.cache);

      const output = () =>
        mode === 'fail'
          ? {}
          : {
              rendered: snapshotTree(path.join(box.repo, 'rendered')),
              gitops: snapshotTree(path.join(box.repo, 'gitops')),
              lock: readFileSync(path.join(box.repo, 'capi-render.lock'), 'utf8'),
            };
      const before = output();
      const second = build(box);
      expect(second.code, second.stderr).toBe(first.code);
      expect(output()).toEqual(before);
      // `check` renders too (through the same caches), and writes nothing but cache entries.
      const check = build(box, undefined, 'check');
      expect(check.code, check.stderr).toBe(first.code);
      for (const c of CANARIES)
        expect(`${second.stdout}\n${second.stderr}\n${check.stdout}\n${check.stderr}`, c.name).not.toContain(c.value);
      expect(findCanaries(searched(box, mode))).toEqual([]);
      expectOwnerOnly(box.cache);
    },
  );

  it('a text cached while its values came from files is uncached once one comes from a secret source', () => {
    // The same text, first from a value in capi-render.yaml (cacheable: it is in git anyway), then
    // from the environment: the second build must not leave the first build's entry behind.
    // A substituted document is cached only when it is large (smaller ones are cheaper to parse
    // than to read back): the Secret gets a padding key that makes it so.
    const padded = CORE_WITH_CANARY['providers/canary-manifests.yaml'].replace(
      '      token: ${CANARY_TOKEN}\n',
      `      token: \${CANARY_TOKEN}\n      padding: ${'p'.repeat(40 * 1024)}\n`,
    );
    const files = (token: string) => ({
      'capi-render.yaml': config('omit').replace(
        '  CANARY_TOKEN: {fromEnv: CANARY_TOKEN_FROM_ENV}',
        `  CANARY_TOKEN: ${token}`,
      ),
      ...CORE_WITH_CANARY,
      'providers/canary-manifests.yaml': padded,
    });
    const box = sandbox(makeRepo(files(`"${ENV_TOKEN}"`)));
    const literal = build(box);
    expect(literal.code, literal.stderr).toBe(0);
    expect(findCanaries(allFiles(box.cache)).length).toBeGreaterThan(0);

    makeRepo(files('{fromEnv: CANARY_TOKEN_FROM_ENV}'), box.repo);
    const secret = build(box);
    expect(secret.code, secret.stderr).toBe(0);
    expect(findCanaries(allFiles(box.cache))).toEqual([]);
  });

  it('parse caches of the layout that could hold secret values are removed, whatever their V8 version', () => {
    const box = sandbox(secretRepo('omit'));
    const legacy = [`parsed-v8-${process.versions.v8}`, 'parsed-v8-10.2.154.26-node.26'].map((d) =>
      path.join(box.cache, d),
    );
    for (const dir of legacy) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(path.join(dir, 'fee2b11c.bin'), `objects ${AWS_CREDENTIALS} ${ENV_TOKEN}`);
    }
    const r = build(box);
    expect(r.code, r.stderr).toBe(0);
    expect(legacy.filter((d) => existsSync(d))).toEqual([]);
    expect(findCanaries(allFiles(box.cache))).toEqual([]);
  });

  it('cache folders an older version created 0755 are tightened, and modes do not depend on the umask', () => {
    const box = sandbox(secretRepo('omit'));
    const v8 = process.versions.v8;
    // sha256/ holds remote artifacts only, which this repository has none of: see the next test.
    const old = [`parsed2-v8-${v8}`, `lock-v8-${v8}`, 'validated'].map((d) => path.join(box.cache, d));
    for (const dir of [box.cache, ...old]) {
      mkdirSync(dir, { recursive: true });
      chmodSync(dir, 0o755);
    }
    // A first build fills the cache, a second one reads the lock (and so writes the lock cache).
    for (let i = 0; i < 2; i++) {
      const r = build(box, '000');
      expect(r.code, r.stderr).toBe(0);
    }
    expect(old.map((d) => `${path.basename(d)} ${(lstatSync(d).mode & 0o777).toString(8)}`)).toEqual(
      old.map((d) => `${path.basename(d)} 700`),
    );
    // Files older versions left (none here) would be out of others' reach inside the 0700 folders.
    for (const dir of readdirSync(box.cache)) expectOwnerOnly(path.join(box.cache, dir));
    // The cache root existed, so it is left as it is: it may be a folder the user chose and shares
    // (--cache-dir); it holds only the folders above, and a new root is created 0700 (tests above).
    expect(lstatSync(box.cache).mode & 0o777).toBe(0o755);
  });

  it('the artifact cache writes remote artifacts owner-only, tightening an older 0755 folder', async () => {
    const cache = path.join(tempDir('capi-render-secrets-'), 'cache');
    mkdirSync(path.join(cache, 'sha256'), { recursive: true, mode: 0o755 });
    chmodSync(path.join(cache, 'sha256'), 0o755);
    const artifacts = createArtifactCache(cache);
    const sha256 = await artifacts.put(new TextEncoder().encode('kind: ConfigMap\n'));
    expect(new TextDecoder().decode(await artifacts.get(sha256))).toBe('kind: ConfigMap\n');
    expect(allFiles(cache).map((f) => path.relative(cache, f))).toEqual([`sha256${path.sep}${sha256}`]);
    expectOwnerOnly(path.join(cache, 'sha256'));
  });
});
