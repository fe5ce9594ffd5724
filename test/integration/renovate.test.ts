/**
 * The renovate.json that `init` writes, checked with the real Renovate (version in
 * test/renovate-tools.json, installed by scripts/install-renovate.sh, which .ci/run runs): the
 * config validates; `--platform=local --dry-run=extract` finds every `# renovate:` version of
 * init's output and of this repository's example — overlay patches and capi-render.yaml's
 * certManager.version included — with its whole value (ranges with spaces, quotes, trailing
 * comments), and never the next line; and a lookup against the local fake GitHub proposes `~1.12` →
 * `~1.13.0` (the range ~1.13, as npm versioning writes it): a range stays a range, the lock pins;
 * cert-manager moves to its newest release; and the updates land in one branch for providers/ and
 * one per overlay (the branch names Renovate's lookup computes), so prod's older pin is its own PR.
 * Without the install the tests skip loudly; in CI they fail, as the registry tests do.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import tools from '../renovate-tools.json' with { type: 'json' };
import { runCli } from '../helpers/cli.js';
import { startFakeGitHub } from '../helpers/fake-github.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { skipWithout } from '../helpers/requirements.js';
import { CERT_MANAGER_DEFAULT_VERSION } from '../../src/render/cert-manager.js';
import { tempDir } from '../helpers/tmp.js';

const DIR =
  process.env.CAPI_RENDER_RENOVATE_DIR ??
  path.join(
    process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'),
    'capi-render-ci',
    `renovate-${tools.renovate}-node-${tools.node}`,
  );
const NODE = path.join(DIR, 'node_modules/.bin/node');
const RENOVATE = path.join(DIR, 'node_modules/renovate/dist/renovate.js');
const VALIDATOR = path.join(DIR, 'node_modules/renovate/dist/config-validator.js');
/** CI installs Renovate in the background while the suite runs (.ci/run): wait up to CAPI_RENDER_RENOVATE_WAIT seconds. */
const installed = (): boolean => existsSync(NODE) && existsSync(RENOVATE);
for (let waited = 0; !installed() && waited < Number(process.env.CAPI_RENDER_RENOVATE_WAIT ?? 0); waited++)
  await new Promise((resolve) => setTimeout(resolve, 1000));
const missing = installed()
  ? undefined
  : `Renovate ${tools.renovate} is not installed in ${DIR} (run scripts/install-renovate.sh)`;
const skipRenovate = skipWithout(missing, 'the Renovate tests');

interface LogLine {
  msg: string;
  [field: string]: unknown;
}

