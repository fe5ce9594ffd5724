/**
 * Offline, a release that is nowhere to be read is an error a site without network can act on: it
 * names every path it looked for in the configured local repositories and the `capi-render mirror`
 * command that writes it. One row per situation, through the CLI with an empty cache; then the
 * command the hint names, run as a connected machine would (against the fake GitHub), fills the
 * repository so the offline build passes.
 */
import { cpSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { CORE, makeRepo } from '../helpers/repo.js';
import { startFakeGitHub } from '../helpers/fake-github.js';
import { tempDir } from '../helpers/tmp.js';

const config = (repositories: readonly string[], extra = '') =>
  `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\n${repositories.length > 0 ? `repositories:\n${repositories.map((p) => `  - path: ${p}\n`).join('')}` : ''}${extra}`;

/** Copies `<label>/<version>/<file>` (or a whole label, or a version) of the bundled releases into `repo/root`. */
function put(repo: string, root: string, ...parts: string[]): void {
  const to = path.join(repo, root, ...parts);
  mkdirSync(path.dirname(to), { recursive: true });
  cpSync(path.join(`${FIXTURES}repository`, ...parts), to, { recursive: true });
}

const MIRROR = (root: string, carry: string) =>
  `hint: on a connected machine, run \`capi-render mirror --to ${root}\` in a checkout of this repository (from its root): it writes every release the inputs pin, checked against capi-render.lock; then carry ${carry} over`;

interface Row {
  name: string;
  repositories: string[];
  /** Fills the local repositories. */
  fill: (repo: string) => void;
  /** The error line (after `file:line:col: `) and its hint, as printed. */
  error: string;
  hint: string;
}

const rows: Row[] = [
  {
    name: 'no local repository configured',
    repositories: [],
    fill: () => undefined,
    error:
      'error[offline]: --offline: metadata.yaml of GitHub releases of kubernetes-sigs/cluster-api v1.12.0 is not in the cache (CACHE) and no local repository is configured (capi-render.yaml repositories:)',
    hint: `${MIRROR('vendor/releases', 'vendor/releases/')} and add \`repositories: [{path: vendor/releases}]\` to capi-render.yaml; capi-render.lock does not pin it yet`,
  },
  {
    name: 'metadata.yaml: the repository has no folder for the provider',
    repositories: ['vendor/releases'],
    fill: (repo) => put(repo, 'vendor/releases', 'cert-manager'),
    error:
      'error[offline]: --offline: metadata.yaml of GitHub releases of kubernetes-sigs/cluster-api v1.12.0 is not in the cache (CACHE) and no local repository holds it: looked for vendor/releases/cluster-api/v1.12.0/metadata.yaml',
    hint: `${MIRROR('vendor/releases', 'vendor/releases/cluster-api/v1.12.0/')}; capi-render.lock does not pin it yet`,
  },
  {
    name: 'metadata.yaml: several repositories, none has the provider',
    repositories: ['vendor/site', 'vendor/upstream/'],
    fill: (repo) => (put(repo, 'vendor/site', 'cert-manager'), mkdirSync(path.join(repo, 'vendor/upstream'))),
    error:
      'error[offline]: --offline: metadata.yaml of GitHub releases of kubernetes-sigs/cluster-api v1.12.0 is not in the cache (CACHE) and no local repository holds it: looked for vendor/site/cluster-api/v1.12.0/metadata.yaml, vendor/upstream/cluster-api/v1.12.0/metadata.yaml',
    hint: `${MIRROR('vendor/site', 'vendor/site/cluster-api/v1.12.0/')}; capi-render.lock does not pin it yet`,
  },
  {
    name: 'metadata.yaml: the provider is there, the version is not',
    repositories: ['vendor/releases'],
    fill: (repo) => (
      put(repo, 'vendor/releases', 'cert-manager'),
      put(repo, 'vendor/releases', 'cluster-api', 'v1.11.0')
    ),
    error:
      'error[source-not-found]: clusterctl: "failed to read "metadata.yaml" from the repository for provider "cluster-api""; metadata.yaml of cluster-api v1.12.0 is not in local repository vendor/releases: looked for vendor/releases/cluster-api/v1.12.0/metadata.yaml (and metadata.yaml.gz)',
    hint: `${MIRROR('vendor/releases', 'vendor/releases/cluster-api/v1.12.0/')}; or check spec.version`,
  },
  {
    name: 'metadata.yaml: the second repository has the provider, not the version',
    repositories: ['vendor/site', 'vendor/upstream'],
    fill: (repo) => (put(repo, 'vendor/site', 'cert-manager'), put(repo, 'vendor/upstream', 'cluster-api', 'v1.11.0')),
    error:
      'error[source-not-found]: clusterctl: "failed to read "metadata.yaml" from the repository for provider "cluster-api""; metadata.yaml of cluster-api v1.12.0 is not in local repository vendor/upstream: looked for vendor/upstream/cluster-api/v1.12.0/metadata.yaml (and metadata.yaml.gz); vendor/site has no cluster-api/ folder',
    hint: `${MIRROR('vendor/upstream', 'vendor/upstream/cluster-api/v1.12.0/')}; or check spec.version`,
  },
  {
    name: 'the components file',
    repositories: ['vendor/releases'],
    fill: (repo) => (
      put(repo, 'vendor/releases', 'cert-manager'),
      put(repo, 'vendor/releases', 'cluster-api', 'v1.12.0', 'metadata.yaml')
    ),
    error:
      'error[source-not-found]: clusterctl: "failed to read "core-components.yaml" from provider\'s repository "cluster-api""; core-components.yaml of cluster-api v1.12.0 is not in local repository vendor/releases: looked for vendor/releases/cluster-api/v1.12.0/core-components.yaml (and core-components.yaml.gz)',
    hint: `${MIRROR('vendor/releases', 'vendor/releases/cluster-api/v1.12.0/')}; or check spec.version`,
  },
  {
    name: "cert-manager's manifest",
    repositories: ['vendor/releases'],
    fill: (repo) => put(repo, 'vendor/releases', 'cluster-api', 'v1.12.0'),
    error:
      'error[offline]: --offline: cert-manager.yaml of GitHub releases of cert-manager/cert-manager v1.19.4 is not in the cache (CACHE) and no local repository holds it: looked for vendor/releases/cert-manager/v1.19.4/cert-manager.yaml',
    hint: `${MIRROR('vendor/releases', 'vendor/releases/cert-manager/v1.19.4/')}; capi-render.lock does not pin it yet`,
  },
];

describe('offline, a missing release names where it was looked for and what writes it', () => {
  it.each(rows)('$name', async (row) => {
    const repo = makeRepo({ 'capi-render.yaml': config(row.repositories), 'providers/core.yaml': CORE() });
    row.fill(repo);
    const cache = tempDir();
    const r = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(r.code).toBe(1);
    const lines = r.stderr.replaceAll(cache, 'CACHE').split('\n');
    const at = lines.findIndex((l) => l.includes(row.error));
    expect(at, r.stderr).toBeGreaterThanOrEqual(0);
    expect(
      lines
        .slice(at + 1)
        .find((l) => l.trimStart().startsWith('hint: '))
        ?.trim(),
    ).toBe(row.hint);
  });

  it('the mirror command the hint names fills the repository it reads, and the offline build then passes', async () => {
    const gh = await startFakeGitHub();
    onTestFinished(() => gh.close());
    // The repository holds cluster-api/ without the release the inputs pin: mirror must fetch it
    // from the provider's own source rather than read the folder it fills.
    const repo = makeRepo({
      'capi-render.yaml': config(['vendor/releases'], `github:\n  apiUrl: ${gh.baseUrl}\n`),
      'providers/core.yaml': CORE(),
    });
    put(repo, 'vendor/releases', 'cluster-api', 'v1.11.0');
    const offline = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(offline.stderr).toContain(MIRROR('vendor/releases', 'vendor/releases/cluster-api/v1.12.0/'));
    const mirror = await runCli(['mirror', '--to', 'vendor/releases'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: tempDir() },
    });
    expect(mirror.code, mirror.stderr).toBe(0);
    expect(gh.requests.filter((r) => r.route === 'download').length).toBeGreaterThan(0);
    const build = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain('rendered default: cert-manager v1.19.4, cluster-api v1.12.0');
  });

  it('offline, mirror --to the repository it reads copies it onto itself (no other source could serve it)', async () => {
    const repo = makeRepo({ 'capi-render.yaml': config(['vendor/releases']), 'providers/core.yaml': CORE() });
    put(repo, 'vendor/releases', 'cluster-api', 'v1.12.0');
    put(repo, 'vendor/releases', 'cert-manager', 'v1.19.4');
    const mirror = await runCli(['mirror', '--to', 'vendor/releases', '--offline'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: tempDir() },
    });
    expect(mirror.code, mirror.stderr).toBe(0);
    expect(mirror.stderr).toMatch(/^mirrored \d+ files \(repository\) to vendor\/releases$/m);
  });
});
