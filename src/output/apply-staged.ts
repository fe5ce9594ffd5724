/**
 * Moving staged files into place, and putting things back. Every step is idempotent — it looks at
 * what is on disk, not at what it remembers — so the same code finishes a write that a killed
 * process had committed (roll forward) and runs the write the first time.
 *
 * A stage folder holds `new/<rel>` (the files to install), `old/<rel>` (what they replace, moved
 * aside as they are installed) and `plan.json` (the staged and the removed paths). Single files
 * (the ownership records, capi-render.lock) move the same way with a `staged` and a `backup` path.
 *
 * Every call that changes the disk goes through a TransactionFs (durable-fs.ts); each step notes
 * the output folder whose entries it changed, which the caller fsyncs before the commit marker goes.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRecordFile } from '../repository-files.js';
import type { TransactionFs } from './durable-fs.js';

/** What a stage installs under `root`. */
export interface StagePlan {
  root: string;
  /** Relative paths staged under `new/`, installed in this order. */
  files: string[];
  /** Relative paths of owned files to remove. */
  remove: string[];
  /**
   * Top-level folders that did not exist when the write began, staged whole under `new/`: each is
   * moved into place with one rename (a new environment's hundred files), before `files`.
   */
  folders?: string[];
}

/** One file replaced as a whole: the ownership record or the lock. */
export interface SingleFileMove {
  target: string;
  staged: string;
  backup: string;
}

/** What the commit marker says: the stages and single files of one committed write. */
export interface CommitRecord {
  version: 1;
  stages: string[];
  files: SingleFileMove[];
}

/** A done step, for putting things back when the same process fails half-way (`folder`: a whole new folder). */
type Undo = { target: string; backup?: string; folder?: boolean };

/** Called before each step; tests use it to kill the process at a chosen point. */
export type Failpoint = (name: string) => void;

/** A stage's plan, beside its `new/` folder. */
export const PLAN_FILE = 'plan.json';

/** Reads the plan of the stage folder `stage` (regular file, no link, bounded; missing: ENOENT, as before). */
export async function readPlan(stage: string): Promise<StagePlan> {
  const file = path.join(stage, PLAN_FILE);
  const bytes = await readRecordFile(stage, file, 'transaction');
  // Missing: the error fs.readFile gave, which the callers treat as "no plan".
  if (bytes === undefined)
    throw Object.assign(new Error(`ENOENT: no such file or directory, open '${file}'`), {
      code: 'ENOENT',
      errno: -2,
      syscall: 'open',
      path: file,
    });
  return JSON.parse(bytes.toString('utf8')) as StagePlan;
}

/** What installing changed: the folders that lost a file (for tidying) and every output folder whose entries changed (to fsync). */
export interface AppliedCommit {
  emptied: string[];
  touched: Set<string>;
}

/**
 * Installs everything a commit record names. With `undo`, the steps this call performs are
 * recorded so {@link undoSteps} can reverse them.
 */
export async function applyCommit(
  tfs: TransactionFs,
  commit: CommitRecord,
  undo: Undo[] | undefined,
  failpoint: Failpoint,
): Promise<AppliedCommit> {
  const done: AppliedCommit = { emptied: [], touched: new Set() };
  const mover = { tfs, touched: done.touched };
  for (const stage of commit.stages) {
    // Tidying removes a stage only after everything was installed: a missing one is done.
    if (!(await present(stage))) continue;
    const plan = await readPlan(stage);
    for (const rel of plan.folders ?? []) {
      failpoint('apply');
      const staged = path.join(stage, 'new', rel);
      // Moved by an earlier run when it is no longer staged.
      if (!(await present(staged))) continue;
      const target = path.join(plan.root, rel);
      await makeFolder(mover, plan.root);
      await move(tfs, staged, target);
      done.touched.add(plan.root);
      undo?.push({ target, folder: true });
    }
    for (const rel of plan.files) {
      failpoint('apply');
      await install(
        mover,
        path.join(plan.root, ...rel.split('/')),
        path.join(stage, 'new', rel),
        path.join(stage, 'old', rel),
        undo,
      );
    }
    for (const rel of plan.remove) {
      failpoint('remove');
      const target = path.join(plan.root, ...rel.split('/'));
      if (await moveAside(mover, target, path.join(stage, 'old', rel), undo)) done.emptied.push(path.dirname(target));
    }
  }
  for (const file of commit.files) {
    failpoint(path.basename(file.target) === 'capi-render.lock' ? 'lock' : 'record');
    await install(mover, file.target, file.staged, file.backup, undo);
  }
  return done;
}

