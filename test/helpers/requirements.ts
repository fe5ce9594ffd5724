/**
 * Tests that need something a machine may lack (a tool, root, a kernel feature). On a developer
 * machine they skip and say why; under CI=1 (.ci/run exports it) a missing requirement is a failing
 * test that names it and how to get it, so CI can never pass by skipping what it must run.
 *
 * Use: `describe.skipIf(skipWithout(toolMissing('kubectl', 'apt-get install kubectl'), 'the kustomize builds'))(…)`,
 * or `requireTool(name, install, tests)` for that common case.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import { it } from 'vitest';

/**
 * True when the suite runs in CI. Read as vitest reads it (std-env: `CI` set to any non-empty
 * value), so this and vitest's own CI behaviour (no new snapshots) switch together.
 */
export const IN_CI = Boolean(process.env.CI);

/** The absolute path of `name` on PATH (or `name` itself when it is an absolute path), if executable. */
export function findTool(name: string): string | undefined {
  const candidates = path.isAbsolute(name)
    ? [name]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, name));
  for (const file of candidates) {
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here; try the next folder
    }
  }
  return undefined;
}

/** Why `name` cannot be run here (not on PATH), with how to install it; undefined when it can. */
export function toolMissing(name: string, install: string): string | undefined {
  return findTool(name) ? undefined : `${name} is not installed (${install})`;
}

/** The first reason of `reasons` that is not undefined: several requirements read as one. */
export function firstMissing(...reasons: (string | undefined)[]): string | undefined {
  return reasons.find((r) => r !== undefined);
}

const warned = new Set<string>();

/**
 * Whether the tests named `tests` must be skipped because `reason` (undefined: nothing is missing).
 * Locally a reason prints one warning and returns true. Under CI=1 it registers, where it is called
 * (file or describe level), a test that fails naming the reason, and returns true as well, so the
 * dependent tests do not fail a second time with unrelated errors (a spawn ENOENT, a timeout).
 */
export function skipWithout(reason: string | undefined, tests: string): boolean {
  if (reason === undefined) return false;
  if (IN_CI) {
    it(`CI runs ${tests}`, () => {
      throw new Error(`CI=1 must run ${tests}, but ${reason}`);
    });
  } else if (!warned.has(`${tests}\0${reason}`)) {
    warned.add(`${tests}\0${reason}`);
    console.warn(`\n!!! SKIPPING ${tests}: ${reason} (CI=1 fails instead)\n`);
  }
  return true;
}

/** skipWithout for one tool on PATH: true (skip) when `name` is missing; fails under CI=1. */
export function requireTool(name: string, install: string, tests: string): boolean {
  return skipWithout(toolMissing(name, install), tests);
}

/** True when this process runs as root. */
export const IS_ROOT = process.getuid?.() === 0;

/** unshare's arguments for a private mount namespace: as root directly, otherwise in a user namespace. */
export const UNSHARE_MOUNT = IS_ROOT ? ['-m', '--propagation', 'private'] : ['-r', '-m', '--propagation', 'private'];

let mountReason: string | undefined | null = null;

/** Why this process cannot mount a tmpfs in a private mount namespace (unshare), or undefined. Probed once. */
export function mountMissing(): string | undefined {
  if (mountReason === null) {
    const r = spawnSync('unshare', [...UNSHARE_MOUNT, 'sh', '-c', 'mount -t tmpfs tmpfs /mnt'], { encoding: 'utf8' });
    mountReason =
      r.status === 0
        ? undefined
        : `unshare cannot mount a tmpfs in a private mount namespace (${(r.error?.message ?? r.stderr.trim()) || `exit ${r.status}`}; needs util-linux and root or user namespaces)`;
  }
  return mountReason;
}

let dropReason: string | undefined | null = null;

/** Why this process cannot run a command as nobody (65534) with setpriv, or undefined. Probed once. */
export function dropPrivilegesMissing(): string | undefined {
  if (dropReason === null) {
    if (!IS_ROOT) dropReason = 'not root: running a command as another user (setpriv) needs root (CI runs as root)';
    else {
      const r = spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', 'true'], {
        encoding: 'utf8',
      });
      dropReason =
        r.status === 0
          ? undefined
          : `setpriv cannot run a command as nobody (${(r.error?.message ?? r.stderr.trim()) || `exit ${r.status}`}; apt-get install util-linux)`;
    }
  }
  return dropReason;
}

/** Why this process is not root, or undefined. */
export function rootMissing(needs: string): string | undefined {
  return IS_ROOT ? undefined : `not root (${needs})`;
}
