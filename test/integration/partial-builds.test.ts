/**
 * Partial builds stay honest: whatever partial builds (--shard, --env) run on a damaged tree —
 * output folders, an environment's folder or a GitOps file deleted, a file edited — the builds after
 * them never take an environment they did not check for unchanged. Once every damaged environment
 * has been built again, rendered/, gitops/, their ownership records and capi-render.lock are byte for
 * byte what `build --force` writes from the same inputs, and `check` passes exactly then.
 *
 * The table runs on a small fleet — dev (Flux, shard 1/2) and prod (Argo CD, shard 2/2), the core
 * provider from the bundled release — to keep 48 sequences cheap; the reported sequence runs on this
 * repository's own example through the installed command.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { stampFile } from '../../src/build/build-stamp.js';
import { fingerprintFile } from '../../src/output/output-fingerprint.js';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { CORE, copyExample, makeRepo, snapshotTree } from '../helpers/repo.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';

const ENVS = ['dev', 'prod'];

const PROD_DEPLOYMENT = 'rendered/prod/cluster-api/deployment-capi-controller-manager.yaml';

const FLEET: Record<string, string> = {
  'capi-render.yaml': `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nrepositories:\n  - path: ${FIXTURES}repository\ngitops:\n  flavour: flux\n  flux:\n    sourceRef: {kind: GitRepository, name: fleet, namespace: flux-system}\n`,
  'providers/core.yaml': CORE(),
  'overlays/dev/overlay.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\n',
  'overlays/prod/overlay.yaml':
    'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\npatches:\n  - target: {kind: CoreProvider}\n    patch: |-\n      - {op: add, path: /spec/deployment, value: {replicas: 2}}\ngitops:\n  flavour: argocd\n  argocd:\n    application: true\n    repoURL: https://github.com/example/fleet.git\n    targetRevision: main\n',
};

/** What a build command checks: the environments it renders or confirms. */
const BUILDS: Record<string, { argv: string[]; covers: string[] }> = {
  'shard 1/2': { argv: ['--shard', '1/2'], covers: ['dev'] },
  'shard 2/2': { argv: ['--shard', '2/2'], covers: ['prod'] },
  '--env dev': { argv: ['--env', 'dev'], covers: ['dev'] },
  '--env prod': { argv: ['--env', 'prod'], covers: ['prod'] },
  plain: { argv: [], covers: ENVS },
};

const DAMAGES: { name: string; damage: (repo: string) => void; hits: string[] }[] = [
  {
    name: 'rm -rf rendered gitops',
    damage: (repo) => ['rendered', 'gitops'].forEach((d) => rmSync(path.join(repo, d), { recursive: true })),
    hits: ['dev', 'prod'],
  },
  {
    name: 'rm -rf rendered/prod',
    damage: (repo) => rmSync(path.join(repo, 'rendered/prod'), { recursive: true }),
    hits: ['prod'],
  },
  {
    name: 'rm gitops/argocd/applications/prod.yaml',
    damage: (repo) => rmSync(path.join(repo, 'gitops/argocd/applications/prod.yaml')),
    hits: ['prod'],
  },
  {
    // In place: a file prod shares with dev (hard-linked, same bytes) would be edited in both.
    name: 'edit rendered/prod/cluster-api/deployment-capi-controller-manager.yaml',
    damage: (repo) => {
      const file = path.join(repo, PROD_DEPLOYMENT);
      expect(statSync(file).nlink).toBe(1);
      writeFileSync(file, readFileSync(file, 'utf8').replace('replicas: 2', 'replicas: 5'));
    },
    hits: ['prod'],
  },
];
const PARTIALS = ['shard 1/2', 'shard 2/2', '--env dev', '--env prod'];
const FINALS = ['plain', '--env prod', 'shard 2/2'];

