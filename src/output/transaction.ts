/**
 * Writing the output of a build as one transaction: rendered/, gitops/, their ownership records and
 * capi-render.lock end up all old or all new — after a killed process and after a power loss.
 *
 * Design notes: docs/internals.md "output/transaction.ts".
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { undoSteps, type Failpoint } from './apply-staged.js';
import { acquireBusyLock, isLockAttempt } from './busy-lock.js';
import { planCommit, type TreeSummary } from './commit-plan.js';
import {
  BUSY_FILE,
  discardStage,
  installCommitted,
  removeCommitMarker,
  tidyCommitted,
  writeCommitMarker,
} from './commit-marker.js';
import { nodeTransactionFs, syncAll, type TransactionFs } from './durable-fs.js';
import { cleanLegacyStaging } from './legacy-staging.js';
import { BoundedMap } from '../bounded-map.js';
import { openStage, stageFiles, type Stage, type StageContext, type TreeTarget } from './output-stage.js';
import { OWNERSHIP_FILE } from './ownership.js';
import { WORK_DIR, scanOutputFolder, type OutputFolderScan } from './scan-output-folder.js';
import { recoverInterruptedWrite } from './transaction-recovery.js';
import { guarded, withOutcome, writeError } from './write-errors.js';
import type { OutputFiles } from '../plan/output-plan.js';

// The transaction's public face stays this file: its importers need not know how it is split.
export type { TreeSummary } from './commit-plan.js';
export type { TreeTarget } from './output-stage.js';
export { finishInterruptedWrite, hasInterruptedWrite, recoverInterruptedWrite } from './transaction-recovery.js';

/** Where a write goes and how it is carried out. */
export interface TransactionOptions {
  repoRoot: string;
  /** The lock file to replace on commit (absolute). */
  lockFile: string;
  failpoint?: Failpoint;
  /** The calls that change the disk. Default: the real file system (tests record or cut them). */
  fs?: TransactionFs;
}

/**
 * Starts a write: takes the lock, repairs what an interrupted write left, then looks at each output
 * folder as it is now. Throws (with nothing changed) when a folder without an ownership record holds
 * files that are not earlier capi-render output.
 */
export async function beginTransaction(
  targets: readonly TreeTarget[],
  options: TransactionOptions,
): Promise<OutputTransaction> {
  const tfs = options.fs ?? nodeTransactionFs;
  const work = path.join(options.repoRoot, WORK_DIR);
  await guarded('create', work, options.repoRoot, () => tfs.mkdir(work, { recursive: true, mode: 0o755 }));
  // The lock is not fsynced: after a power loss every pid in it is gone, so it is stale whatever the disk kept.
  const release = await acquireBusyLock(path.join(work, BUSY_FILE), 'this repository');
  const ctx: StageContext = {
    tfs,
    repoRoot: options.repoRoot,
    firstCopy: new BoundedMap(FIRST_COPY_ENTRIES),
    ownCopies: [],
    ...(options.failpoint ? { failpoint: options.failpoint } : {}),
  };
  const stages: Stage[] = [];
  try {
    await recoverInterruptedWrite(options.repoRoot, options.failpoint, tfs);
    for (const [i, target] of targets.entries()) {
      await guarded('clean up after an earlier version in', path.dirname(target.root), options.repoRoot, () =>
        cleanLegacyStaging(target.root, tfs),
      );
      // Without a record every file must be looked at to adopt it; with one, untouched folders can be skipped.
      const recorded = await fs.lstat(path.join(target.root, OWNERSHIP_FILE)).then(
        (s) => s.isFile(),
        () => false,
      );
      const scan = await guarded('read', target.root, options.repoRoot, () =>
        scanOutputFolder(target.root, recorded ? target.descend : undefined),
      );
      stages.push(await openStage(ctx, target, scan, i, work));
    }
    return new OutputTransaction(stages, work, release, ctx, options);
  } catch (e) {
    for (const stage of stages) await discardStage(tfs, stage.dir, options.repoRoot).catch(() => undefined);
    await release();
    await tfs.rmdir(work).catch(() => undefined);
    throw e;
  }
}

const NOTHING_CHANGED = 'nothing in the output or the lock was changed';
/** Distinct contents whose first staged copy is remembered for hard links (see StageContext). */
const FIRST_COPY_ENTRIES = 1024;

/** A write in progress: stage files, then commit (or abort). */
export class OutputTransaction {
  private done = false;
  /** Installing failed and so did putting things back: the next build finishes the write. */
  private halfInstalled = false;

