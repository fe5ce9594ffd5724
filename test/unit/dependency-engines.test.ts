/**
 * What a consumer installs must run on every Node.js release package.json's engines admit: every
 * package the lock installs for production declares engines that contain ours (semver subset), so
 * `npm install -g capi-render` on any admitted Node prints no EBADENGINE. The lock only stands for
 * what consumers resolve when package.json has no `overrides` (npm applies those to this checkout
 * alone), so they are refused too; a transitive dependency is held back by pinning it directly.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';

interface LockEntry {
  version?: string;
  dev?: boolean;
  devOptional?: boolean;
  engines?: { node?: string } | string[];
}

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string };
  overrides?: unknown;
};
const lock = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, LockEntry>;
};

/** One line per production package whose engines.node leaves out a Node release `ours` admits. */
function engineConflicts(ours: string, packages: Record<string, LockEntry>): string[] {
  const conflicts: string[] = [];
  for (const [where, entry] of Object.entries(packages)) {
    // '' is the root; dev and devOptional entries are never installed for a consumer.
    if (where === '' || entry.dev === true || entry.devOptional === true) continue;
    // The old array form of engines is ignored by npm.
    const theirs = Array.isArray(entry.engines) ? undefined : entry.engines?.node;
    if (theirs === undefined || semver.subset(ours, theirs)) continue;
    conflicts.push(`${where}@${entry.version ?? '?'} needs node ${theirs}, package.json admits ${ours}`);
  }
  return conflicts;
}

describe('engines of the production dependencies', () => {
  it('every production package in package-lock.json runs on every Node release package.json admits', () => {
    const prod = Object.keys(lock.packages).filter((k) => k !== '' && lock.packages[k]?.dev !== true);
    expect(prod.length).toBeGreaterThan(20);
    expect(engineConflicts(pkg.engines.node, lock.packages)).toEqual([]);
  });

  it('names a dependency that needs a newer Node, and ignores dev-only ones', () => {
    const planted: Record<string, LockEntry> = {
      '': { version: '1.0.0' },
      'node_modules/content-type': { version: '3.1.1', engines: { node: '>=22' } },
      'node_modules/brace-expansion': { version: '5.1.2', engines: { node: '20 || >=22' } },
      'node_modules/esbuild': { version: '0.28.2', dev: true, engines: { node: '>=24' } },
      'node_modules/ok': { version: '1.0.0', engines: { node: '>=18' } },
    };
    expect(engineConflicts('>=20.18.1', planted)).toEqual([
      'node_modules/content-type@3.1.1 needs node >=22, package.json admits >=20.18.1',
      'node_modules/brace-expansion@5.1.2 needs node 20 || >=22, package.json admits >=20.18.1',
    ]);
    expect(engineConflicts('^20.18.1 || >=22.9.0', planted)).toEqual([
      'node_modules/content-type@3.1.1 needs node >=22, package.json admits ^20.18.1 || >=22.9.0',
    ]);
  });

  it('package.json has no overrides: they do not reach consumers, so the lock would not be what they install', () => {
    expect(pkg.overrides).toBeUndefined();
  });
});