/** Reverses recorded steps, newest first; returns the folders whose entries changed. */
export async function undoSteps(tfs: TransactionFs, undo: Undo[]): Promise<Set<string>> {
  const mover = { tfs, touched: new Set<string>() };
  for (const step of [...undo].reverse()) {
    if (step.backup !== undefined) await move(tfs, step.backup, step.target);
    else await tfs.rm(step.target, { force: true, recursive: step.folder === true });
    mover.touched.add(path.dirname(step.target));
  }
  return mover.touched;
}

/** The calls of one install, and the output folders they changed (a rename is made durable by an fsync of the output side's folder, durable-fs.ts). */
interface Mover {
  tfs: TransactionFs;
  touched: Set<string>;
}

/** Puts `staged` at `target`, moving what was there to `backup` first (unless already moved). */
async function install(
  mover: Mover,
  target: string,
  staged: string,
  backup: string,
  undo: Undo[] | undefined,
): Promise<void> {
  if (!(await present(staged))) return; // installed by an earlier run
  const hadBackup = await present(backup);
  const replaced = !hadBackup && (await moveAside(mover, target, backup, undefined));
  await makeFolder(mover, path.dirname(target));
  await move(mover.tfs, staged, target);
  mover.touched.add(path.dirname(target));
  undo?.push(replaced || hadBackup ? { target, backup } : { target });
}

/** Moves `target` to `backup` when it exists and no backup exists yet; true when something moved. */
async function moveAside(mover: Mover, target: string, backup: string, undo: Undo[] | undefined): Promise<boolean> {
  if (!(await present(target))) return false;
  // The name leaves the output folder: that folder's fsync makes the move (and so the removal) durable.
  mover.touched.add(path.dirname(target));
  if (await present(backup)) {
    await mover.tfs.rm(target, { force: true });
    return true;
  }
  await mover.tfs.mkdir(path.dirname(backup), { recursive: true });
  await move(mover.tfs, target, backup);
  undo?.push({ target, backup });
  return true;
}

/** mkdir -p, noting the parent of every folder it made (a recovery re-creating a folder a power loss took). */
async function makeFolder(mover: Mover, dir: string): Promise<void> {
  const first = await mover.tfs.mkdir(dir, { recursive: true });
  if (first === undefined) return;
  for (let d = dir; d.length >= first.length; d = path.dirname(d)) mover.touched.add(path.dirname(d));
}

/**
 * rename(2), or — when the two paths are on different file systems (a mount inside the output
 * folder) — a copy beside the destination renamed over it, then the source removed. The copy is
 * fsynced before its rename, and the rename before the source goes: a recovery that finds the
 * source gone takes the file as installed, so it must be.
 */
async function move(tfs: TransactionFs, from: string, to: string): Promise<void> {
  try {
    await tfs.rename(from, to);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EXDEV') throw e;
    const tmp = path.join(path.dirname(to), `.${path.basename(to)}.capi-render-tmp`);
    await tfs.copyFile(from, tmp);
    await tfs.syncFile(tmp);
    await tfs.rename(tmp, to);
    await tfs.syncFolder(path.dirname(to));
    await tfs.rm(from, { force: true });
  }
}

async function present(p: string): Promise<boolean> {
  return fs.lstat(p).then(
    () => true,
    () => false,
  );
}

/**
 * Removes the folders in `folders` and their parents up to `root` (exclusive) while they are empty.
 * Not fsynced: an empty folder a power loss brings back holds no output.
 */
export async function removeEmptyFolders(
  tfs: TransactionFs,
  folders: Iterable<string>,
  roots: readonly string[],
): Promise<void> {
  const unique = [...new Set(folders)].sort((a, b) => b.length - a.length);
  for (const start of unique) {
    const root = roots.find((r) => start.startsWith(r + path.sep));
    if (!root) continue;
    for (let dir = start; dir !== root && dir.startsWith(root + path.sep); dir = path.dirname(dir)) {
      try {
        await tfs.rmdir(dir);
      } catch {
        break; // not empty (someone else's file), or gone
      }
    }
  }
}