/** Runs Renovate (or its validator) on `repo` with JSON debug logs; returns the exit code and the parsed log lines. */
async function renovate(
  script: string,
  repo: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; log: LogLine[]; text: string }> {
  const home = tempDir();
  const child = spawn(NODE, [script, ...args], {
    cwd: repo,
    env: {
      PATH: `${path.dirname(NODE)}${path.delimiter}${process.env.PATH}`,
      HOME: home,
      RENOVATE_BASE_DIR: path.join(home, 'renovate'),
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout.on('data', (c: Buffer) => void (text += c.toString()));
  child.stderr.on('data', (c: Buffer) => void (text += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const log = text.split('\n').flatMap((l) => {
    try {
      return [JSON.parse(l) as LogLine];
    } catch {
      return [];
    }
  });
  return { code, log, text };
}

interface ExtractedDep {
  depName: string;
  currentValue: string;
  datasource: string;
  versioning?: string;
  skipReason?: string;
  updates?: { newValue: string; updateType: string; branchName?: string }[];
}

/** The regex manager's dependencies by file, from the "Extracted dependencies" (or lookup's "packageFiles with updates") log line. */
function regexDeps(log: LogLine[], msg: string): Record<string, ExtractedDep[]> {
  const line = log.find((l) => l.msg === msg);
  expect(line, `Renovate logged no "${msg}"`).toBeDefined();
  const files = (line!['packageFiles'] ?? line!['config']) as Record<
    string,
    { packageFile: string; deps: ExtractedDep[] }[]
  >;
  return Object.fromEntries((files['regex'] ?? []).map((f) => [f.packageFile, f.deps]));
}

async function initRepository(args: string[]): Promise<string> {
  const repo = tempDir();
  const r = await runCli(['init', ...args], { cwd: repo });
  expect(r.code, r.stderr).toBe(0);
  return repo;
}

/** Renovate's local platform reads the files git tracks. */
function commitAll(repo: string): void {
  for (const args of [
    ['init', '-q', '-b', 'main'],
    ['add', '-A'],
    ['-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'init'],
  ])
    execFileSync('git', args, { cwd: repo, stdio: 'ignore' });
}

/**
 * Renovate's lookup (`--dry-run=lookup`) of `repo` against the fake GitHub at `baseUrl`: Renovate's
 * hosted default for github.com is the real API, so the datasource is pointed at the fake.
 */
async function lookupAgainst(
  baseUrl: string,
  repo: string,
): Promise<{ code: number | null; log: LogLine[]; text: string }> {
  const global = path.join(tempDir(), 'config.json');
  writeFileSync(
    global,
    JSON.stringify({
      // A github.com token only so Renovate does not skip github-releases ("github-token-required");
      // every request goes to the fake, never to github.com.
      hostRules: [
        { matchHost: '127.0.0.1', token: 'fake-token' },
        { matchHost: 'api.github.com', hostType: 'github', token: 'fake-token' },
      ],
      packageRules: [{ matchDatasources: ['github-releases'], registryUrls: [`${baseUrl}/`] }],
      // Only capi-render's manager: the workflow's actions would be looked up on github.com.
      enabledManagers: ['custom.regex'],
    }),
  );
  return renovate(RENOVATE, repo, ['--platform=local', '--dry-run=lookup'], { RENOVATE_CONFIG_FILE: global });
}

describe.skipIf(skipRenovate)(`Renovate ${tools.renovate} on what init writes`, { timeout: 300_000 }, () => {
  it('validates the generated renovate.json', async () => {
    const repo = await initRepository(['--version', '~1.12']);
    const r = await renovate(VALIDATOR, repo, ['--strict']);
    expect(r.code, r.text).toBe(0);
    expect(r.log.map((l) => l.msg)).toContainEqual(expect.stringMatching(/^Config validated successfully/));
  });

  // One Renovate run (each costs seconds of start-up): init's output at the top, this repository's
  // example under example/, and every value form in providers/forms.yaml.
  it('extracts every version of init output and of the example, whole, overlay patches and certManager.version included, and never the next line', async () => {
    const repo = await initRepository(['--version', '~1.12', '--infrastructure', 'aws']);
    for (const part of ['providers', 'overlays', 'capi-render.yaml'])
      cpSync(path.join(REPO_ROOT, part), path.join(repo, 'example', part), { recursive: true });
    const comment = '  # renovate: datasource=github-releases depName=kubernetes-sigs/cluster-api\n';
    const forms = [
      '~1.12',
      '>=1.11 <1.13',
      '1.12.x',
      '"1.12"',
      "'~1.12'",
      'v1.12.0   # pinned for the audit',
      '"v1.12.0"',
      '',
    ];
    writeFileSync(
      path.join(repo, 'providers/forms.yaml'),
      forms.map((f) => `spec:\n${comment}  version: ${f}\n---\n`).join(''),
    );
    commitAll(repo);
    const deps = regexDeps(
      (await renovate(RENOVATE, repo, ['--platform=local', '--dry-run=extract'])).log,
      'Extracted dependencies',
    );
    const values = Object.fromEntries(
      Object.entries(deps).map(([file, list]) => [file, list.map((d) => d.currentValue)]),
    );
    expect(values).toEqual({
      // init's output: certManager.version (clusterctl's default without --cert-manager-version) and the providers
      'capi-render.yaml': [CERT_MANAGER_DEFAULT_VERSION],
      'providers/aws.yaml': ['latest'],
      'providers/core.yaml': ['~1.12'],
      'providers/kubeadm.yaml': ['~1.12', '~1.12'],
      // the example, the overlay patch's pin and certManager.version included
      'example/capi-render.yaml': ['v1.19.4'],
      'example/overlays/prod/overlay.yaml': ['v1.11.0'],
      'example/providers/core.yaml': ['v1.12.0'],
      'example/providers/docker.yaml': ['v1.12.0'],
      'example/providers/kubeadm.yaml': ['v1.12.0', 'v1.12.0'],
      // each value whole, quotes and trailing comment off; the empty one is not there
      'providers/forms.yaml': ['~1.12', '>=1.11 <1.13', '1.12.x', '1.12', '~1.12', 'v1.12.0', 'v1.12.0'],
    });
    expect(deps['providers/aws.yaml']![0]).toMatchObject({
      depName: 'kubernetes-sigs/cluster-api-provider-aws',
      datasource: 'github-releases',
    });
    expect(deps['providers/core.yaml']![0]).toMatchObject({
      depName: 'kubernetes-sigs/cluster-api',
      versioning: 'npm',
    });
    for (const file of ['capi-render.yaml', 'example/capi-render.yaml'])
      expect(deps[file]).toEqual([
        expect.objectContaining({
          depName: 'cert-manager/cert-manager',
          datasource: 'github-releases',
          versioning: 'npm',
        }),
      ]);
  });

  it('proposes ~1.12 → ~1.13(.0) against a GitHub with v1.13.0: ranges stay ranges, an exact pin moves to the exact version, cert-manager to its newest release', async () => {
    const gh = await startFakeGitHub({ extraReleases: { 'kubernetes-sigs/cluster-api': [{ tag: 'v1.13.0' }] } });
    onTestFinished(() => gh.close());
    // The fake's cert-manager releases are test/fixtures/repository/cert-manager's: v1.13.2 … v1.19.4.
    const repo = await initRepository([
      '--version',
      '~1.12',
      '--infrastructure-version',
      'v1.12.0',
      '--cert-manager-version',
      'v1.16.1',
    ]);
    const comment = '  # renovate: datasource=github-releases depName=kubernetes-sigs/cluster-api\n';
    writeFileSync(
      path.join(repo, 'providers/range.yaml'),
      ['">=1.11 <1.13"', '1.12.x', "'1.12'"].map((v) => `spec:\n${comment}  version: ${v}\n---\n`).join(''),
    );
    commitAll(repo);
    const r = await lookupAgainst(gh.baseUrl, repo);
    const deps = regexDeps(r.log, 'packageFiles with updates');
    const proposed = (file: string) =>
      deps[file]!.map((d) => [d.currentValue, d.updates?.map((u) => u.newValue) ?? []]);
    // `~1.13.0` is the range `~1.13` (>=1.13.0 <1.14.0), written as npm versioning writes it.
    expect(proposed('providers/core.yaml')).toEqual([['~1.12', ['~1.13.0']]]);
    expect(proposed('providers/docker.yaml')).toEqual([['v1.12.0', ['v1.13.0']]]);
    expect(proposed('capi-render.yaml')).toEqual([['v1.16.1', ['v1.19.4']]]);
    // Renovate 44 ignores rangeStrategy for custom managers, so a bounded range loses its floor
    // (still a range; capi-render resolves it to v1.13.x). README says so.
    expect(proposed('providers/range.yaml')).toEqual([
      ['>=1.11 <1.13', ['<1.14']],
      ['1.12.x', ['1.13.x']],
      ['1.12', ['1.13']],
    ]);
    expect(gh.requests.some((q) => q.url.endsWith('/graphql'))).toBe(true);
    // The init workflow pins the same capi-render as the package (no drift between README, workflow and package).
    expect(readFileSync(path.join(repo, '.github/workflows/capi-render.yaml'), 'utf8')).toMatch(
      /npx --yes capi-render@\d+\.\d+\.\d+ build/,
    );
  });

  it('keeps a staged rollout staged: providers/ is one pull request, the pins of each overlay (subfolders included) another each, cert-manager its own', async () => {
    const gh = await startFakeGitHub({ extraReleases: { 'kubernetes-sigs/cluster-api': [{ tag: 'v1.13.0' }] } });
    onTestFinished(() => gh.close());
    const repo = await initRepository(['--version', '~1.12', '--cert-manager-version', 'v1.16.1']);
    // This repository's prod: one release behind (v1.11.0 in overlay.yaml's JSON patch), plus a pin in
    // a patch file of its own and a second environment, staging, one release behind dev.
    cpSync(path.join(REPO_ROOT, 'overlays/prod'), path.join(repo, 'overlays/prod'), { recursive: true });
    const comment = '  # renovate: datasource=github-releases depName=kubernetes-sigs/cluster-api\n';
    writeFileSync(
      path.join(repo, 'overlays/prod/patches/kubeadm-version.yaml'),
      `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-bootstrap-system\nspec:\n${comment}  version: v1.11.0\n`,
    );
    mkdirSync(path.join(repo, 'overlays/staging'));
    writeFileSync(
      path.join(repo, 'overlays/staging/overlay.yaml'),
      `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\npatches:\n  - target:\n      kind: CoreProvider\n    patch: |-\n      - op: replace\n        path: /spec/version\n  ${comment}        value: v1.12.0\n`,
    );
    commitAll(repo);
    const r = await lookupAgainst(gh.baseUrl, repo);
    const deps = regexDeps(r.log, 'packageFiles with updates');
    const branches = Object.fromEntries(
      Object.entries(deps).map(([file, list]) => [
        file,
        list.map((d) => [d.currentValue, d.updates?.map((u) => [u.newValue, u.branchName]) ?? []]),
      ]),
    );
    // prod's v1.11.0 and dev's ~1.12 both move to v1.13.0, yet in two pull requests: merging the base
    // one never moves prod.
    const base = 'renovate/capi-render-providers';
    expect(branches).toEqual({
      'capi-render.yaml': [['v1.16.1', [['v1.19.4', 'renovate/cert-manager-cert-manager-1.x']]]],
      'providers/core.yaml': [['~1.12', [['~1.13.0', base]]]],
      'providers/docker.yaml': [['~1.12', [['~1.13.0', base]]]],
      'providers/kubeadm.yaml': [
        ['~1.12', [['~1.13.0', base]]],
        ['~1.12', [['~1.13.0', base]]],
      ],
      'overlays/prod/overlay.yaml': [['v1.11.0', [['v1.13.0', 'renovate/capi-render-overlay-prod']]]],
      'overlays/prod/patches/kubeadm-version.yaml': [['v1.11.0', [['v1.13.0', 'renovate/capi-render-overlay-prod']]]],
      'overlays/staging/overlay.yaml': [['v1.12.0', [['v1.13.0', 'renovate/capi-render-overlay-staging']]]],
    });
  });
});
