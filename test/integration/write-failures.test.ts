/**
 * Write failures, for real: a read-only output folder (a non-root user, and a read-only mount), a
 * full disk (a small tmpfs), and an output folder on its own file system (where a rename from
 * elsewhere would fail with EXDEV). Each failing build says error[write] with the path and the
 * operating system's reason, changes nothing, leaves no staging folder, and the next build after
 * the cause is fixed succeeds with no manual cleanup.
 *
 * Mounts happen in a private mount namespace (`unshare`), so they vanish with the test process.
 * CI runs as root with both tools (.ci/run); elsewhere a missing capability skips, loudly.
 */
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';
import { dropPrivilegesMissing, IS_ROOT, mountMissing, skipWithout, UNSHARE_MOUNT } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const RUNNER = path.join(REPO_ROOT, 'test/helpers/mounted-build.mjs');
const isRoot = IS_ROOT;

/** A built example whose next build rewrites prod (core v1.11.0 → v1.12.0, ~30 files). */
function changedExample(): string {
  const repo = copyExample({ committed: true });
  const overlay = path.join(repo, 'overlays/prod/overlay.yaml');
  writeFileSync(overlay, readFileSync(overlay, 'utf8').replace('value: v1.11.0', 'value: v1.12.0'));
  return repo;
}

function mountedBuild(
  repo: string,
  kind: 'full' | 'read-only' | 'own-fs' | 'nested-fs',
  extraEnv: Record<string, string> = {},
) {
  if (kind !== 'read-only') {
    renameSync(path.join(repo, 'rendered'), path.join(repo, 'rendered.saved'));
    mkdirSync(path.join(repo, 'rendered'));
  }
  const r = spawnSync(
    'unshare',
    [...UNSHARE_MOUNT, process.execPath, RUNNER, repo, kind, CLI, ...(kind === 'full' ? ['--env', 'dev2'] : [])],
    {
      encoding: 'utf8',
      env: { PATH: process.env.PATH, CAPI_RENDER_CACHE_DIR: tempDir(), ...extraEnv },
    },
  );
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as {
    first: { code: number; stderr: string };
    unchanged: boolean;
    leftovers: string[];
    second: { code: number; stderr: string };
    check: { code: number; stderr: string };
  };
}

describe('write failures, for real', () => {
  // As root the EACCES case runs the build as nobody (root may write anywhere); as another user it
  // makes the folder read-only itself.
  const skipEacces = skipWithout(isRoot ? dropPrivilegesMissing() : undefined, 'the EACCES write-failure test');
  const skipMounts = skipWithout(mountMissing(), 'the mount-based write-failure tests (EROFS, ENOSPC, EXDEV)');

  it.skipIf(skipEacces)('a read-only output folder (EACCES, as a user who may not write there)', () => {
    const repo = changedExample();
    const cache = tempDir();
    const run = (...args: string[]) => {
      const command = isRoot ? 'setpriv' : process.execPath;
      const argv = isRoot
        ? ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, CLI, ...args]
        : [CLI, ...args];
      return spawnSync(command, argv, {
        cwd: repo,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, CAPI_RENDER_CACHE_DIR: cache, HOME: cache },
      });
    };
    if (isRoot) for (const dir of [repo, cache]) chownTree(dir, 65534);
    const readOnly = walkFolders(path.join(repo, 'rendered/prod'));
    for (const dir of readOnly) chmodSync(dir, 0o555);
    const before = snapshotTree(repo);
    const first = run('build');
    expect(first.status).toBe(1);
    expect(first.stderr).toMatch(
      /^rendered\/prod\/[a-z-]+: error\[write\]: cannot write in rendered\/prod\/[a-z-]+: permission denied \(EACCES\); nothing in the output or the lock was changed$/m,
    );
    expect(snapshotTree(repo)).toEqual(before);
    expect(existsSync(path.join(repo, '.capi-render-write'))).toBe(false);
    for (const dir of readOnly) chmodSync(dir, 0o755);
    const second = run('build');
    expect(second.status, second.stderr).toBe(0);
    expect(run('check').status).toBe(0);
  });

  it.skipIf(skipMounts)('a read-only mount (EROFS)', () => {
    const repo = changedExample();
    const r = mountedBuild(repo, 'read-only');
    expect(r.first.code).toBe(1);
    expect(r.first.stderr).toMatch(
      /error\[write\]: cannot write in rendered\/prod\/[a-z-]+: read-only file system \(EROFS\); nothing in the output or the lock was changed/,
    );
    expect(r.unchanged).toBe(true);
    expect(r.leftovers).toEqual([]);
    expect(r.second.code, r.second.stderr).toBe(0);
    expect(r.check.code, r.check.stderr).toBe(0);
  });

  it.skipIf(skipMounts)('a full disk (ENOSPC on a small tmpfs)', () => {
    const repo = copyExample({ committed: true });
    // A new environment: ~4 MB of new files on a file system with less than 1 MB free.
    mkdirSync(path.join(repo, 'overlays/dev2'));
    writeFileSync(
      path.join(repo, 'overlays/dev2/overlay.yaml'),
      readFileSync(path.join(repo, 'overlays/dev/overlay.yaml'), 'utf8').replace('mgmt-dev', 'mgmt-dev2'),
    );
    const used = Number(
      spawnSync('du', ['-sk', path.join(repo, 'rendered')], { encoding: 'utf8' }).stdout.split('\t')[0],
    );
    const r = mountedBuild(repo, 'full', { TMPFS_SIZE: `${used + 800}k` });
    expect(r.first.code).toBe(1);
    expect(r.first.stderr).toMatch(
      /^rendered\/dev2\/\S+: error\[write\]: cannot stage rendered\/dev2\/\S+: no space left on device \(ENOSPC\); nothing in the output or the lock was changed$/m,
    );
    expect(r.unchanged).toBe(true);
    expect(r.leftovers).toEqual([]);
    expect(r.second.code, r.second.stderr).toBe(0);
    expect(r.check.code, r.check.stderr).toBe(0);
  });

  it.skipIf(skipMounts)(
    'an output folder on its own file system (renames from elsewhere would fail with EXDEV) builds normally',
    () => {
      const repo = changedExample();
      const r = mountedBuild(repo, 'own-fs');
      expect(r.first.code, r.first.stderr).toBe(0);
      expect(r.first.stderr).toMatch(/rendered: \d+ written, \d+ unchanged, 0 removed/);
      expect(r.leftovers).toEqual([]);
      expect(r.check.code, r.check.stderr).toBe(0);
    },
  );

  it.skipIf(skipMounts)(
    'an environment folder on another file system than the staging (EXDEV on rename): files are copied in, then renamed',
    () => {
      const repo = changedExample();
      const r = mountedBuild(repo, 'nested-fs');
      expect(r.first.code, r.first.stderr).toBe(0);
      expect(r.first.stderr).toMatch(/rendered: \d+ written/);
      expect(r.leftovers).toEqual([]);
      expect(r.check.code, r.check.stderr).toBe(0);
    },
  );
});

function walkFolders(dir: string): string[] {
  return [
    dir,
    ...readdirSync(dir).flatMap((n) =>
      statSync(path.join(dir, n)).isDirectory() ? walkFolders(path.join(dir, n)) : [],
    ),
  ];
}

function chownTree(dir: string, uid: number): void {
  chownSync(dir, uid, uid);
  for (const name of readdirSync(dir)) {
    const child = path.join(dir, name);
    if (statSync(child).isDirectory()) chownTree(child, uid);
    else chownSync(child, uid, uid);
  }
}
