/**
 * `runCheck`, the library form of `capi-render check`, called through the public API on copies of
 * the example repository: a plain result with the drift, the lock's changes and the report, and
 * nothing written.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLockState, runCheck, type CheckResult } from 'capi-render';
import { copyExample, snapshotTree } from '../helpers/repo.js';

async function check(repo: string, environments: string[] = []): Promise<CheckResult> {
  const lock = await readLockState(repo);
  return runCheck({
    render: { repoRoot: repo, environments, lock },
  });
}

/** The files an ownership record lists: what the inputs render into its folder. */
function recordedFiles(repo: string, folder: string): number {
  return readFileSync(path.join(repo, folder, '.capi-render-owned'), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#')).length;
}

describe('runCheck through the public API', () => {
  it('finds no drift in the committed example, and writes nothing', async () => {
    const repo = copyExample({ committed: true });
    const before = snapshotTree(repo);
    const result = await check(repo);
    expect(result).toMatchObject({
      upToDate: true,
      environments: ['dev', 'prod'],
      drift: [],
      lockChanges: [],
      foreign: [],
      report: [],
    });
    expect(result.files).toBe(recordedFiles(repo, 'rendered') + recordedFiles(repo, 'gitops'));
    expect(snapshotTree(repo)).toEqual(before);
  });

  it('returns an edited and a deleted file as drift, with the report the CLI prints', async () => {
    const repo = copyExample({ committed: true });
    const deployment = 'rendered/dev/cluster-api/deployment-capi-controller-manager.yaml';
    const service = 'rendered/prod/cluster-api/service-capi-webhook-service.yaml';
    writeFileSync(
      path.join(repo, deployment),
      readFileSync(path.join(repo, deployment), 'utf8').replace('replicas: 1', 'replicas: 5'),
    );
    rmSync(path.join(repo, service));
    const before = snapshotTree(repo);
    const result = await check(repo);
    expect(result.upToDate).toBe(false);
    expect(result.drift).toEqual([
      { file: deployment, kind: 'edited', details: ['spec.replicas: committed 5, inputs render 1'] },
      { file: service, kind: 'missing', details: [] },
    ]);
    expect(result.lockChanges).toEqual([]);
    expect(result.report.map((d) => [d.severity, d.code, d.file])).toEqual([
      ['error', 'drift', deployment],
      ['error', 'drift', service],
    ]);
    expect(result.report.at(-1)!.hint).toMatch(/^run `capi-render build` and commit the result/);
    expect(snapshotTree(repo)).toEqual(before);
  });

  it('checks only the environments asked for', async () => {
    const repo = copyExample({ committed: true });
    rmSync(path.join(repo, 'rendered/prod/cluster-api/service-capi-webhook-service.yaml'));
    const result = await check(repo, ['dev']);
    expect(result).toMatchObject({ upToDate: true, environments: ['dev'], drift: [] });
  });

  it('returns a stale lock with the line where it starts to differ', async () => {
    const repo = copyExample({ committed: true });
    const overlay = path.join(repo, 'overlays/prod/overlay.yaml');
    writeFileSync(overlay, readFileSync(overlay, 'utf8').replace('value: v1.11.0', 'value: v1.12.0'));
    const result = await check(repo);
    expect(result.upToDate).toBe(false);
    expect(result.lockChanges).toContain('prod: CoreProvider/capi-system/cluster-api v1.11.0 → v1.12.0');
    expect(result.lockLine).toBeGreaterThan(1);
    expect(result.report.at(-1)).toMatchObject({
      code: 'drift',
      file: 'capi-render.lock',
      line: result.lockLine,
    });
  });
});
