/**
 * The rendered output committed at a git revision against the working tree's, with the two lock
 * files: the comparison `diff` prints and `report --base` shows as its upgrade review.
 */
import path from 'node:path';
import { unknownEnvironments } from '../overlay/discover-environments.js';
import { loadConfig } from '../config/load-config.js';
import { parseLock } from '../lock/lock-file.js';
import { readLockState } from '../lock/lock-state.js';
import { emptyLock, LOCK_FILE, type LockFile } from '../lock/lock-types.js';
import { createGitRunner } from './git-command.js';
import { readFileAtRef, readTreeAtRef, readTreeFromDisk } from './git-rendered.js';
import { compareRendered, type UpgradeReport } from './upgrade-report.js';

/** What to compare. */
export interface RevisionComparisonOptions {
  repoRoot: string;
  /** A branch, tag or commit. */
  base: string;
  /** Only these environments (default: all). */
  environments: readonly string[];
  /** The environment git runs with (PATH, HOME, GIT_*). */
  processEnv: Readonly<Record<string, string | undefined>>;
}

/** The comparison and what it was made from. */
export interface RevisionComparison {
  base: string;
  /** The full commit id `base` names. */
  commit: string;
  /** The output folder, repository-relative. */
  where: string;
  before: LockFile;
  after: LockFile;
  report: UpgradeReport;
}

/**
 * Reads both sides and compares them. SpecError `git` for a revision that does not exist, `overlay`
 * for an environment neither side has.
 */
export async function compareWithRevision(options: RevisionComparisonOptions): Promise<RevisionComparison> {
  const { repoRoot, base, environments } = options;
  const config = await loadConfig(repoRoot);
  const where = config.outputDir.replace(/\/+$/, '');
  const git = createGitRunner({ cwd: repoRoot, env: options.processEnv });
  const beforeFiles = await readTreeAtRef(git, base, where);
  const beforeLockText = await readFileAtRef(git, base, LOCK_FILE);
  const commit = (await git(['rev-parse', '--verify', `${base}^{commit}`])).toString('utf8').trim();
  const afterFiles = await readTreeFromDisk(path.join(repoRoot, where), repoRoot);
  const known = new Set(
    [...beforeFiles.keys(), ...afterFiles.keys()].filter((p) => p.includes('/')).map((p) => p.split('/')[0]!),
  );
  const unknown = environments.filter((e) => !known.has(e));
  if (unknown.length > 0) {
    throw unknownEnvironments(
      unknown,
      [...known].sort(),
      ` (neither ${base} nor the working tree has ${where}/${unknown[0]}/)`,
    );
  }
  const before = beforeLockText === undefined ? emptyLock() : parseLock(beforeLockText);
  const after = (await readLockState(repoRoot)).lock;
  const report = compareRendered(
    { files: beforeFiles, lock: before },
    { files: afterFiles, lock: after },
    { where, environments },
  );
  return { base, commit, where, before, after, report };
}
