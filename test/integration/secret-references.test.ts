/**
 * Secret references that need no value: a `{fromEnv}` variable or a configSecret key given by
 * reference (`{fromEnv}` / `{fromFile}`) whose value only fills a Secret that `secrets.mode` leaves
 * out (omit) or replaces (external-secrets) renders the same bytes with the value unset as set —
 * output, gitops/ (secrets.required.yaml), the lock — so `check` runs with no credential. Anywhere
 * else the value is needed: one error naming the variable, where, and the reference to set.
 * A synthetic provider `infrastructure-widget` (served from a local repository inside the test
 * repository) puts ${WIDGET_PASSWORD} in a Secret's stringData and ${WIDGET_ENDPOINT} in an argument.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { runCli, type CliResult } from '../helpers/cli.js';
import { CORE, configYaml, filesUnder, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const PASSWORD = 'widget-Passw0rd-7c1e9a';
const MARKER = 'capirenderunset';
const META =
  'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: 1\n  minor: 0\n  contract: v1beta2\n';

/** The widget's components: `secretValue` goes into the Secret's stringData, `arg` into the manager's args. */
const components = (secretValue = '${WIDGET_PASSWORD}', arg = '--endpoint=${WIDGET_ENDPOINT}') =>
  [
    'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: widget-system\n',
    `apiVersion: v1\nkind: Secret\nmetadata:\n  name: widget-credentials\n  namespace: widget-system\ntype: Opaque\nstringData:\n  password: "${secretValue}"\n`,
    'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: widget-controller-manager\n  namespace: widget-system\nspec:\n  selector:\n    matchLabels:\n      app: widget\n  template:\n    metadata:\n      labels:\n        app: widget\n    spec:\n      containers:\n      - name: manager\n        image: registry.k8s.io/widget/manager:v1.0.0\n' +
      `        args:\n        - "${arg}"\n`,
  ].join('---\n');

const WIDGET = (configSecret: boolean) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: widget\n  namespace: widget-system\nspec:\n  version: v1.0.0\n${configSecret ? '  configSecret:\n    name: widget-variables\n' : ''}`;
const SECRET = (value: string) =>
  `apiVersion: v1\nkind: Secret\nmetadata:\n  name: widget-variables\n  namespace: widget-system\nstringData:\n  WIDGET_PASSWORD: ${value}\n`;

type Mode = 'fail' | 'omit' | 'external-secrets' | 'plaintext';
type Kind =
  'overlay fromEnv' | 'config fromEnv' | 'configSecret literal' | 'configSecret fromEnv' | 'configSecret fromFile';

const modeYaml = (mode: Mode) =>
  `secrets:\n  mode: ${mode}\n${mode === 'external-secrets' ? '  externalSecrets:\n    storeRef: {name: vault}\n' : ''}`;

interface Setup {
  repo: string;
  /** The build's cache folder (never to hold the marker or the value). */
  cache: string;
  /** The environment of a build with the value set / unset; for fromFile, `unset` also removes the file. */
  env: (set: boolean) => Record<string, string>;
}

/** A repository whose WIDGET_PASSWORD comes from `kind`, under `mode`. */
function setup(kind: Kind, mode: Mode, options: { components?: string; extraVariables?: string } = {}): Setup {
  const outside = tempDir();
  const file = path.join(outside, 'widget-password');
  const configVariables = `variables:\n  WIDGET_ENDPOINT: https://widget.example.internal\n${kind === 'config fromEnv' ? '  WIDGET_PASSWORD: {fromEnv: WP}\n' : ''}${options.extraVariables ?? ''}`;
  const secretValue =
    kind === 'configSecret literal'
      ? `"${PASSWORD}"`
      : kind === 'configSecret fromEnv'
        ? '{fromEnv: WP}'
        : `{fromFile: ${file}}`;
  const usesSecret = kind.startsWith('configSecret');
  const repo = makeRepo({
    'capi-render.yaml': configYaml(`  - path: artifacts\n${configVariables}${modeYaml(mode)}`),
    'providers/core.yaml': CORE(),
    'providers/widget.yaml': WIDGET(usesSecret),
    ...(usesSecret ? { 'providers/widget-variables.yaml': SECRET(secretValue) } : {}),
    'overlays/dev/overlay.yaml': `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\n${kind === 'overlay fromEnv' ? 'variables:\n  WIDGET_PASSWORD: {fromEnv: WP}\n' : ''}`,
    'artifacts/infrastructure-widget/v1.0.0/infrastructure-components.yaml': options.components ?? components(),
    'artifacts/infrastructure-widget/v1.0.0/metadata.yaml': META,
  });
  const cache = tempDir();
  return {
    repo,
    cache,
    env: (set) => {
      if (kind === 'configSecret fromFile') {
        if (set) writeFileSync(file, PASSWORD);
        else rmSync(file, { force: true });
      }
      // A literal has no "unset": its key is removed instead (see the table).
      if (kind === 'configSecret literal')
        writeFileSync(
          path.join(repo, 'providers/widget-variables.yaml'),
          set ? SECRET(`"${PASSWORD}"`) : SECRET('"x"').replace(/WIDGET_PASSWORD: "x"\n/, 'OTHER: "x"\n'),
        );
      return { CAPI_RENDER_CACHE_DIR: cache, ...(set && kind.endsWith('fromEnv') ? { WP: PASSWORD } : {}) };
    },
  };
}

