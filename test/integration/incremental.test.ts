/**
 * The fast paths write exactly what a cold build writes: skipped unchanged environments, shared
 * provider work between environments, the parse cache and hard-linked identical files.
 */
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const overlay = (replicas: number, registry: string) =>
  `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\npatches:\n  - target: {kind: CoreProvider}\n    patch: |-\n      - {op: add, path: /spec/deployment, value: {replicas: ${replicas}}}\nimages:\n  all: {repository: ${registry}}\n`;

function repoWith(envs: number): string {
  const files: Record<string, string> = { 'providers/core.yaml': CORE() };
  for (let i = 0; i < envs; i++) files[`overlays/env-${i}/overlay.yaml`] = overlay((i % 2) + 1, `registry-${i % 3}.example.com/capi`);
  return makeRepo(files);
}

const outputs = (repo: string) => Object.fromEntries(Object.entries(snapshotTree(repo)).filter(([k]) => k.startsWith('rendered/') || k.startsWith('gitops/') || k === 'capi-render.lock'));

describe('incremental and cached builds', () => {
  it('an incremental build after one change equals a cold build of the same inputs', async () => {
    const cache = tempDir();
    const repo = repoWith(6);
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    writeFileSync(path.join(repo, 'overlays/env-3/overlay.yaml'), overlay(5, 'other.example.com/capi'));
    const incremental = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
    expect(incremental.code, incremental.stderr).toBe(0);
    expect(incremental.stderr).toContain('unchanged since the last build (inputs hash in capi-render.lock): env-0, env-1, env-2, env-4, env-5');

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
    const crd = (env: string) => path.join(repo, `rendered/${env}/cluster-api/customresourcedefinition-clusters.cluster.x-k8s.io.yaml`);
    expect(statSync(crd('env-0')).ino).toBe(statSync(crd('env-2')).ino);
    expect(readFileSync(crd('env-0'), 'utf8')).toBe(readFileSync(crd('env-1'), 'utf8'));
  });
});
