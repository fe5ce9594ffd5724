/**
 * Settings that point at nothing a build can use, refused where they are written: an outputDir or
 * gitopsDir outside the repository that Argo CD or Flux are pointed at, a `repositories:` path that
 * does not exist, environment names that become the same GitOps names. Each row is one case through
 * the CLI: its exit code, the first line it prints (file:line where there is one), and what changed
 * on disk — nothing, for a refusal.
 */
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, copyExample, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const overlay = (body = '') => `apiVersion: capi-render/v1alpha1\nkind: Overlay\n${body}`;
const edit = (file: string, from: string | RegExp, to: string) =>
  writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
/** The example (Flux for dev, Argo CD for prod, releases from test/fixtures/repository). */
const example = () => copyExample();
/** Two environments over the fixture repository (an absolute path outside the repository: no warning), flavour kustomize unless told. */
const small = (files: Record<string, string> = {}, config = '') =>
  makeRepo({ 'capi-render.yaml': configYaml(config), 'providers/core.yaml': CORE(), ...files });
/** A folder beside the repository, unique to it (removed with the test). */
const beside = (repo: string, name: string) => `../${path.basename(repo)}-${name}`;

interface Row {
  name: string;
  repo: () => string;
  setup?: (repo: string) => void;
  argv: string[];
  code: 0 | 1 | 2;
  /** The first line of stderr. */
  first: RegExp;
  /** Paths (prefixes) a successful command may change; a refusal changes nothing. */
  writes?: string[];
}