/** What a build leaves that must not differ between set and unset: rendered/, gitops/, the lock. */
function outputs(repo: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(snapshotTree(repo)).filter(([f]) => /^(rendered|gitops)\/|^capi-render\.lock$/.test(f)),
  );
}

/** Fails when the marker, or the password, reached a file of the output, the lock or a stream. */
function expectClean(repo: string, r: CliResult, passwordAllowedIn: string[] = []) {
  expect(r.stdout + r.stderr).not.toContain(MARKER);
  expect(r.stdout + r.stderr).not.toContain(PASSWORD);
  for (const [file, text] of filesUnder(repo)) {
    expect(text.includes(MARKER), file).toBe(false);
    if (!passwordAllowedIn.includes(file) && !file.startsWith('providers/'))
      expect(text.includes(PASSWORD), file).toBe(false);
  }
}

const errorCodes = (stderr: string) => [...new Set([...stderr.matchAll(/error\[([a-z-]+)\]/g)].map((m) => m[1]))];

type Outcome = 'ok' | 'secret-guard' | 'variables-missing';

/** The outcome table: set / unset per mode (a literal "unset" is a key that is not there). */
const EXPECTED: Record<Mode, { set: Outcome; unset: Outcome; literalUnset: Outcome }> = {
  fail: { set: 'secret-guard', unset: 'variables-missing', literalUnset: 'variables-missing' },
  omit: { set: 'ok', unset: 'ok', literalUnset: 'variables-missing' },
  'external-secrets': { set: 'ok', unset: 'ok', literalUnset: 'variables-missing' },
  plaintext: { set: 'ok', unset: 'variables-missing', literalUnset: 'variables-missing' },
};

const KINDS: Kind[] = [
  'overlay fromEnv',
  'config fromEnv',
  'configSecret literal',
  'configSecret fromEnv',
  'configSecret fromFile',
];
const MODES: Mode[] = ['fail', 'omit', 'external-secrets', 'plaintext'];

