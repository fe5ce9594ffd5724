/**
 * The commit marker of the output transaction (transaction.ts): `.capi-render-write/commit.json`
 * names the stages and single files of a write; once it is on disk the write is decided and is
 * rolled forward, by this process or by the next command that finds it (transaction-recovery.ts).
 *
 * Design notes: docs/internals.md "output/commit-marker.ts".
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import {
  applyCommit,
  removeEmptyFolders,
  readPlan,
  type AppliedCommit,
  type CommitRecord,
  type Failpoint,
} from './apply-staged.js';
import type { TransactionFs } from './durable-fs.js';
import { syncAll } from './durable-fs.js';
import { SpecError, WriteError, error } from '../errors.js';
import { WORK_DIR } from './scan-output-folder.js';
import { readRecordFile } from '../repository-files.js';
import { displayPath, guarded } from './write-errors.js';

/** The marker's name in the work folder. */
export const COMMIT_FILE = 'commit.json';
/** The write lock's name in the work folder (busy-lock.ts). */
export const BUSY_FILE = 'busy';

/** Step 2: the marker, durable before this returns — the point of no return. */
export async function writeCommitMarker(
  tfs: TransactionFs,
  work: string,
  commit: CommitRecord,
  repoRoot: string,
): Promise<void> {
  const marker = path.join(work, COMMIT_FILE);
  const temp = `${marker}.tmp`;
  await guarded('write', marker, repoRoot, async () => {
    await tfs.writeFile(temp, JSON.stringify(commit));
    // A marker renamed into place before its bytes are on disk could be found empty after a power loss.
    await tfs.syncFile(temp);
    await tfs.rename(temp, marker);
    await tfs.syncFolder(work);
  });
}

/**
 * The marker's record, or undefined when there is none. A damaged one (a hand edit; a file system
 * that lost its bytes despite the fsync) is a WriteError naming it: the write it records was decided
 * and may be half installed, so guessing is unsafe — the fix is a rebuild of every environment,
 * which rewrites whatever that write left, after the user has looked at what is in place.
 */
export async function readCommitMarker(work: string, repoRoot: string): Promise<CommitRecord | undefined> {
  const marker = path.join(work, COMMIT_FILE);
  // A FIFO, a link or a huge file there must not hang a command or fill its memory: such a marker
  // is damaged (refused by the repository reader before a byte is read); an unreadable one is none.
  let text: string | undefined;
  let problem: string | undefined;
  try {
    text = (await readRecordFile(repoRoot, marker, 'transaction'))?.toString('utf8');
  } catch (e) {
    if (!(e instanceof SpecError)) return undefined;
    problem = e.diagnostics[0]!.message;
  }
  if (text === undefined && problem === undefined) return undefined;
  let record: unknown;
  if (text !== undefined) {
    try {
      record = JSON.parse(text);
    } catch (e) {
      problem = (e as Error).message;
    }
  }
  problem ??= isCommitRecord(record) ? undefined : 'not the record capi-render writes';
  if (problem === undefined) return record as CommitRecord;
  throw new WriteError(
    error(
      'write',
      `the record of an interrupted write is damaged (${problem}), so capi-render cannot finish that write: the output and capi-render.lock may be partly new`,
      {
        file: displayPath(marker, repoRoot),
        hint: `look at what is in place (git status), then remove the folder ${displayPath(work, repoRoot)} and run capi-render build --force, which renders every environment and rewrites any file left half-way`,
      },
    ),
  );
}

function isCommitRecord(v: unknown): v is CommitRecord {
  const r = v as Partial<CommitRecord> | null;
  const strings = (o: unknown, keys: readonly string[]) =>
    typeof o === 'object' && o !== null && keys.every((k) => typeof (o as Record<string, unknown>)[k] === 'string');
  if (typeof r !== 'object' || r === null || r.version !== 1) return false;
  return (
    Array.isArray(r.stages) &&
    r.stages.every((s) => typeof s === 'string' && path.isAbsolute(s)) &&
    Array.isArray(r.files) &&
    r.files.every((f) => strings(f, ['target', 'staged', 'backup']))
  );
}

/**
 * Step 3 for a committed write: installs what is not installed yet, then fsyncs every output folder
 * the renames changed. `undo` records the renames for putting them back (the writing process only).
 */
export async function installCommitted(
  tfs: TransactionFs,
  commit: CommitRecord,
  undo: Parameters<typeof applyCommit>[2],
  failpoint: Failpoint,
): Promise<AppliedCommit> {
  const applied = await applyCommit(tfs, commit, undo, failpoint);
  await syncAll(tfs, [], applied.touched);
  return applied;
}

/** Step 4: removes stages, backups, folders emptied by removals, then the marker (durably). */
export async function tidyCommitted(
  tfs: TransactionFs,
  commit: CommitRecord,
  work: string,
  emptied: readonly string[],
): Promise<void> {
  const roots: string[] = [];
  for (const stage of commit.stages) {
    const plan = await readPlan(stage).catch(() => undefined);
    if (plan) roots.push(plan.root);
    // Renamed first (atomic), so a kill while deleting never leaves a half-deleted stage that a
    // recovery would try to install again.
    const done = `${stage}.done`;
    await tfs.rename(stage, done).catch(() => undefined);
    await tfs.rm(done, { recursive: true, force: true });
    await removeOutOfRepoWorkDir(tfs, stage);
  }
  for (const f of commit.files) await tfs.rm(f.backup, { force: true });
  await removeEmptyFolders(tfs, emptied, roots);
  await removeCommitMarker(tfs, work);
}

/** Removes the marker for good: after the folder's fsync, no power loss brings it back. */
export async function removeCommitMarker(tfs: TransactionFs, work: string): Promise<void> {
  await tfs.rm(path.join(work, COMMIT_FILE), { force: true });
  await tfs.syncFolder(work);
}

/** Removes an uncommitted (or finished) stage folder. */
export async function discardStage(tfs: TransactionFs, dir: string, repoRoot: string): Promise<void> {
  await guarded('remove', dir, repoRoot, () => tfs.rm(dir, { recursive: true, force: true }));
  await removeOutOfRepoWorkDir(tfs, dir);
}

/** A stage inside an output folder on another file system lives in `<folder>/.capi-render-write/`: drop that too once empty. */
async function removeOutOfRepoWorkDir(tfs: TransactionFs, stageDir: string): Promise<void> {
  const parent = path.dirname(stageDir);
  if (path.basename(parent) === WORK_DIR && !(await fs.stat(path.join(parent, BUSY_FILE)).catch(() => undefined)))
    await tfs.rmdir(parent).catch(() => undefined);
}