const rows: Row[] = [
  // 1. outputDir / gitopsDir outside the repository while a controller reads them from git.
  {
    name: 'outputDir ../x with Flux (dev) and Argo CD (prod)',
    repo: example,
    setup: (repo) => appendFileSync(path.join(repo, 'capi-render.yaml'), `outputDir: ${beside(repo, 'x')}\n`),
    argv: ['build', '--offline'],
    code: 1,
    first:
      /^capi-render\.yaml:\d+:12: error\[output-location\]: outputDir \.\.\/\S+-x is outside the repository: Argo CD \(environment prod\) and Flux \(environment dev\) would read it from git, where it does not exist$/,
  },
  {
    name: 'gitopsDir ../g with Flux and Argo CD Applications',
    repo: example,
    setup: (repo) => appendFileSync(path.join(repo, 'capi-render.yaml'), `gitopsDir: ${beside(repo, 'g')}\n`),
    argv: ['build', '--offline'],
    code: 1,
    first:
      /^capi-render\.yaml:\d+:12: error\[output-location\]: gitopsDir \.\.\/\S+-g is outside the repository: Argo CD \(environment prod\) and Flux \(environment dev\) would read it from git, where it does not exist$/,
  },
  {
    name: 'check refuses it too (not only build)',
    repo: example,
    setup: (repo) => appendFileSync(path.join(repo, 'capi-render.yaml'), `outputDir: ${beside(repo, 'x')}\n`),
    argv: ['check', '--offline'],
    code: 1,
    first: /^capi-render\.yaml:\d+:12: error\[output-location\]: outputDir \S+ is outside the repository/,
  },
  {
    name: 'outputDir written as an absolute path into the repository',
    repo: example,
    setup: (repo) => appendFileSync(path.join(repo, 'capi-render.yaml'), `outputDir: ${path.join(repo, 'rendered')}\n`),
    argv: ['build', '--offline'],
    code: 1,
    first:
      /^capi-render\.yaml:\d+:12: error\[output-location\]: outputDir \/\S+\/rendered is an absolute path: Argo CD \(environment prod\) and Flux \(environment dev\) would read it from git, as a path inside their checkout, where it does not exist$/,
  },
  {
    name: 'outputDir ../x where only an overlay chooses Flux',
    repo: () =>
      small({ 'overlays/a/overlay.yaml': overlay(), 'overlays/b/overlay.yaml': overlay('gitops:\n  flavour: flux\n') }),
    setup: (repo) => appendFileSync(path.join(repo, 'capi-render.yaml'), `outputDir: ${beside(repo, 'x')}\n`),
    argv: ['build', '--offline'],
    code: 1,
    first:
      /^capi-render\.yaml:\d+:12: error\[output-location\]: outputDir \S+ is outside the repository: Flux \(environment b\) would read it from git, where it does not exist$/,
  },
  {
    name: 'outputDir ../x/rendered with the kustomize flavour: allowed (no controller reads it)',
    repo: () => small({ 'overlays/a/overlay.yaml': overlay() }),
    setup: (repo) => {
      mkdirSync(path.resolve(repo, beside(repo, 'x')));
      appendFileSync(path.join(repo, 'capi-render.yaml'), `outputDir: ${beside(repo, 'x')}/rendered\n`);
    },
    argv: ['build', '--offline'],
    code: 0,
    first: /^rendered a: cert-manager v1\.19\.4, cluster-api v1\.12\.0$/,
    writes: ['capi-render.lock'],
  },
  // 2. repositories[].path that does not exist.
  {
    name: 'repositories path mistyped',
    repo: example,
    setup: (repo) =>
      edit(path.join(repo, 'capi-render.yaml'), 'path: test/fixtures/repository', 'path: test/fixtures/repositry'),
    argv: ['build', '--offline'],
    code: 1,
    first:
      /^capi-render\.yaml:8:11: error\[input-path\]: repositories\[0\]\.path test\/fixtures\/repositry does not exist; did you mean test\/fixtures\/repository\?$/,
  },
  {
    name: 'repositories path mistyped in two folders',
    repo: example,
    setup: (repo) =>
      edit(path.join(repo, 'capi-render.yaml'), 'path: test/fixtures/repository', 'path: tset/fixture/repository'),
    argv: ['check', '--offline'],
    code: 1,
    first:
      /^capi-render\.yaml:8:11: error\[input-path\]: repositories\[0\]\.path tset\/fixture\/repository does not exist; did you mean test\/fixtures\/repository\?$/,
  },
  {
    name: 'repositories path written on Windows',
    repo: example,
    setup: (repo) =>
      edit(path.join(repo, 'capi-render.yaml'), 'path: test/fixtures/repository', 'path: "C:\\\\mirror"'),
    argv: ['build', '--offline'],
    code: 1,
    first:
      /^capi-render\.yaml:8:11: error\[input-path\]: repositories\[0\]\.path C:\\mirror does not exist \(a Windows path: paths are read relative to the repository, with \/ between folders\)$/,
  },
  {
    name: 'repositories path absolute, from another machine',
    repo: example,
    setup: (repo) =>
      edit(
        path.join(repo, 'capi-render.yaml'),
        'path: test/fixtures/repository',
        'path: /home/someone-else/capi-mirror',
      ),
    argv: ['build', '--offline'],
    code: 1,
    first:
      /^capi-render\.yaml:8:11: error\[input-path\]: repositories\[0\]\.path \/home\/someone-else\/capi-mirror does not exist on this machine/,
  },
  {
    name: 'repositories path absolute into the repository: a warning, and the build goes on',
    repo: example,
    setup: (repo) =>
      edit(
        path.join(repo, 'capi-render.yaml'),
        'path: test/fixtures/repository',
        `path: ${path.join(repo, 'test/fixtures/repository')}`,
      ),
    argv: ['build', '--offline'],
    code: 0,
    first:
      /^capi-render\.yaml:8:11: warning\[input-path\]: repositories\[0\]\.path \/\S+\/test\/fixtures\/repository is an absolute path: it ties the repository to this machine/,
    writes: ['rendered/', 'gitops/', 'capi-render.lock'],
  },
  {
    name: 'repositories path out of the repository (../): read as written, without a warning (init refuses it without --allow-outside)',
    repo: example,
    setup: (repo) => {
      const outside = path.resolve(repo, beside(repo, 'x'));
      cpSync(path.join(repo, 'test/fixtures/repository'), outside, { recursive: true });
      edit(path.join(repo, 'capi-render.yaml'), 'path: test/fixtures/repository', `path: ${beside(repo, 'x')}`);
    },
    argv: ['build', '--offline'],
    code: 0,
    first: /^rendered dev: cert-manager v1\.19\.4, cluster-api v1\.12\.0/,
    writes: ['rendered/', 'gitops/', 'capi-render.lock'],
  },
  {
    name: 'mirror --to the folder a repositories entry names, before it exists',
    repo: example,
    setup: (repo) =>
      edit(path.join(repo, 'capi-render.yaml'), 'repositories:\n', 'repositories:\n  - path: vendor/releases\n'),
    argv: ['mirror', '--to', 'vendor/releases', '--offline'],
    code: 0,
    first: /^mirrored \d+ files \(repository\) to vendor\/releases$/,
    writes: ['vendor/releases/'],
  },
  // 3. Environment names that become the same GitOps names.
  {
    name: 'environments eu-west and eu_west',
    repo: () => small({ 'overlays/eu-west/overlay.yaml': overlay(), 'overlays/eu_west/overlay.yaml': overlay() }),
    argv: ['build', '--offline'],
    code: 1,
    first:
      /^overlays\/eu_west\/overlay\.yaml:1:1: error\[overlay\]: environment eu_west \(overlays\/eu_west\) and environment eu-west \(overlays\/eu-west\) would both be capi-eu-west in Argo CD and Flux$/,
  },
  {
    name: 'environments eu.west and eu-west, through check',
    repo: () => small({ 'overlays/eu-west/overlay.yaml': overlay(), 'overlays/eu.west/overlay.yaml': overlay() }),
    argv: ['check', '--offline'],
    code: 1,
    first:
      /^overlays\/eu\.west\/overlay\.yaml:1:1: error\[overlay\]: environment eu\.west \(overlays\/eu\.west\) and environment eu-west \(overlays\/eu-west\) would both be capi-eu-west/,
  },
  {
    name: 'environments Dev and dev, through inputs',
    repo: () => small({ 'overlays/Dev/overlay.yaml': overlay(), 'overlays/dev/overlay.yaml': overlay() }),
    argv: ['inputs', '--env', 'dev'],
    code: 1,
    first:
      /^overlays\/dev\/overlay\.yaml:1:1: error\[overlay\]: environment dev \(overlays\/dev\) and environment Dev \(overlays\/Dev\) would both be capi-dev/,
  },
  {
    name: 'an abstract overlay does not collide (it is no environment)',
    repo: () =>
      small({
        'overlays/eu_west/overlay.yaml': overlay('abstract: true\n'),
        'overlays/eu-west/overlay.yaml': overlay('resources:\n  - ../eu_west\n'),
      }),
    argv: ['build', '--offline'],
    code: 0,
    first: /^rendered eu-west: cert-manager v1\.19\.4, cluster-api v1\.12\.0$/,
    writes: ['rendered/', 'capi-render.lock'],
  },
];

describe('input locations are checked where they are written', () => {
  it.each(rows)('$name', async (row) => {
    const repo = row.repo();
    onTestFinished(() =>
      ['x', 'g'].forEach((name) => rmSync(path.resolve(repo, beside(repo, name)), { recursive: true, force: true })),
    );
    row.setup?.(repo);
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    const before = snapshotTree(repo);
    const r = await runCli(row.argv, { cwd: repo, env });
    const first = r.stderr.split('\n')[0]!;
    if (process.env.PRINT_FIRST_LINES)
      console.info(`${row.name}: capi-render ${row.argv.join(' ')} → exit ${r.code}: ${first}`);
    expect(r.code, r.stderr).toBe(row.code);
    expect(first).toMatch(row.first);
    const after = snapshotTree(repo);
    const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((f) => before[f] !== after[f]);
    const allowed = row.writes ?? [];
    expect(changed.filter((f) => !allowed.some((p) => f.startsWith(p)))).toEqual([]);
    if (row.code === 0 && allowed.length > 0) expect(changed.length).toBeGreaterThan(0);
  });
});