describe('secret references with no value', () => {
  it.each(KINDS.flatMap((kind) => MODES.map((mode) => ({ kind, mode }))))(
    '$kind under $mode: the outcome table',
    async ({ kind, mode }) => {
      const { repo, cache, env } = setup(kind, mode);
      const expected = EXPECTED[mode];
      const set = await runCli(['build'], { cwd: repo, env: env(true) });
      expect(errorCodes(set.stderr), set.stderr).toEqual(expected.set === 'ok' ? [] : [expected.set]);
      expect(set.code).toBe(expected.set === 'ok' ? 0 : 1);
      const secretFile = 'rendered/dev/infrastructure-widget/secret-widget-credentials.yaml';
      expectClean(repo, set, mode === 'plaintext' ? [secretFile] : []);
      const built = outputs(repo);

      const unsetOutcome = kind === 'configSecret literal' ? expected.literalUnset : expected.unset;
      // check first (the CI job: the committed tree, no credential), then a build with no value.
      if (expected.set === 'ok' && unsetOutcome === 'ok') {
        const check = await runCli(['check'], { cwd: repo, env: env(false) });
        expect(check.code, check.stderr).toBe(0);
        expectClean(repo, check);
      }
      const unset = await runCli(['build'], { cwd: repo, env: env(false) });
      expect(errorCodes(unset.stderr), unset.stderr).toEqual(unsetOutcome === 'ok' ? [] : [unsetOutcome]);
      expect(unset.code).toBe(unsetOutcome === 'ok' ? 0 : 1);
      expectClean(repo, unset, mode === 'plaintext' ? [secretFile] : []);
      if (unsetOutcome === 'ok') {
        // The same bytes: output files, gitops/ (secrets.required.yaml), the lock.
        expect(outputs(repo)).toEqual(built);
        expect(Object.keys(built)).toContain(
          mode === 'omit'
            ? 'gitops/secrets/dev.required.yaml'
            : 'rendered/dev/infrastructure-widget/externalsecret-widget-credentials.yaml',
        );
      }
      // Nor in the cache: no record of any kind holds the marker or the value.
      for (const [file, text] of filesUnder(cache)) {
        expect(text.includes(MARKER), file).toBe(false);
        expect(text.includes(PASSWORD), file).toBe(false);
      }
      if (unsetOutcome === 'variables-missing' && kind !== 'configSecret literal') {
        // Names the variable, where it is needed, and the reference to set.
        const reference =
          kind === 'configSecret fromFile'
            ? /create file \S+widget-password \(Secret\/widget-system\/widget-variables stringData\.WIDGET_PASSWORD\)/
            : /set environment variable WP \(/;
        expect(unset.stderr).toMatch(
          /WIDGET_PASSWORD is needed for Secret\/widget-system\/widget-credentials stringData\.password: /,
        );
        expect(unset.stderr).toMatch(reference);
        // At the reference: file, line and column.
        const site = {
          'overlay fromEnv': 'overlays/dev/overlay.yaml:5',
          'config fromEnv': 'capi-render.yaml:10',
          'configSecret fromEnv': 'providers/widget-variables.yaml:7',
          'configSecret fromFile': 'providers/widget-variables.yaml:7',
        }[kind];
        expect(unset.stderr).toContain(`${site}:`);
        expect(unset.stderr.split('\n').find((l) => l.includes('is needed for'))).toMatch(
          /^\S+:\d+:\d+: error\[variables-missing\]/,
        );
      }
    },
  );

  it('a value needed outside a Secret (an argument) is an error naming the variable, the object and field, and the reference, with file', async () => {
    const { repo, env } = setup('config fromEnv', 'omit', { extraVariables: '' });
    writeFileSync(
      path.join(repo, 'capi-render.yaml'),
      configYaml(
        `  - path: artifacts\nvariables:\n  WIDGET_ENDPOINT: {fromEnv: ENDPOINT}\n  WIDGET_PASSWORD: {fromEnv: WP}\n${modeYaml('omit')}`,
      ),
    );
    const r = await runCli(['build'], { cwd: repo, env: env(false) });
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.includes('error['));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^capi-render\.yaml:9:\d+: error\[variables-missing\]: \[dev\] WIDGET_ENDPOINT is needed for Deployment\/widget-system\/widget-controller-manager spec\.template\.spec\.containers\[0\]\.args\[0\]: set environment variable ENDPOINT \(capi-render\.yaml variables\)/,
    );
    expectClean(repo, r);
  });

  it('a default applies to an unset reference the output would show (clusterctl: unset is unset)', async () => {
    const { repo, env } = setup('config fromEnv', 'omit', {
      components: components('${WIDGET_PASSWORD}', '--token=${WIDGET_TOKEN:=none}'),
    });
    writeFileSync(
      path.join(repo, 'capi-render.yaml'),
      configYaml(
        `  - path: artifacts\nvariables:\n  WIDGET_TOKEN: {fromEnv: TOKEN}\n  WIDGET_PASSWORD: {fromEnv: WP}\n${modeYaml('omit')}`,
      ),
    );
    const r = await runCli(['build'], { cwd: repo, env: env(false) });
    expect(r.code, r.stderr).toBe(0);
    expect(
      filesUnder(repo).get('rendered/dev/infrastructure-widget/deployment-widget-controller-manager.yaml'),
    ).toContain('--token=none');
    expectClean(repo, r);
  });

  it.each([
    { name: 'lower-cased', value: '${WIDGET_PASSWORD,,}' },
    { name: 'its length', value: '${#WIDGET_PASSWORD}' },
    { name: 'upper-cased', value: '${WIDGET_PASSWORD^^}' },
  ])(
    'a value used through an operator ($name) cannot be left unset, even in a Secret under omit',
    async ({ value }) => {
      const { repo, env } = setup('config fromEnv', 'omit', { components: components(value) });
      const set = await runCli(['build'], { cwd: repo, env: env(true) });
      expect(set.code, set.stderr).toBe(0);
      const r = await runCli(['build'], { cwd: repo, env: env(false) });
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(
        /error\[variables-missing\]: \[dev\] WIDGET_PASSWORD is needed for InfrastructureProvider\/widget-system\/widget, which uses it through an operator that changes it/,
      );
      expectClean(repo, r);
    },
  );

  it('a value a step checks (a CRD name) is needed, and the stand-in is in no message', async () => {
    const crd =
      'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${WIDGET_PASSWORD}.widget.example.com\nspec:\n  group: widget.example.com\n  names:\n    kind: Widget\n    listKind: WidgetList\n    plural: widgets\n    singular: widget\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n';
    const { repo, env } = setup('config fromEnv', 'omit', { components: `${components()}---\n${crd}` });
    const r = await runCli(['build'], { cwd: repo, env: env(false) });
    expect(r.code).toBe(1);
    expect(errorCodes(r.stderr)).toEqual(['variables-missing']);
    expect(r.stderr).toMatch(
      /WIDGET_PASSWORD is needed for CustomResourceDefinition\/\$\{WIDGET_PASSWORD\}\.widget\.example\.com, which is checked while rendering InfrastructureProvider\/widget-system\/widget: set environment variable WP/,
    );
    expectClean(repo, r);
  });

  it.each([
    { name: 'a substring', value: '${WIDGET_PASSWORD:0:8}', rendered: '' },
    { name: 'a replacement', value: 'x${WIDGET_PASSWORD/a/b}', rendered: 'x' },
  ])(
    'through an operator clusterctl counts as a default ($name), an unset value is unset, as clusterctl renders it',
    async ({ value, rendered }) => {
      const { repo, env } = setup('config fromEnv', 'omit', { components: components(value) });
      const r = await runCli(['build'], { cwd: repo, env: env(false) });
      expect(r.code, r.stderr).toBe(0);
      const secret = jsYaml.load(
        filesUnder(repo).get('rendered/dev/infrastructure-widget/secret-widget-credentials.yaml')!,
      ) as { stringData: Record<string, string> };
      expect(secret.stringData).toEqual({ password: rendered });
      expectClean(repo, r);
    },
  );

  it('the real CAPA release: check on a pull request needs no AWS credential (omit)', async () => {
    const CREDENTIAL = Buffer.from(
      '[default]\naws_access_key_id = AKIAEXAMPLESECRET\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG\n',
    ).toString('base64');
    const repo = makeRepo({
      'capi-render.yaml': configYaml(
        'variables:\n  AWS_B64ENCODED_CREDENTIALS: {fromEnv: AWS_B64ENCODED_CREDENTIALS}\nsecrets:\n  mode: omit\n',
      ),
      'providers/core.yaml': CORE(),
      'providers/aws.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: aws\n  namespace: capa-system\nspec:\n  version: v2.11.1\n',
    });
    const cache = tempDir();
    const built = await runCli(['build'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: cache, AWS_B64ENCODED_CREDENTIALS: CREDENTIAL },
    });
    expect(built.code, built.stderr).toBe(0);
    const before = outputs(repo);
    const check = await runCli(['check'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(check.code, check.stderr).toBe(0);
    const rebuilt = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(rebuilt.code, rebuilt.stderr).toBe(0);
    expect(outputs(repo)).toEqual(before);
    // --frozen (the lock must not change), --stdout and the Argo CD plugin print the same stream.
    const frozen = await runCli(['build', '--frozen'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(frozen.code, frozen.stderr).toBe(0);
    const streamSet = await runCli(['build', '--stdout'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: cache, AWS_B64ENCODED_CREDENTIALS: CREDENTIAL },
    });
    const streamUnset = await runCli(['build', '--stdout'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(streamSet.code, streamSet.stderr).toBe(0);
    expect(streamUnset.stdout).toBe(streamSet.stdout);
    const plugin = await runCli(['cmp-generate', '--allow-flavour', 'kustomize'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: cache, ARGOCD_ENV_CAPI_ENV: 'default' },
    });
    expect(plugin.code, plugin.stderr).toBe(0);
    expect(plugin.stdout).toBe(streamSet.stdout);
    const sbomSet = await runCli(['sbom', '--env', 'default'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: cache, AWS_B64ENCODED_CREDENTIALS: CREDENTIAL },
    });
    const sbomUnset = await runCli(['sbom', '--env', 'default'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(sbomSet.code, sbomSet.stderr).toBe(0);
    expect(sbomUnset.stdout).toBe(sbomSet.stdout);
    for (const r of [check, rebuilt, frozen, streamUnset, plugin, sbomUnset]) expectClean(repo, r);
    expect(JSON.stringify([...filesUnder(repo)])).not.toContain(CREDENTIAL);
    expect(streamSet.stdout).not.toContain(CREDENTIAL);
  });
});

describe('configSecret values by reference: fromFile', () => {
  const git = (repo: string, ...args: string[]) =>
    execFileSync('git', args, {
      cwd: repo,
      stdio: 'pipe',
      env: { PATH: process.env.PATH ?? '', HOME: repo, GIT_CONFIG_NOSYSTEM: '1' },
    });
  /** A repository reading WIDGET_PASSWORD from `target` under omit, as a git work tree. */
  function fileRepo(target: string) {
    const { repo, env } = setup('configSecret literal', 'omit');
    writeFileSync(path.join(repo, 'providers/widget-variables.yaml'), SECRET(`{fromFile: ${JSON.stringify(target)}}`));
    git(repo, 'init', '-q');
    return { repo, env: env(true) };
  }
  const build = (repo: string, env: Record<string, string>) =>
    runCli(['build'], { cwd: repo, env: { ...env, PATH: process.env.PATH ?? '' } });
  const SECRET_OUT = 'rendered/dev/infrastructure-widget/secret-widget-credentials.yaml';

  it('outside the repository: read and treated as secret (plaintext writes it, with the warning)', async () => {
    const outside = path.join(tempDir(), 'pw');
    writeFileSync(outside, `${PASSWORD}\n`);
    const { repo, env } = fileRepo(outside);
    writeFileSync(
      path.join(repo, 'capi-render.yaml'),
      configYaml(`  - path: artifacts\nvariables:\n  WIDGET_ENDPOINT: x\n${modeYaml('plaintext')}`),
    );
    const r = await build(repo, env);
    expect(r.code, r.stderr).toBe(0);
    // Substituted into a double-quoted scalar, the file's trailing newline folds away (YAML); the
    // value itself is the file verbatim (unit test secret-references.test.ts).
    expect(
      (
        jsYaml.load(filesUnder(repo).get(SECRET_OUT)!) as { stringData: { password: string } }
      ).stringData.password.trim(),
    ).toEqual(PASSWORD);
    expect(r.stderr).toMatch(/warning\[secret-guard\]: secrets\.mode plaintext: WIDGET_PASSWORD/);
  });

  it('inside the repository and ignored by git: accepted (relative to the repository root)', async () => {
    const { repo, env } = fileRepo('.secrets/widget-password');
    mkdirSync(path.join(repo, '.secrets'));
    writeFileSync(path.join(repo, '.secrets/widget-password'), PASSWORD);
    writeFileSync(path.join(repo, '.gitignore'), '.secrets/\n');
    const r = await build(repo, env);
    expect(r.code, r.stderr).toBe(0);
    expect(filesUnder(repo).get('gitops/secrets/dev.required.yaml')).toContain('WIDGET_PASSWORD');
  });

  it('a symbolic link to a regular file outside: followed', async () => {
    const outside = path.join(tempDir(), 'pw');
    writeFileSync(outside, PASSWORD);
    const link = path.join(tempDir(), 'link');
    symlinkSync(outside, link);
    const { repo, env } = fileRepo(link);
    const r = await build(repo, env);
    expect(r.code, r.stderr).toBe(0);
  });

  it.each([
    {
      name: 'a file git tracks',
      make: (repo: string) => (writeFileSync(path.join(repo, 'pw.txt'), PASSWORD), 'pw.txt'),
      why: /fromFile pw\.txt is inside the repository that git would commit/,
    },
    {
      name: 'a tracked file listed in .gitignore',
      make: (repo: string) => (
        writeFileSync(path.join(repo, 'pw.txt'), PASSWORD),
        writeFileSync(path.join(repo, '.gitignore'), 'pw.txt\n'),
        'pw.txt'
      ),
      track: true,
      why: /is inside the repository that git would commit/,
    },
    {
      name: 'a link to a file inside the repository',
      make: (repo: string) => (
        writeFileSync(path.join(repo, 'pw.txt'), PASSWORD),
        symlinkSync(path.join(repo, 'pw.txt'), path.join(tempDir(), 'l')),
        path.join(path.dirname(path.join(repo, 'x')), 'pw.txt')
      ),
      why: /inside the repository that git would commit/,
    },
    {
      name: 'a FIFO',
      make: () => {
        const f = path.join(tempDir(), 'fifo');
        execFileSync('mkfifo', [f]);
        return f;
      },
      why: /is a fifo, not a regular file/,
    },
    { name: 'a folder', make: () => tempDir(), why: /is a folder, not a regular file/ },
    {
      name: 'a link to /dev/zero',
      make: () => {
        const l = path.join(tempDir(), 'zero');
        symlinkSync('/dev/zero', l);
        return l;
      },
      why: /is a device, not a regular file/,
    },
    {
      name: 'a huge file',
      make: () => {
        const f = path.join(tempDir(), 'huge');
        writeFileSync(f, '');
        truncateSync(f, 1024 * 1024 + 1);
        return f;
      },
      why: /is larger than 1048576 bytes/,
    },
    {
      name: 'a file that is not UTF-8',
      make: () => {
        const f = path.join(tempDir(), 'bin');
        writeFileSync(f, Buffer.from([0xff, 0xfe, 0x00]));
        return f;
      },
      why: /is not UTF-8 text/,
    },
    {
      name: 'a path with ~',
      make: () => '~/widget-password',
      why: /fromFile ~\/widget-password starts with `~`, which is not expanded/,
    },
  ])('refused: $name, in one line naming the Secret key and the file', async ({ make, why, track }) => {
    const { repo, env } = fileRepo('placeholder');
    const target = make(repo);
    writeFileSync(path.join(repo, 'providers/widget-variables.yaml'), SECRET(`{fromFile: ${JSON.stringify(target)}}`));
    if (track) git(repo, 'add', '-f', 'pw.txt');
    else git(repo, 'add', '-A');
    const r = await build(repo, env);
    expect(r.code).toBe(1);
    const lines = r.stderr.split('\n').filter((l) => l.includes('error['));
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^providers\/widget-variables\.yaml:7:\d+: error\[config-secret\]: \[dev\] Secret\/widget-system\/widget-variables stringData\.WIDGET_PASSWORD: fromFile /,
    );
    expect(lines[0]).toMatch(why);
    expect(r.stderr).not.toContain(PASSWORD);
  });

  it('a reference in data, or a map that is no reference, is refused with the accepted forms', async () => {
    const { repo, env } = fileRepo('x');
    writeFileSync(path.join(repo, 'providers/widget-variables.yaml'), SECRET('{fromVault: x}'));
    const r = await build(repo, env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/stringData\.WIDGET_PASSWORD is not a string/);
    expect(r.stderr).toMatch(/hint: write a string, \{fromEnv: NAME\} .* or \{fromFile: PATH\}/);
    writeFileSync(
      path.join(repo, 'providers/widget-variables.yaml'),
      'apiVersion: v1\nkind: Secret\nmetadata:\n  name: widget-variables\n  namespace: widget-system\ndata:\n  WIDGET_PASSWORD: {fromEnv: WP}\n',
    );
    const d = await build(repo, env);
    expect(d.code).toBe(1);
    expect(d.stderr).toMatch(/data\.WIDGET_PASSWORD is not base64/);
    expect(d.stderr).toMatch(/hint: a value by reference goes under stringData/);
  });
});