  constructor(
    private readonly stages: Stage[],
    private readonly work: string,
    private readonly release: () => Promise<void>,
    private readonly ctx: StageContext,
    private readonly options: TransactionOptions,
  ) {}

  /** Each target folder as it was when the write began. */
  get scans(): readonly OutputFolderScan[] {
    return this.stages.map((s) => s.scan);
  }

  /** Stages files for target `index` (paths relative to its folder). May be called repeatedly. */
  async stage(index: number, files: OutputFiles): Promise<void> {
    try {
      await stageFiles(this.ctx, this.stages[index]!, files);
    } catch (e) {
      throw withOutcome(e, NOTHING_CHANGED);
    }
  }

  /** Installs everything staged, removes owned files no longer produced, writes records and lock. */
  async commit(lockText: string | undefined): Promise<TreeSummary[]> {
    const { repoRoot, lockFile } = this.options;
    const { tfs } = this.ctx;
    const failpoint = this.options.failpoint ?? (() => undefined);
    try {
      const plan = await planCommit(
        { tfs, repoRoot, work: this.work, lockFile, ownCopies: this.ctx.ownCopies },
        this.stages,
        lockText,
      );
      const { commit } = plan;
      if (!commit) {
        await this.abort();
        return plan.summaries;
      }
      for (const dir of plan.writable)
        await guarded('write in', dir, repoRoot, () => fs.access(dir, fs.constants.W_OK));
      await guarded('stage', this.work, repoRoot, () => syncAll(tfs, plan.sync.files, plan.sync.folders));
      failpoint('commit');
      await writeCommitMarker(tfs, this.work, commit, repoRoot);
      failpoint('committed');
      const undo: Parameters<typeof undoSteps>[1] = [];
      let applied: Awaited<ReturnType<typeof installCommitted>>;
      try {
        applied = await installCommitted(tfs, commit, undo, failpoint);
      } catch (e) {
        throw await this.putBack(e, undo);
      }
      await tidyCommitted(tfs, commit, this.work, applied.emptied);
      this.done = true;
      await this.finish();
      return plan.summaries;
    } catch (e) {
      if (this.halfInstalled) throw e;
      await this.abort();
      throw withOutcome(e, NOTHING_CHANGED);
    }
  }

  /** Removes everything staged and the folders this write created; releases the lock. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    const { tfs, repoRoot } = this.ctx;
    for (const stage of this.stages) {
      await discardStage(tfs, stage.dir, repoRoot).catch(() => undefined);
      for (const dir of [...stage.created].reverse()) await tfs.rmdir(dir).catch(() => undefined);
    }
    await this.finish();
  }

  /** Leaves no trace: every stage (applied or not), the staged lock, then the lock and the work folder. */
  private async finish(): Promise<void> {
    const { tfs, repoRoot } = this.ctx;
    for (const stage of this.stages) await discardStage(tfs, stage.dir, repoRoot).catch(() => undefined);
    for (const name of await fs.readdir(this.work).catch(() => [])) {
      // `busy.<pid>.<random>`: another writer taking the lock right now; its file is its own.
      if (name !== BUSY_FILE && !isLockAttempt(name, BUSY_FILE))
        await tfs.rm(path.join(this.work, name), { recursive: true, force: true }).catch(() => undefined);
    }
    await this.release();
    await tfs.rmdir(this.work).catch(() => undefined);
  }

  /**
   * An install step failed: undo the steps done so far, make that durable, and drop the marker; the
   * error says what happened. (Installing may have failed at the fsync of the installed folders, so
   * the old state is fsynced again before the marker goes.)
   */
  private async putBack(cause: unknown, undo: Parameters<typeof undoSteps>[1]): Promise<unknown> {
    const { repoRoot } = this.options;
    const { tfs } = this.ctx;
    const failure = writeError(cause, 'install the new output in', path.join(repoRoot, WORK_DIR), repoRoot);
    try {
      await syncAll(tfs, [], await undoSteps(tfs, undo));
      await removeCommitMarker(tfs, this.work);
      return failure;
    } catch {
      // Both directions failed (the disk went away?): keep the marker, the next build finishes the write.
      this.done = true;
      this.halfInstalled = true;
      await this.release();
      return withOutcome(
        failure,
        'the write is half-installed; run `capi-render build` again once the problem is fixed: it finishes the write before anything else',
      );
    }
  }
}
