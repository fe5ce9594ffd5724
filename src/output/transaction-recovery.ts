/**
 * Step 1 of the output transaction (transaction.ts), and what read-only commands do before they read
 * capi-render.lock: finish a write whose commit marker is on disk (a process killed, or the power
 * lost, while installing) and drop the staging of one that never committed.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SpecError } from '../errors.js';
import type { Failpoint } from './apply-staged.js';
import { acquireBusyLock, isLockAttempt } from './busy-lock.js';
import {
  BUSY_FILE,
  COMMIT_FILE,
  discardStage,
  installCommitted,
  readCommitMarker,
  tidyCommitted,
} from './commit-marker.js';
import { nodeTransactionFs, type TransactionFs } from './durable-fs.js';
import { WORK_DIR } from './scan-output-folder.js';
import { guarded } from './write-errors.js';

/**
 * Before a command reads capi-render.lock: finish a write that a killed build had committed, so the
 * command starts from the complete new state, and remove what an uncommitted one left. Only takes
 * the lock when there is something to do; leftovers of a writer that is still running are its own.
 */
export async function finishInterruptedWrite(
  repoRoot: string,
  tfs: TransactionFs = nodeTransactionFs,
): Promise<boolean> {
  const work = path.join(repoRoot, WORK_DIR);
  if (!(await fs.stat(work).catch(() => undefined))) return false;
  const committed = await hasInterruptedWrite(repoRoot);
  let release: () => Promise<void>;
  try {
    release = await acquireBusyLock(path.join(work, BUSY_FILE), 'this repository');
  } catch (e) {
    if (!committed && e instanceof SpecError && e.code === 'busy') return false;
    throw e;
  }
  try {
    return (await recoverInterruptedWrite(repoRoot, undefined, tfs)) === 'finished';
  } finally {
    await release();
    await tfs.rmdir(work).catch(() => undefined);
  }
}

/**
 * Finishes a write whose commit marker exists (a process killed while installing), or removes the
 * staging of one that never committed. Called by every command that writes, under the lock.
 */
export async function recoverInterruptedWrite(
  repoRoot: string,
  failpoint: Failpoint = () => undefined,
  tfs: TransactionFs = nodeTransactionFs,
): Promise<'none' | 'finished' | 'discarded'> {
  const work = path.join(repoRoot, WORK_DIR);
  const commit = await readCommitMarker(work, repoRoot);
  if (commit !== undefined) {
    const applied = await guarded('finish the interrupted write in', work, repoRoot, () =>
      installCommitted(tfs, commit, undefined, failpoint),
    );
    await tidyCommitted(tfs, commit, work, applied.emptied);
  }
  // Whatever else is there (stages that were never committed, a half-written marker) is dropped.
  const leftovers = (await fs.readdir(work).catch(() => [])).filter(
    (n) => n !== BUSY_FILE && !isLockAttempt(n, BUSY_FILE),
  );
  for (const name of leftovers) await discardStage(tfs, path.join(work, name), repoRoot);
  return commit !== undefined ? 'finished' : leftovers.length > 0 ? 'discarded' : 'none';
}

/** Whether a committed write is waiting to be finished (read-only commands refuse to read a half-installed tree). */
export async function hasInterruptedWrite(repoRoot: string): Promise<boolean> {
  return fs.stat(path.join(repoRoot, WORK_DIR, COMMIT_FILE)).then(
    () => true,
    () => false,
  );
}
