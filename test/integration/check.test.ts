/** `capi-render check`, the CI drift gate, on a copy of the example repository. */
import { appendFileSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';

describe('check', () => {
  it('passes on a clean tree and writes nothing', async () => {
    const repo = copyExample({ committed: true });
    const before = snapshotTree(repo);
    const r = await runCli(['check'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/check: 2 environments up to date/);
    expect(snapshotTree(repo)).toEqual(before);
  });

  const cases: { name: string; change: (repo: string) => void; file: string; text: RegExp }[] = [
    {
      name: 'a hand-edited object',
      change: (repo) => {
        const f = path.join(repo, 'rendered/dev/cluster-api/deployment-capi-controller-manager.yaml');
        writeFileSync(f, readFileSync(f, 'utf8').replace('replicas: 1', 'replicas: 5'));
      },
      file: 'rendered/dev/cluster-api/deployment-capi-controller-manager.yaml',
      text: /differs from what the inputs render[^\n]*\n\s+spec\.replicas: committed 5, inputs render 1/,
    },
    {
      name: 'a deleted file',
      change: (repo) => rmSync(path.join(repo, 'rendered/prod/cluster-api/service-capi-webhook-service.yaml')),
      file: 'rendered/prod/cluster-api/service-capi-webhook-service.yaml',
      text: /missing/,
    },
    {
      name: 'a stale file capi-render wrote (listed in its ownership record)',
      change: (repo) => {
        writeFileSync(
          path.join(repo, 'rendered/dev/cluster-api/configmap-extra.yaml'),
          'apiVersion: v1\nkind: ConfigMap\n',
        );
        appendFileSync(path.join(repo, 'rendered/.capi-render-owned'), 'dev/cluster-api/configmap-extra.yaml\n');
      },
      file: 'rendered/dev/cluster-api/configmap-extra.yaml',
      text: /stale/,
    },
    {
      name: 'an edited gitops consumer file',
      change: (repo) => appendFileSync(path.join(repo, 'gitops/argocd/applications/prod.yaml'), '# edited\n'),
      file: 'gitops/argocd/applications/prod.yaml',
      text: /formatting only/,
    },
    {
      name: 'a stale lock (an input changed, nothing re-rendered)',
      change: (repo) => {
        const f = path.join(repo, 'overlays/prod/overlay.yaml');
        writeFileSync(f, readFileSync(f, 'utf8').replace('value: v1.11.0', 'value: v1.12.0'));
      },
      file: 'capi-render.lock',
      text: /capi-render\.lock is stale:(\n\s+prod: .*)*\n\s+prod: CoreProvider\/capi-system\/cluster-api v1\.11\.0 → v1\.12\.0/,
    },
  ];
  it('reports a file capi-render did not write without failing: Argo CD and Flux apply only what the kustomizations list', async () => {
    const repo = copyExample({ committed: true });
    writeFileSync(
      path.join(repo, 'rendered/dev/cluster-api/configmap-extra.yaml'),
      'apiVersion: v1\nkind: ConfigMap\n',
    );
    const r = await runCli(['check'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'warning[output-location]: not written by capi-render (ignored): rendered/dev/cluster-api/configmap-extra.yaml',
    );
  });

  it('fails when the ownership record no longer lists what the inputs render', async () => {
    const repo = copyExample({ committed: true });
    const record = path.join(repo, 'rendered/.capi-render-owned');
    writeFileSync(record, readFileSync(record, 'utf8').replace('dev/kustomization.yaml\n', ''));
    const r = await runCli(['check'], { cwd: repo });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('rendered/.capi-render-owned: error[drift]');
  });

  it.each(cases)('fails on $name, naming it', async ({ change, file, text }) => {
    const repo = copyExample({ committed: true });
    change(repo);
    const before = snapshotTree(repo);
    const r = await runCli(['check'], { cwd: repo });
    expect(r.code).toBe(1);
    // The lock's error names the first line that differs from what a build writes.
    expect(r.stderr).toMatch(new RegExp(`^${file.replace(/[.]/g, '\\.')}(?::\\d+:1)?: error\\[drift\\]`, 'm'));
    expect(r.stderr).toMatch(text);
    expect(r.stderr).toContain('hint: run `capi-render build`');
    expect(snapshotTree(repo)).toEqual(before);
  });
});
