/**
 * Step 3a of the output transaction (transaction.ts): from what was staged, work out which owned
 * files are no longer produced, write each stage's plan, the new ownership records and the lock
 * beside the staged files, and list everything that must be on disk before the commit marker may
 * be written: every staged file (once per inode) and every folder that got a new name.
 */
import path from 'node:path';
import type { CommitRecord, SingleFileMove, StagePlan } from './apply-staged.js';
import { PLAN_FILE } from './apply-staged.js';
import type { TransactionFs } from './durable-fs.js';
import type { Stage } from './output-stage.js';
import { OWNERSHIP_FILE, ownershipPiecesOfSorted } from './ownership.js';
import { PathSet } from './path-table.js';
import { guarded } from './write-errors.js';

/** What one target folder's part of a write did. */
export interface TreeSummary {
  root: string;
  /** Files whose bytes are new or changed. */
  written: string[];
  /** Produced files already byte-identical on disk. */
  unchanged: number;
  /** Owned files that are gone now. */
  removed: string[];
  /** Files in the folder that capi-render did not write (left alone). */
  foreign: string[];
}

/** A write ready to commit; `commit` is undefined when nothing changes. */
export interface CommitPlan {
  summaries: TreeSummary[];
  commit: CommitRecord | undefined;
  /** Folders whose files change (checked writable before the marker). */
  writable: Set<string>;
  /** Files and folders to fsync before the marker. */
  sync: { files: string[]; folders: Set<string> };
}

/** Where a write stages its files: the transaction's own values the plan needs. */
export interface PlanContext {
  tfs: TransactionFs;
  repoRoot: string;
  /** The repository's work folder (`.capi-render-write`). */
  work: string;
  lockFile: string;
  /** Staged files with an inode of their own (output-stage.ts). */
  ownCopies: readonly string[];
}

/** Writes the plans, records and lock of a write (see the module comment); writes nothing when nothing changes. */
export async function planCommit(
  ctx: PlanContext,
  stages: readonly Stage[],
  lockText: string | undefined,
): Promise<CommitPlan> {
  const { tfs, repoRoot } = ctx;
  const files: SingleFileMove[] = [];
  const stagesToApply: string[] = [];
  const summaries: TreeSummary[] = [];
  const writable = new Set<string>();
  const sync = { files: [...ctx.ownCopies], folders: new Set<string>() };
  for (const stage of stages) {
    const { scan } = stage;
    // Every file of the fleet is listed here: one sorted list of what was produced serves the
    // summary and the record, and the record adds only what the build left owned without producing.
    const remove: string[] = [];
    const keptOwned: string[] = [];
    for (const f of stage.owned) {
      if (stage.produced.has(f)) continue;
      (stage.target.inScope(f) ? remove : keptOwned).push(f);
    }
    remove.sort();
    const produced = stage.produced.sorted();
    const owned = keptOwned.length === 0 ? produced : new PathSet([...stage.produced, ...keptOwned]).sorted();
    const written = stage.unchanged.size === 0 ? produced : produced.filter((f) => !stage.unchanged.has(f));
    summaries.push({
      root: scan.root,
      written,
      unchanged: stage.unchanged.size,
      removed: remove,
      foreign: [...scan.entries.keys()].filter((f) => !stage.owned.has(f)),
    });
    const record = ownershipPiecesOfSorted(owned);
    // A folder that never held capi-render output gets no record until it does; a record whose text is
    // not what capi-render writes for its list (a line duplicated or added by hand) is rewritten.
    // (A canonical record is the text of its files: it changes exactly when the files do.)
    const recordFiles = scan.record?.files;
    const recordChanged = scan.record
      ? !scan.record.canonical || owned.length !== recordFiles!.size || owned.some((f) => !recordFiles!.has(f))
      : owned.length > 0;
    if (written.length === 0 && remove.length === 0 && !recordChanged) continue;
    // A folder new to the output moves in whole; files elsewhere one by one.
    const folders = [...stage.newTops].sort();
    const plan: StagePlan = {
      root: scan.root,
      files: written.filter((rel) => !stage.newTops.has(topOf(rel))),
      remove,
      folders,
    };
    const planFile = path.join(stage.dir, PLAN_FILE);
    await guarded('stage', stage.dir, repoRoot, () => tfs.writeFile(planFile, JSON.stringify(plan)));
    sync.files.push(planFile);
    stagesToApply.push(stage.dir);
    for (const rel of [...plan.files, ...remove]) writable.add(path.dirname(path.join(scan.root, ...rel.split('/'))));
    if (folders.length > 0) writable.add(scan.root);
    if (recordChanged) {
      const staged = path.join(stage.dir, 'record.new');
      await guarded('stage', staged, repoRoot, () => tfs.writeFile(staged, record));
      sync.files.push(staged);
      files.push({ target: path.join(scan.root, OWNERSHIP_FILE), staged, backup: path.join(stage.dir, 'record.old') });
      writable.add(scan.root);
    }
    for (const dir of stagedFolders(stage)) sync.folders.add(dir);
  }
  if (lockText !== undefined) {
    const staged = path.join(ctx.work, 'lock.new');
    await guarded('stage', staged, repoRoot, () => tfs.writeFile(staged, lockText));
    sync.files.push(staged);
    sync.folders.add(ctx.work);
    files.push({ target: ctx.lockFile, staged, backup: path.join(ctx.work, 'lock.old') });
    writable.add(path.dirname(ctx.lockFile));
  }
  // The work folder is made afresh by every write (the last one removed it): its own name too.
  sync.folders.add(path.dirname(ctx.work));
  const commit: CommitRecord | undefined =
    stagesToApply.length === 0 && files.length === 0 ? undefined : { version: 1, stages: stagesToApply, files };
  return { summaries, commit, writable, sync };
}

/**
 * The folders of a stage whose names must be durable before the marker: every folder under `new/`
 * up to the stage folder and the one holding it (the work folder, or `<output>/.capi-render-write`
 * and the output folder), and the parent of every folder staging created in the output folder.
 */
function stagedFolders(stage: Stage): Set<string> {
  const out = new Set<string>();
  const holder = path.dirname(stage.dir);
  for (const dir of [...stage.stagedDirs.keys(), path.join(stage.dir, 'new')]) {
    for (let d = dir; d !== holder && d.startsWith(stage.dir); d = path.dirname(d)) out.add(d);
  }
  out.add(holder);
  // A stage inside the output folder (on another file system than the repository): its work folder is new there.
  if (holder === path.join(stage.scan.root, path.basename(holder))) out.add(stage.scan.root);
  for (const dir of stage.created) out.add(path.dirname(dir));
  return out;
}

function topOf(rel: string): string {
  const slash = rel.indexOf('/');
  return slash < 0 ? rel : rel.slice(0, slash);
}
