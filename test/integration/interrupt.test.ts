/**
 * Interruption and concurrency: a build killed with SIGKILL at a random point never leaves a mixed
 * rendered/ — it is exactly the previous output or exactly the new one — and the next build
 * completes. Two builds at once do not corrupt each other: one waits its turn or is refused.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const build = (cwd: string) => spawnSync(process.execPath, [CLI, 'build'], { cwd, encoding: 'utf8', env: { PATH: process.env.PATH } });

function bumpReplicas(repo: string, replicas: number): void {
  const f = path.join(repo, 'overlays/prod/patches/ha-core.yaml');
  writeFileSync(f, readFileSync(f, 'utf8').replace(/replicas: \d+/, `replicas: ${replicas}`));
}

describe('interruption', () => {
  it('SIGKILL at random points leaves either the old or the new output, never a mix', async () => {
    const repo = copyExample();
    expect(build(repo).status).toBe(0);
    const old = snapshotTree(path.join(repo, 'rendered'));
    bumpReplicas(repo, 7);
    const reference = copyExample();
    bumpReplicas(reference, 7);
    expect(build(reference).status).toBe(0);
    const next = snapshotTree(path.join(reference, 'rendered'));
    expect(next).not.toEqual(old);

    const delays = [150, 300, 450, 600, 800, 1000];
    const outcomes: string[] = [];
    for (const delay of delays) {
      const child = spawn(process.execPath, [CLI, 'build'], { cwd: repo, env: { PATH: process.env.PATH }, stdio: 'ignore' });
      // Listen at once: a fast build may finish before the kill.
      const exited = new Promise((r) => child.once('exit', r));
      await new Promise((r) => setTimeout(r, delay));
      child.kill('SIGKILL');
      await exited;
      // A later run repairs a kill between the two renames; look at the tree the way a user would next see it.
      const now = snapshotTree(path.join(repo, 'rendered'));
      const state = JSON.stringify(now) === JSON.stringify(old) ? 'old' : JSON.stringify(now) === JSON.stringify(next) ? 'new' : Object.keys(now).length === 0 ? 'between-renames' : 'MIXED';
      outcomes.push(state);
      expect(state, `killed after ${delay} ms`).not.toBe('MIXED');
      if (state === 'new') {
        // Reset to the old output for the next round.
        bumpReplicas(repo, 2);
        expect(build(repo).status).toBe(0);
        bumpReplicas(repo, 7);
      }
    }
    const final = build(repo);
    expect(final.status, final.stderr).toBe(0);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(next);
    expect(outcomes.length).toBe(delays.length);
  }, 120_000);

  it('two builds at once both finish and leave a consistent tree', async () => {
    const repo = copyExample();
    const run = () =>
      new Promise<{ code: number | null; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [CLI, 'build'], { cwd: repo, env: { PATH: process.env.PATH } });
        let stderr = '';
        child.stderr.on('data', (d) => (stderr += d));
        child.on('exit', (code) => resolve({ code, stderr }));
      });
    const [a, b] = await Promise.all([run(), run()]);
    // Either both succeed (one after the other), or one is refused with a clear "busy" error.
    for (const r of [a, b]) if (r.code !== 0) expect(r.stderr).toContain('error[busy]');
    expect([a.code, b.code]).toContain(0);
    const check = spawnSync(process.execPath, [CLI, 'check'], { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH } });
    expect(check.status, check.stderr).toBe(0);
  }, 60_000);
});

describe('a reader that stops early', () => {
  it('build --stdout | head: the CLI exits 0 without a stack trace when the pipe closes', async () => {
    const repo = copyExample();
    const child = spawn(process.execPath, [CLI, 'build', '--env', 'dev', '--stdout'], { cwd: repo, env: { PATH: process.env.PATH }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += String(d)));
    const exited = new Promise((r) => child.once('exit', r));
    // The first chunk, then close the read end as head does (the stream is several MB; a pipe holds 64 KiB).
    const first = await new Promise<string>((r) => child.stdout.once('data', (d) => r(String(d))));
    child.stdout.destroy();
    expect(await exited).toBe(0);
    expect(first).toMatch(/^apiVersion: v1\nkind: Namespace\n/);
    expect(stderr).toBe('');
  });
});
