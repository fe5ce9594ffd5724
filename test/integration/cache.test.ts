/**
 * The bounded cache: a size limit with least-recently-used eviction that never removes
 * what the running build uses, safe with concurrent builds; `cache info` and `cache prune`, which
 * touch nothing but capi-render's own entries and refuse folders that are not a cache of their own.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { dropPrivilegesMissing, skipWithout } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');

/** A repository of `envs` environments, each with its own value (one distinct variable). */
function fleet(envs: number, coreVersion = 'v1.12.0', dir?: string): string {
  const files: Record<string, string> = { 'providers/core.yaml': CORE(coreVersion) };
  for (let i = 0; i < envs; i++) {
    files[`overlays/env-${i}/overlay.yaml`] =
      `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: [../../providers]\nvariables:\n  CAPI_DIAGNOSTICS_ADDRESS: ":${8000 + i}"\n`;
  }
  return makeRepo(files, dir);
}

const outputs = (repo: string) =>
  Object.fromEntries(
    Object.entries(snapshotTree(repo)).filter(([k]) => k.startsWith('rendered/') || k === 'capi-render.lock'),
  );

interface Info {
  entries: number;
  bytes: number;
  kinds: Record<string, { entries: number; bytes: number }>;
}

async function info(cache: string): Promise<Info> {
  const r = await runCli(['cache', 'info', '--json'], { cwd: tempDir(), env: { CAPI_RENDER_CACHE_DIR: cache } });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as Info;
}

