/**
 * The fast paths write exactly what a cold build writes: skipped unchanged environments, shared
 * provider work between environments, the parse cache and hard-linked identical files.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const overlay = (replicas: number, registry: string) =>
  `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\npatches:\n  - target: {kind: CoreProvider}\n    patch: |-\n      - {op: add, path: /spec/deployment, value: {replicas: ${replicas}}}\nimages:\n  all: {repository: ${registry}}\n`;

function repoWith(envs: number): string {
  const files: Record<string, string> = { 'providers/core.yaml': CORE() };
  for (let i = 0; i < envs; i++)
    files[`overlays/env-${i}/overlay.yaml`] = overlay((i % 2) + 1, `registry-${i % 3}.example.com/capi`);
  return makeRepo(files);
}

const outputs = (repo: string) =>
  Object.fromEntries(
    Object.entries(snapshotTree(repo)).filter(
      ([k]) => k.startsWith('rendered/') || k.startsWith('gitops/') || k === 'capi-render.lock',
    ),
  );

describe('incremental and cached builds', () => {
  it('an incremental build after one change equals a cold build of the same inputs', async () => {
    const cache = tempDir();
    const repo = repoWith(6);
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    writeFileSync(path.join(repo, 'overlays/env-3/overlay.yaml'), overlay(5, 'other.example.com/capi'));
    const incremental = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(incremental.code, incremental.stderr).toBe(0);
    expect(incremental.stderr).toContain(
      'unchanged since the last build (inputs hash in capi-render.lock): env-0, env-1, env-2, env-4, env-5',
    );

    const cold = repoWith(6);
    writeFileSync(path.join(cold, 'overlays/env-3/overlay.yaml'), overlay(5, 'other.example.com/capi'));
    expect((await runCli(['build'], { cwd: cold, env: { CAPI_RENDER_CACHE_DIR: tempDir() } })).code).toBe(0);
    expect(outputs(repo)).toEqual(outputs(cold));
  });

  it('a warm parse cache and a cold one give byte-identical output', async () => {
    const cache = tempDir();
    const first = repoWith(2);
    expect((await runCli(['build'], { cwd: first, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    const second = repoWith(2);
    expect((await runCli(['build'], { cwd: second, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    expect(readdirSync(path.join(cache, `parsed2-v8-${process.versions.v8}`)).length).toBeGreaterThan(0);
    expect(outputs(second)).toEqual(outputs(first));
  });

  it('a corrupted parse-cache entry is ignored', async () => {
    const cache = tempDir();
    const repo = repoWith(1);
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    const before = outputs(repo);
    const dir = path.join(cache, `parsed2-v8-${process.versions.v8}`);
    for (const f of readdirSync(dir)) writeFileSync(path.join(dir, f), 'garbage');
    const again = repoWith(1);
    expect((await runCli(['build'], { cwd: again, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    expect(outputs(again)).toEqual(before);
  });

  it('environments that share content share files on disk (hard links), with the same bytes', async () => {
    const repo = repoWith(3);
    expect((await runCli(['build'], { cwd: repo })).code).toBe(0);
    const crd = (env: string) =>
      path.join(repo, `rendered/${env}/cluster-api/customresourcedefinition-clusters.cluster.x-k8s.io.yaml`);
    expect(statSync(crd('env-0')).ino).toBe(statSync(crd('env-2')).ino);
    expect(readFileSync(crd('env-0'), 'utf8')).toBe(readFileSync(crd('env-1'), 'utf8'));
  });
});

/** Every environment with values of its own: a variable, and for some a patch or a registry. */
function distinctFleet(envs: number, value = (i: number) => `:${8000 + i}`): string {
  const files: Record<string, string> = {
    'capi-render.yaml': `${configYaml()}gitops:\n  flavour: flux\n`,
    'providers/core.yaml': CORE(),
    'providers/docker.yaml':
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: docker\n  namespace: capd-system\nspec:\n  version: v1.12.0\n',
  };
  for (let i = 0; i < envs; i++) {
    const patch =
      i % 3 === 0
        ? `patches:\n  - target: {kind: CoreProvider}\n    patch: |-\n      - {op: add, path: /spec/deployment, value: {replicas: ${(i % 2) + 2}}}\n`
        : '';
    const images = i % 4 === 1 ? `images:\n  all: {repository: registry-${i}.example.com/capi}\n` : '';
    files[`overlays/env-${i}/overlay.yaml`] =
      `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\nvariables:\n  CAPI_DIAGNOSTICS_ADDRESS: "${value(i)}"\n${patch}${images}`;
  }
  return makeRepo(files);
}

describe('environments with distinct values', () => {
  it('warm-cache, incremental and cold builds write the same bytes', async () => {
    const cache = tempDir();
    const cold = distinctFleet(16);
    expect((await runCli(['build'], { cwd: cold, env: { CAPI_RENDER_CACHE_DIR: tempDir() } })).code).toBe(0);
    // The cache is warm from a first repository: the second one reads every constant part back.
    const warm = distinctFleet(16);
    expect((await runCli(['build'], { cwd: distinctFleet(16), env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    const built = await runCli(['build'], { cwd: warm, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(built.code, built.stderr).toBe(0);
    expect(outputs(warm)).toEqual(outputs(cold));
    expect(Object.keys(outputs(warm)).filter((f) => f.startsWith('gitops/flux/')).length).toBeGreaterThan(16);

    // New values in three environments: an incremental build equals a cold build of the same inputs.
    const changed = (i: number) => ([2, 7, 11].includes(i) ? `:${9000 + i}` : `:${8000 + i}`);
    const again = distinctFleet(16, changed);
    for (const i of [2, 7, 11]) {
      const file = `overlays/env-${i}/overlay.yaml`;
      writeFileSync(path.join(warm, file), readFileSync(path.join(again, file), 'utf8'));
    }
    const incremental = await runCli(['build'], { cwd: warm, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(incremental.code, incremental.stderr).toBe(0);
    expect(incremental.stderr).toMatch(/^rendered env-11: .*\nrendered env-2: .*\nrendered env-7: /m);
    expect((await runCli(['build'], { cwd: again, env: { CAPI_RENDER_CACHE_DIR: tempDir() } })).code).toBe(0);
    expect(outputs(warm)).toEqual(outputs(again));
    expect((await runCli(['check'], { cwd: warm, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
  }, 120_000);
});