/** rendered/, gitops/ (ownership records included) and the lock, path → sha256. */
const outputs = (repo: string) =>
  Object.fromEntries(
    Object.entries(snapshotTree(repo)).filter(([k]) => /^(rendered|gitops)\//.test(k) || k === 'capi-render.lock'),
  );

describe('partial builds after damage, then another build', () => {
  const shared = suiteTempDir();
  // One cache for the suite (the parse cache stays warm); each repository has its own fingerprint and stamp in it.
  const env = { CAPI_RENDER_CACHE_DIR: path.join(shared, 'cache') };
  let full: Record<string, string>;
  beforeAll(async () => {
    const repo = makeRepo(FLEET, path.join(shared, 'full'));
    const r = await runCli(['build', '--offline', '--force'], { cwd: repo, env });
    expect(r.code, r.stderr).toBe(0);
    full = outputs(repo);
    expect(Object.keys(full).filter((k) => k.endsWith('.capi-render-owned'))).toHaveLength(2);
    expect(Object.keys(full)).toEqual(
      expect.arrayContaining(['gitops/argocd/applications/prod.yaml', 'gitops/flux/dev/kustomization.yaml']),
    );
  }, 60_000);

  for (const d of DAMAGES) {
    for (const partial of PARTIALS) {
      it(`${d.name}; build ${partial}; then each of ${FINALS.join(', ')}`, async () => {
        const repo = makeRepo(FLEET);
        const build = async (name: string) => {
          const r = await runCli(['build', '--offline', ...BUILDS[name]!.argv], { cwd: repo, env });
          expect(r.code, `build ${name}: ${r.stderr}`).toBe(0);
          return r;
        };
        await build('plain');
        d.damage(repo);
        const p = await build(partial);
        // A partial build names only its own environments, and renders every damaged one of them.
        for (const e of ENVS) {
          const said = new RegExp(`^rendered ${e}:|^unchanged since the last build .*\\b${e}\\b`, 'm').test(p.stderr);
          expect(said, `${partial} on ${e}: ${p.stderr}`).toBe(BUILDS[partial]!.covers.includes(e));
          if (said && d.hits.includes(e)) expect(p.stderr).toMatch(new RegExp(`^rendered ${e}:`, 'm'));
        }
        // Each final build from the same state: the repository and its records in the cache saved, put back before each.
        const saved = tempDir();
        const records = [fingerprintFile(env.CAPI_RENDER_CACHE_DIR, repo), stampFile(env.CAPI_RENDER_CACHE_DIR, repo)];
        cpSync(repo, path.join(saved, 'repo'), { recursive: true, preserveTimestamps: true });
        records.forEach((file, i) => existsSync(file) && copyFileSync(file, path.join(saved, `record-${i}`)));
        for (const final of FINALS) {
          rmSync(repo, { recursive: true, force: true });
          cpSync(path.join(saved, 'repo'), repo, { recursive: true, preserveTimestamps: true });
          records.forEach((file, i) =>
            existsSync(path.join(saved, `record-${i}`))
              ? copyFileSync(path.join(saved, `record-${i}`), file)
              : rmSync(file, { force: true }),
          );
          const f = await build(final);
          const repaired = d.hits.every(
            (e) => BUILDS[partial]!.covers.includes(e) || BUILDS[final]!.covers.includes(e),
          );
          const equal = JSON.stringify(outputs(repo)) === JSON.stringify(full);
          const now = outputs(repo);
          expect(
            equal,
            `after ${final}: ${f.stderr} ${JSON.stringify(Object.keys({ ...now, ...full }).filter((k) => now[k] !== full[k]))}`,
          ).toBe(repaired);
          if (repaired) expect(outputs(repo)).toEqual(full);
          const check = await runCli(['check', '--offline'], { cwd: repo, env });
          expect(check.code, `check after ${final}: ${check.stderr}`).toBe(repaired ? 0 : 1);
          // After a plain final build, the next one is a no-op.
          if (repaired && final === 'plain')
            expect((await build('plain')).stderr).toMatch(
              /^unchanged since the last build \(inputs hash in capi-render\.lock\): dev, prod\n/,
            );
        }
      }, 60_000);
    }
  }
});

describe('the reported sequence, through the installed command (the no-op bundle first)', () => {
  it('rm -rf rendered gitops; build --shard 1/2; build: prod is rendered again and check passes', () => {
    const repo = copyExample({ committed: true });
    const cache = tempDir();
    const cli = (...args: string[]) =>
      spawnSync(
        process.execPath,
        [path.join(REPO_ROOT, 'dist/bin/capi-render.js'), ...args, '--offline', '--cache-dir', cache],
        { cwd: repo, encoding: 'utf8' },
      );
    expect(cli('build').status).toBe(0);
    rmSync(path.join(repo, 'rendered'), { recursive: true });
    rmSync(path.join(repo, 'gitops'), { recursive: true });
    expect(cli('build', '--shard', '1/2').status).toBe(0);
    const r = cli('build');
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^rendered prod: /m);
    expect(r.stderr).not.toMatch(/^unchanged since the last build.*prod/m);
    expect(cli('check').status).toBe(0);
  });
});
