/**
 * Interruption and concurrency: a build killed with SIGKILL at a random point never leaves a mixed
 * rendered/ — it is exactly the previous output or exactly the new one — and the next build
 * completes. Two builds at once do not corrupt each other: one waits its turn or is refused.
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { CORE, copyExample, makeRepo, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
/** A small deterministic generator, so a failing run can be replayed from its printed seed. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const STATE = ['rendered', 'gitops', 'capi-render.lock'];

/** rendered/, gitops/ and the lock as one snapshot (the work folder is not part of the output). */
function outputState(repo: string): string {
  const parts = STATE.map((p) => {
    const full = path.join(repo, p);
    if (!existsSync(full)) return `${p}: none`;
    return p.endsWith('.lock') ? `${p}: ${readFileSync(full, 'utf8')}` : `${p}: ${JSON.stringify(snapshotTree(full))}`;
  });
  return parts.join('\n');
}

/** Two input states whose outputs differ in most files: versions of core, bootstrap and cert-manager. */
function setInputs(repo: string, state: 'A' | 'B'): void {
  const version = state === 'A' ? 'v1.11.0' : 'v1.12.0';
  writeFileSync(path.join(repo, 'providers/core.yaml'), CORE(version));
  writeFileSync(path.join(repo, 'providers/kubeadm.yaml'), BOOTSTRAP(version));
  const config = path.join(repo, 'capi-render.yaml');
  writeFileSync(
    config,
    readFileSync(config, 'utf8').replace(/version: v1\.\d+\.\d+/, `version: ${state === 'A' ? 'v1.19.4' : 'v1.16.1'}`),
  );
}