/** The built CLI in a child process (concurrency needs real processes). */
function spawnBuild(repo: string, env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, 'build'], { cwd: repo, env: { PATH: process.env.PATH, ...env } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('the bounded cache', () => {
  it('eviction under a small limit keeps builds correct, and never removes what the running build uses', async () => {
    const cache = tempDir();
    const env = { CAPI_RENDER_CACHE_DIR: cache, CAPI_RENDER_CACHE_MAX_SIZE: '100K' };
    const a = fleet(3);
    const cold = fleet(3);
    expect((await runCli(['build'], { cwd: cold, env: { CAPI_RENDER_CACHE_DIR: tempDir() } })).code).toBe(0);

    expect((await runCli(['build'], { cwd: a, env })).code).toBe(0);
    // Over the limit, but all of it is what the build used (the parsed v1.12.0 core, cert-manager).
    const afterA = await info(cache);
    expect(afterA.kinds.parsed!.entries).toBeGreaterThan(0);
    expect(afterA.bytes).toBeGreaterThan(100 * 1024);

    // Another release: the first build's entries are the least recently used, and go.
    const b = fleet(2, 'v1.11.0');
    expect((await runCli(['build'], { cwd: b, env })).code).toBe(0);
    // Left: what the second build used — its core release and the cert-manager both builds use.
    expect((await info(cache)).kinds.parsed!.entries).toBe(afterA.kinds.parsed!.entries);

    // The evicted entries are recomputed: a rebuild from scratch is byte-identical to a cold build.
    const again = fleet(3);
    expect((await runCli(['build'], { cwd: again, env })).code).toBe(0);
    expect(outputs(again)).toEqual(outputs(cold));
    expect(outputs(a)).toEqual(outputs(cold));
  });

  it('two concurrent builds with a tiny cache limit both succeed, with the output of a cold build', async () => {
    const cache = tempDir();
    const env = { CAPI_RENDER_CACHE_DIR: cache, CAPI_RENDER_CACHE_MAX_SIZE: '1' };
    const cold = fleet(4);
    expect((await runCli(['build'], { cwd: cold, env: { CAPI_RENDER_CACHE_DIR: tempDir() } })).code).toBe(0);
    for (let round = 0; round < 2; round++) {
      const repos = [fleet(4), fleet(4)];
      const results = await Promise.all(repos.map((repo) => spawnBuild(repo, env)));
      for (const r of results) expect(r.code, r.stderr).toBe(0);
      for (const repo of repos) expect(outputs(repo)).toEqual(outputs(cold));
    }
  }, 120_000);

  it('cache growth per build is bounded by the artifacts, not by the environments', async () => {
    const cache = tempDir();
    const repo = fleet(12);
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    const first = await info(cache);
    // Twelve distinct values, and still one parsed entry per artifact (core, cert-manager).
    expect(first.kinds.parsed!.entries).toBe(2);
    // New values for every environment: nothing new to cache.
    for (let i = 0; i < 12; i++) {
      writeFileSync(
        path.join(repo, `overlays/env-${i}/overlay.yaml`),
        readFileSync(path.join(repo, `overlays/env-${i}/overlay.yaml`), 'utf8').replace(/:8(\d+)/, ':9$1'),
      );
    }
    expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    expect((await info(cache)).kinds.parsed!.entries).toBe(2);
  });
});

describe('capi-render cache', () => {
  async function filledCache(): Promise<string> {
    const cache = tempDir();
    expect((await runCli(['build'], { cwd: fleet(1), env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
    return cache;
  }

  it('info and prune, as text and JSON; prune --max-size 0 empties it, and builds go on', async () => {
    const cache = await filledCache();
    const text = await runCli(['cache', 'info', '--cache-dir', cache], { cwd: tempDir() });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(
      new RegExp(`^cache folder ${cache} \\(--cache-dir\\)\\n  size     [\\d.]+ (KiB|MiB) of 512 MiB`),
    );
    expect(text.stdout).toMatch(/entries  \d+: \d+ parsed artifacts/);
    const before = await info(cache);
    expect(before.entries).toBeGreaterThan(2);

    const pruned = await runCli(['cache', 'prune', '--max-size', '0', '--json'], {
      cwd: tempDir(),
      env: { CAPI_RENDER_CACHE_DIR: cache },
    });
    expect(pruned.code, pruned.stderr).toBe(0);
    expect(JSON.parse(pruned.stdout)).toMatchObject({
      removed: { entries: before.entries, bytes: before.bytes },
      left: { entries: 0, bytes: 0 },
      failed: [],
    });
    expect((await info(cache)).entries).toBe(0);
    expect((await runCli(['build'], { cwd: fleet(1), env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(0);
  });

  it('prunes least recently used entries first, down to --max-size', async () => {
    const cache = await filledCache();
    const all = await info(cache);
    const parsedDir = path.join(cache, `parsed2-v8-${process.versions.v8}`);
    const entries = readdirSync(parsedDir)
      .map((f) => ({ f, size: statSync(path.join(parsedDir, f)).size }))
      .sort((x, y) => x.size - y.size);
    // Using the smallest parsed entry makes it the most recent: a limit just above it keeps it alone.
    const newest = entries[0]!;
    const later = new Date(Date.now() + 60_000);
    utimesSync(path.join(parsedDir, newest.f), later, later);
    const limit = Math.ceil(newest.size / 4096) * 4096;
    const r = await runCli(['cache', 'prune', '--max-size', String(limit)], {
      cwd: tempDir(),
      env: { CAPI_RENDER_CACHE_DIR: cache },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^removed ${all.entries - 1} entries`));
    expect(readdirSync(parsedDir)).toEqual([newest.f]);
  });

  it('leaves alone what is not its own: other files, links and what they point at', async () => {
    const cache = await filledCache();
    const outside = tempDir();
    writeFileSync(path.join(outside, `${'a'.repeat(64)}.bin`), 'not capi-render’s');
    writeFileSync(path.join(cache, 'notes.txt'), 'mine');
    writeFileSync(path.join(cache, 'sha256-README'), 'mine');
    mkdirSync(path.join(cache, 'sha256'), { recursive: true });
    writeFileSync(path.join(cache, 'sha256', 'README'), 'mine');
    symlinkSync(outside, path.join(cache, 'parsed2-v8-0.0.0-linked'));
    symlinkSync(path.join(outside, `${'a'.repeat(64)}.bin`), path.join(cache, 'validated', 'b'.repeat(64)));
    const r = await runCli(['cache', 'prune', '--max-size', '0'], {
      cwd: tempDir(),
      env: { CAPI_RENDER_CACHE_DIR: cache },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(outside, `${'a'.repeat(64)}.bin`), 'utf8')).toBe('not capi-render’s');
    for (const f of [
      'notes.txt',
      'sha256-README',
      'sha256/README',
      'parsed2-v8-0.0.0-linked',
      `validated/${'b'.repeat(64)}`,
    ])
      expect(lstatSync(path.join(cache, f), { throwIfNoEntry: false }), f).toBeDefined();
    expect((await info(cache)).entries).toBe(0);
  });

  it.each([
    ['the root of the file system', () => '/', /is the root of the file system/],
    ['the home folder itself', (home: string) => home, /is your home folder itself/],
    ['the repository', (_home: string, repo: string) => repo, /is the repository/],
    [
      'a folder holding the repository',
      (_home: string, repo: string) => path.dirname(repo),
      /holds the repository|holds a \.git/,
    ],
    [
      'a folder holding .git',
      (home: string) => {
        const dir = path.join(home, 'project');
        mkdirSync(path.join(dir, '.git'), { recursive: true });
        return dir;
      },
      /holds a \.git folder/,
    ],
    [
      'a file',
      (home: string) => {
        writeFileSync(path.join(home, 'file'), '');
        return path.join(home, 'file');
      },
      /is not a folder/,
    ],
  ])('refuses %s (exit 2, nothing removed)', async (_name, dir, message) => {
    const home = tempDir();
    const repo = fleet(1, 'v1.12.0', path.join(tempDir(), 'repo'));
    const chosen = dir(home, repo);
    const before = chosen === '/' ? undefined : snapshotTree(chosen);
    for (const action of ['info', 'prune']) {
      const r = await runCli(
        ['cache', action, '--cache-dir', chosen, ...(action === 'prune' ? ['--max-size', '0'] : [])],
        { cwd: repo, env: { HOME: home } },
      );
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
    }
    if (before) expect(snapshotTree(chosen)).toEqual(before);
  });

  it.each([
    [['cache'], /say what to do/],
    [['cache', 'clean'], /not "clean"/],
    [['cache', 'pruen'], /not "pruen"; did you mean "prune"\?/],
    [['cache', 'prune', '--max-size', 'lots'], /--max-size lots is not a size/],
    [['cache', 'info', '--max-size', '1M'], /--max-size is for cache prune/],
  ])('usage mistakes are exit 2: %j', async (argv, message) => {
    const r = await runCli(argv, { cwd: tempDir(), env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });

  it('a bad CAPI_RENDER_CACHE_MAX_SIZE is a usage error for every command that uses the cache', async () => {
    const r = await runCli(['build'], {
      cwd: fleet(1),
      env: { CAPI_RENDER_CACHE_DIR: tempDir(), CAPI_RENDER_CACHE_MAX_SIZE: 'big' },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('CAPI_RENDER_CACHE_MAX_SIZE=big is not a size');
  });

  it('--help names every action and flag', async () => {
    const r = await runCli(['cache', '--help'], { cwd: tempDir() });
    expect(r.code).toBe(0);
    for (const word of ['info', 'prune', '--max-size S', '--cache-dir DIR', '--json']) expect(r.stdout).toContain(word);
  });

  it.skipIf(skipWithout(dropPrivilegesMissing(), 'the cache prune EACCES test'))(
    'entries it may not remove: error[write] with the path and the reason, the others removed (exit 1)',
    async () => {
      const cache = await filledCache();
      // Another user may read the cache but not change the folder of parsed entries.
      for (const dir of [cache, ...readdirSync(cache).map((d) => path.join(cache, d))]) chmodSync(dir, 0o755);
      for (const d of readdirSync(cache))
        for (const f of readdirSync(path.join(cache, d))) chmodSync(path.join(cache, d, f), 0o644);
      chownSync(path.join(cache, 'validated'), 65534, 65534);
      const r = spawnSync(
        'setpriv',
        [
          '--reuid=65534',
          '--regid=65534',
          '--clear-groups',
          process.execPath,
          CLI,
          'cache',
          'prune',
          '--max-size',
          '0',
          '--cache-dir',
          cache,
        ],
        {
          cwd: path.dirname(cache),
          encoding: 'utf8',
          env: { PATH: process.env.PATH, HOME: '/nonexistent' },
        },
      );
      expect(r.status, r.stderr).toBe(1);
      // Named from where the command runs (here the cache's parent folder).
      expect(r.stderr).toMatch(
        new RegExp(
          `error\\[write\\]: cannot remove ${path.basename(cache)}/parsed2-v8-[^/]+/[0-9a-f]{64}\\.bin: permission denied \\(EACCES\\)`,
        ),
      );
      expect(readdirSync(path.join(cache, 'validated'))).toEqual([]);
    },
  );
});