const BOOTSTRAP = (version: string) =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: BootstrapProvider\nmetadata:\n  name: kubeadm\n  namespace: capi-kubeadm-bootstrap-system\nspec:\n  version: ${version}\n`;

describe('interruption', () => {
  it('SIGKILL at seeded random points, while writing and while installing: always the old or the new output', async () => {
    const seed = Number(process.env.KILL_SEED ?? Date.now() % 1_000_000);
    const random = mulberry32(seed);
    const cache = tempDir();
    const env = { PATH: process.env.PATH ?? '', CAPI_RENDER_CACHE_DIR: cache };
    const cli = (repo: string, extra: Record<string, string> = {}) =>
      spawnSync(process.execPath, [CLI, 'build', '--allow-removal'], {
        cwd: repo,
        encoding: 'utf8',
        env: { ...env, ...extra },
      });
    // The two complete states, built undisturbed.
    const repo = makeRepo({ 'providers/core.yaml': CORE('v1.11.0'), 'providers/kubeadm.yaml': BOOTSTRAP('v1.11.0') });
    setInputs(repo, 'A');
    expect(cli(repo).status).toBe(0);
    const pristineA = tempDir();
    const kept = [...STATE, 'providers', 'capi-render.yaml'].filter((p) => existsSync(path.join(repo, p)));
    for (const p of kept) cpSync(path.join(repo, p), path.join(pristineA, p), { recursive: true });
    const stateA = outputState(repo);
    setInputs(repo, 'B');
    expect(cli(repo).status).toBe(0);
    const stateB = outputState(repo);
    expect(stateB).not.toBe(stateA);
    const reset = () => {
      for (const p of [...STATE, 'providers', 'capi-render.yaml'])
        rmSync(path.join(repo, p), { recursive: true, force: true });
      for (const p of kept) cpSync(path.join(pristineA, p), path.join(repo, p), { recursive: true });
      setInputs(repo, 'B');
    };
    // How long the A → B build takes with the cache as warm as in the runs below.
    reset();
    const started = Date.now();
    expect(cli(repo).status).toBe(0);
    const duration = Date.now() - started;

    // Timed kills land anywhere in the second half of a build (where the writing is); failpoint
    // kills land exactly at a step of the write, the n-th time the writer reaches it.
    // How often the writer reaches each step in this change (a kill past the last one lets the build finish).
    const steps: [string, number][] = [
      ['stage', 60],
      ['commit', 1],
      ['committed', 1],
      ['apply', 60],
      ['remove', 3],
      ['record', 1],
      ['lock', 1],
    ];
    const runs = [
      // 16 timed kills by default (KILL_RUNS=200 for a long run): the failpoints below already stop the
      // writer at every step, so the timed ones are there for the places between them.
      ...Array.from({ length: Number(process.env.KILL_RUNS ?? 16) }, () => ({
        delay: Math.round(duration * (0.45 + 0.65 * random())),
      })),
      ...steps.flatMap(([step, hits]) =>
        [1, 2].map(() => ({ failpoint: `${step}:${1 + Math.floor(random() * hits)}` })),
      ),
    ];
    const outcomes: Record<string, number> = {};
    let atA = false;
    for (const [i, run] of runs.entries()) {
      if (!atA) reset();
      const where = `run ${i} (${'delay' in run ? `killed after ${run.delay} ms` : `CAPI_RENDER_TEST_KILL_AT=${run.failpoint}`}), KILL_SEED=${seed}`;
      let signal: NodeJS.Signals | null;
      if ('delay' in run) {
        const child = spawn(process.execPath, [CLI, 'build', '--allow-removal'], { cwd: repo, env, stdio: 'ignore' });
        const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, sig) => r(sig)));
        await new Promise((r) => setTimeout(r, run.delay));
        child.kill('SIGKILL');
        signal = await exited;
      } else {
        signal = cli(repo, { CAPI_RENDER_TEST_KILL_AT: run.failpoint }).signal;
      }
      const committed = existsSync(path.join(repo, '.capi-render-write/commit.json'));
      const now = outputState(repo);
      // Before the commit marker the output is exactly the old one; after it (and its cleanup) the new one.
      const state = committed ? 'installing' : now === stateA ? 'old' : now === stateB ? 'new' : 'MIXED';
      outcomes[`${signal ? 'killed' : 'finished'}/${state}`] =
        (outcomes[`${signal ? 'killed' : 'finished'}/${state}`] ?? 0) + 1;
      expect(state, where).not.toBe('MIXED');
      const leftovers = existsSync(path.join(repo, '.capi-render-write'));
      // A kill before anything was staged leaves the old state as it was: the next run can start from it.
      atA = state === 'old' && !leftovers;
      if (atA) continue;
      // The next build finishes an installing write, discards an uncommitted one, and ends in the new state.
      const next = cli(repo);
      expect(next.status, `${where}: ${next.stderr}`).toBe(0);
      if (committed) expect(next.stderr, where).toContain('finished the write of an interrupted build');
      expect(outputState(repo), where).toBe(stateB);
      expect(
        existsSync(path.join(repo, '.capi-render-write'))
          ? spawnSync('find', [path.join(repo, '.capi-render-write')], { encoding: 'utf8' }).stdout
          : 'gone',
        where,
      ).toBe('gone');
    }
    const final = cli(repo);
    expect(final.status, final.stderr).toBe(0);
    expect(outputState(repo)).toBe(stateB);
    console.info(`interruption outcomes (KILL_SEED=${seed}, build ${duration} ms): ${JSON.stringify(outcomes)}`);
    // Every kind of outcome happened at least once: kills before the commit point, during installing, and after.
    expect(
      Object.keys(outcomes).some((k) => k === 'killed/old'),
      JSON.stringify(outcomes),
    ).toBe(true);
    expect(
      Object.keys(outcomes).some((k) => k === 'killed/installing'),
      JSON.stringify(outcomes),
    ).toBe(true);
  }, 480_000);

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
    const check = spawnSync(process.execPath, [CLI, 'check'], {
      cwd: repo,
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    });
    expect(check.status, check.stderr).toBe(0);
  }, 60_000);
});

describe('a reader that stops early', () => {
  it('build --stdout | head: the CLI exits 0 without a stack trace when the pipe closes', async () => {
    const repo = copyExample();
    const child = spawn(process.execPath, [CLI, 'build', '--env', 'dev', '--stdout'], {
      cwd: repo,
      env: { PATH: process.env.PATH },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
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
