/**
 * Writing the output of a build as one transaction: rendered/, gitops/, their ownership records and
 * capi-render.lock end up all old or all new.
 *
 *   1. begin    take the repository's write lock; finish (or discard) a write an earlier process
 *               left behind.
 *   2. stage    for every file whose bytes change, write the new bytes under the work folder
 *               (identical new files are written once and hard-linked); refuse a path that belongs
 *               to someone else or runs through a link; create the folders they go to.
 *   3. commit   work out which owned files are no longer produced, stage the new ownership records
 *               and the lock, check every folder that changes is writable, then write the commit
 *               marker — the point of no return — and install everything (old files moved aside).
 *               A failure while installing puts the old files back; a kill is rolled forward by the
 *               next build, which finds the marker.
 *   4. tidy     remove the work folder, the moved-aside files and folders emptied by removals.
 *
 * Only this module (through apply-staged.ts) deletes or replaces files in an output folder, and only
 * files the ownership record says capi-render wrote.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SpecError, error } from '../errors.js';
import { applyCommit, removeEmptyFolders, undoSteps, PLAN_FILE, type CommitRecord, type Failpoint, type SingleFileMove, type StagePlan } from './apply-staged.js';
import { acquireBusyLock, isLockAttempt } from './busy-lock.js';
import { cleanLegacyStaging } from './legacy-staging.js';
import { OWNERSHIP_FILE, ownershipText } from './ownership.js';
import { WORK_DIR, scanOutputFolder, type OutputFolderScan } from './scan-output-folder.js';
import { displayPath, guarded, withOutcome, writeError } from './write-errors.js';
import type { OutputFiles } from '../plan/output-plan.js';

/** One output folder a write replaces files in. */
export interface TreeTarget {
  /** Absolute path of the folder. */
  root: string;
  /** Which top-level folders to list (see scanOutputFolder); default all. */
  descend?: (folder: string) => boolean;
  /** Which existing files this write answers for: owned files in scope that are not produced are removed. */
  inScope(relative: string): boolean;
  /** For a folder without an ownership record: whether an existing file is earlier capi-render output. */
  adoptable(relative: string): boolean;
}

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

export interface TransactionOptions {
  repoRoot: string;
  /** The lock file to replace on commit (absolute). */
  lockFile: string;
  failpoint?: Failpoint;
}

const COMMIT_FILE = 'commit.json';
const BUSY_FILE = 'busy';

/**
 * Starts a write: takes the lock, repairs what an interrupted write left, then looks at each output
 * folder as it is now. Throws (with nothing changed) when a folder without an ownership record holds
 * files that are not earlier capi-render output.
 */
export async function beginTransaction(targets: readonly TreeTarget[], options: TransactionOptions): Promise<OutputTransaction> {
  const work = path.join(options.repoRoot, WORK_DIR);
  await guarded('create', work, options.repoRoot, () => fs.mkdir(work, { recursive: true, mode: 0o755 }));
  const release = await acquireBusyLock(path.join(work, BUSY_FILE), 'this repository');
  const stages: Stage[] = [];
  try {
    await recoverInterruptedWrite(options.repoRoot, options.failpoint);
    for (const [i, target] of targets.entries()) {
      await guarded('clean up after an earlier version in', path.dirname(target.root), options.repoRoot, () => cleanLegacyStaging(target.root));
      // Without a record every file must be looked at to adopt it; with one, untouched folders can be skipped.
      const recorded = await fs.lstat(path.join(target.root, OWNERSHIP_FILE)).then((s) => s.isFile(), () => false);
      const scan = await guarded('read', target.root, options.repoRoot, () => scanOutputFolder(target.root, recorded ? target.descend : undefined));
      stages.push(await openStage(target, scan, i, work, options.repoRoot));
    }
    return new OutputTransaction(stages, work, release, options);
  } catch (e) {
    for (const stage of stages) await discardStage(stage.dir, options.repoRoot).catch(() => undefined);
    await release();
    await fs.rmdir(work).catch(() => undefined);
    throw e;
  }
}

/**
 * Before a command reads capi-render.lock: finish a write that a killed build had committed, so the
 * command starts from the complete new state, and remove what an uncommitted one left. Only takes
 * the lock when there is something to do; leftovers of a writer that is still running are its own.
 */
export async function finishInterruptedWrite(repoRoot: string): Promise<boolean> {
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
    return (await recoverInterruptedWrite(repoRoot)) === 'finished';
  } finally {
    await release();
    await fs.rmdir(work).catch(() => undefined);
  }
}

/**
 * Finishes a write whose commit marker exists (a process killed while installing), or removes the
 * staging of one that never committed. Called by every command that writes, under the lock.
 */
export async function recoverInterruptedWrite(repoRoot: string, failpoint: Failpoint = () => undefined): Promise<'none' | 'finished' | 'discarded'> {
  const work = path.join(repoRoot, WORK_DIR);
  const marker = path.join(work, COMMIT_FILE);
  const text = await fs.readFile(marker, 'utf8').catch(() => undefined);
  if (text !== undefined) {
    const commit = JSON.parse(text) as CommitRecord;
    const emptied = await guarded('finish the interrupted write in', work, repoRoot, () => applyCommit(commit, undefined, failpoint));
    await tidy(commit, work, emptied);
  }
  // Whatever else is there (stages that were never committed, a half-written marker) is dropped.
  const leftovers = (await fs.readdir(work).catch(() => [])).filter((n) => n !== BUSY_FILE && !isLockAttempt(n, BUSY_FILE));
  for (const name of leftovers) await discardStage(path.join(work, name), repoRoot);
  return text !== undefined ? 'finished' : leftovers.length > 0 ? 'discarded' : 'none';
}

/** Whether a committed write is waiting to be finished (read-only commands refuse to read a half-installed tree). */
export async function hasInterruptedWrite(repoRoot: string): Promise<boolean> {
  return fs.stat(path.join(repoRoot, WORK_DIR, COMMIT_FILE)).then(
    () => true,
    () => false,
  );
}

interface Stage {
  target: TreeTarget;
  scan: OutputFolderScan;
  dir: string;
  owned: Set<string>;
  produced: Set<string>;
  written: string[];
  unchanged: number;
  /** Folders this write created (removed again if it aborts). */
  created: string[];
  /** Top-level folders absent when the write began: staged whole, moved into place with one rename. */
  newTops: Set<string>;
  /** Folders under the stage's `new/`, created (or being created). */
  stagedDirs: Map<string, Promise<void>>;
}

async function openStage(target: TreeTarget, scan: OutputFolderScan, index: number, work: string, repoRoot: string): Promise<Stage> {
  if (scan.notAFolder) {
    throw writeError(Object.assign(new Error('not a folder'), { code: 'ENOTDIR' }), 'write the output folder', scan.root, repoRoot);
  }
  const files = [...scan.entries.keys()];
  let owned: Set<string>;
  if (scan.record) {
    // Files the scan did not look at (environments this build leaves alone) stay owned as recorded.
    owned = new Set([...scan.record.files].filter((f) => !scan.listed(f) || scan.entries.get(f) === 'file'));
  } else {
    const strangers = files.filter((f) => scan.entries.get(f) !== 'file' || !target.adoptable(f));
    if (strangers.length > 0) {
      const shown = displayPath(scan.root, repoRoot);
      throw new SpecError(
        error('output-location', `${shown} holds files capi-render did not write and has no ownership record (${OWNERSHIP_FILE}): ${list(strangers)}`, {
          file: shown,
          hint: `move those files out of ${shown}, or choose an empty output folder (--out, or outputDir/gitopsDir in capi-render.yaml)`,
        }),
      );
    }
    owned = new Set(files);
  }
  // Stage on the output's own file system, so installing is a rename (see apply-staged.ts).
  const sameDevice = await deviceOf(scan.root).then(async (d) => d === (await deviceOf(repoRoot)));
  const dir = sameDevice ? path.join(work, `stage-${index}`) : path.join(scan.root, WORK_DIR, `stage-${index}`);
  await guarded('create', dir, repoRoot, async () => {
    await fs.rm(dir, { recursive: true, force: true });
    await fs.mkdir(path.join(dir, 'new'), { recursive: true });
  });
  return { target, scan, dir, owned, produced: new Set(), written: [], unchanged: 0, created: [], newTops: new Set(), stagedDirs: new Map() };
}

const NOTHING_CHANGED = 'nothing in the output or the lock was changed';

export class OutputTransaction {
  private readonly firstCopy = new Map<string, string>();
  private done = false;
  /** Installing failed and so did putting things back: the next build finishes the write. */
  private halfInstalled = false;

  constructor(
    private readonly stages: Stage[],
    private readonly work: string,
    private readonly release: () => Promise<void>,
    private readonly options: TransactionOptions,
  ) {}

  /** Each target folder as it was when the write began. */
  get scans(): readonly OutputFolderScan[] {
    return this.stages.map((s) => s.scan);
  }

  /** Stages files for target `index` (paths relative to its folder). May be called repeatedly. */
  async stage(index: number, files: OutputFiles): Promise<void> {
    try {
      await this.stageFiles(this.stages[index]!, files);
    } catch (e) {
      throw withOutcome(e, NOTHING_CHANGED);
    }
  }

  private async stageFiles(stage: Stage, files: OutputFiles): Promise<void> {
    const { scan } = stage;
    this.refuseBlockedPaths(stage, [...files.keys()]);
    await forEachLimited([...files], async ([rel, text]) => {
      stage.produced.add(rel);
      const target = path.join(scan.root, ...rel.split('/'));
      if (stage.owned.has(rel) && (await sameContent(target, text))) {
        stage.unchanged++;
        return;
      }
      this.options.failpoint?.('stage');
      stage.written.push(rel);
      await this.ensureFolder(stage, path.dirname(rel));
      const staged = path.join(stage.dir, 'new', ...rel.split('/'));
      await guarded('stage', target, this.options.repoRoot, async () => {
        // One mkdir per folder, however many of the parallel writers need it at once.
        const dir = path.dirname(staged);
        let made = stage.stagedDirs.get(dir);
        if (!made) stage.stagedDirs.set(dir, (made = fs.mkdir(dir, { recursive: true }).then(() => undefined)));
        await made;
        // Files of identical content (a CRD shared by a hundred environments) are written once.
        const earlier = this.firstCopy.get(text);
        if (earlier) await fs.link(earlier, staged).catch(() => fs.writeFile(staged, text));
        else {
          this.firstCopy.set(text, staged);
          await fs.writeFile(staged, text);
        }
      });
    });
  }

  /** Installs everything staged, removes owned files no longer produced, writes records and lock. */
  async commit(lockText: string | undefined): Promise<TreeSummary[]> {
    const { repoRoot, lockFile } = this.options;
    const failpoint = this.options.failpoint ?? (() => undefined);
    try {
      const files: SingleFileMove[] = [];
      const stagesToApply: string[] = [];
      const summaries: TreeSummary[] = [];
      const writable = new Set<string>();
      for (const stage of this.stages) {
        const { scan } = stage;
        const remove = [...stage.owned].filter((f) => stage.target.inScope(f) && !stage.produced.has(f)).sort();
        const removed = new Set(remove);
        const owned = new Set([...stage.owned].filter((f) => !removed.has(f)));
        for (const f of stage.produced) owned.add(f);
        const written = [...stage.written].sort();
        summaries.push({ root: scan.root, written, unchanged: stage.unchanged, removed: remove, foreign: [...scan.entries.keys()].filter((f) => !stage.owned.has(f)) });
        const recordText = ownershipText(owned);
        // A folder that never held capi-render output gets no record until it does.
        const recordChanged = scan.record ? scan.record.conflicted || recordText !== ownershipText(scan.record.files) : owned.size > 0;
        if (written.length === 0 && remove.length === 0 && !recordChanged) continue;
        // A folder new to the output moves in whole; files elsewhere one by one.
        const folders = [...stage.newTops].sort();
        const plan: StagePlan = { root: scan.root, files: written.filter((rel) => !stage.newTops.has(topOf(rel))), remove, folders };
        await guarded('stage', stage.dir, repoRoot, () => fs.writeFile(path.join(stage.dir, PLAN_FILE), JSON.stringify(plan)));
        stagesToApply.push(stage.dir);
        for (const rel of [...plan.files, ...remove]) writable.add(path.dirname(path.join(scan.root, ...rel.split('/'))));
        if (folders.length > 0) writable.add(scan.root);
        if (recordChanged) {
          const staged = path.join(stage.dir, 'record.new');
          await guarded('stage', staged, repoRoot, () => fs.writeFile(staged, recordText));
          files.push({ target: path.join(scan.root, OWNERSHIP_FILE), staged, backup: path.join(stage.dir, 'record.old') });
          writable.add(scan.root);
        }
      }
      if (lockText !== undefined) {
        const staged = path.join(this.work, 'lock.new');
        await guarded('stage', staged, repoRoot, () => fs.writeFile(staged, lockText));
        files.push({ target: lockFile, staged, backup: path.join(this.work, 'lock.old') });
        writable.add(path.dirname(lockFile));
      }
      if (stagesToApply.length === 0 && files.length === 0) {
        await this.abort();
        return summaries;
      }
      for (const dir of writable) await guarded('write in', dir, repoRoot, () => fs.access(dir, fs.constants.W_OK));
      const commit: CommitRecord = { version: 1, stages: stagesToApply, files };
      failpoint('commit');
      await guarded('write', path.join(this.work, COMMIT_FILE), repoRoot, async () => {
        await fs.writeFile(path.join(this.work, `${COMMIT_FILE}.tmp`), JSON.stringify(commit));
        await fs.rename(path.join(this.work, `${COMMIT_FILE}.tmp`), path.join(this.work, COMMIT_FILE));
      });
      failpoint('committed');
      const undo: Parameters<typeof undoSteps>[0] = [];
      let emptied: string[];
      try {
        emptied = await applyCommit(commit, undo, failpoint);
      } catch (e) {
        throw await this.putBack(e, undo);
      }
      await tidy(commit, this.work, emptied);
      this.done = true;
      await this.finish();
      return summaries;
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
    for (const stage of this.stages) {
      await discardStage(stage.dir, this.options.repoRoot).catch(() => undefined);
      for (const dir of [...stage.created].reverse()) await fs.rmdir(dir).catch(() => undefined);
    }
    await this.finish();
  }

  /** Leaves no trace: every stage (applied or not), the staged lock, then the lock and the work folder. */
  private async finish(): Promise<void> {
    for (const stage of this.stages) await discardStage(stage.dir, this.options.repoRoot).catch(() => undefined);
    for (const name of await fs.readdir(this.work).catch(() => [])) {
      // `busy.<pid>.<random>`: another writer taking the lock right now; its file is its own.
      if (name !== BUSY_FILE && !isLockAttempt(name, BUSY_FILE)) await fs.rm(path.join(this.work, name), { recursive: true, force: true }).catch(() => undefined);
    }
    await this.release();
    await fs.rmdir(this.work).catch(() => undefined);
  }

  /** An install step failed: undo the steps done so far and drop the marker; the error says what happened. */
  private async putBack(cause: unknown, undo: Parameters<typeof undoSteps>[0]): Promise<unknown> {
    const { repoRoot } = this.options;
    const failure = writeError(cause, 'install the new output in', path.join(repoRoot, WORK_DIR), repoRoot);
    try {
      await undoSteps(undo);
      await fs.rm(path.join(this.work, COMMIT_FILE), { force: true });
      return failure;
    } catch {
      // Both directions failed (the disk went away?): keep the marker, the next build finishes the write.
      this.done = true;
      this.halfInstalled = true;
      await this.release();
      return withOutcome(failure, 'the write is half-installed; run `capi-render build` again once the problem is fixed: it finishes the write before anything else');
    }
  }

  /**
   * A produced path must not replace a file someone else wrote, run through a link (which could
   * point anywhere), or need a folder where a file is.
   */
  private refuseBlockedPaths(stage: Stage, paths: readonly string[]): void {
    const { scan } = stage;
    const { repoRoot } = this.options;
    const shown = displayPath(scan.root, repoRoot);
    const links = new Set<string>();
    const inTheWay = new Set<string>();
    const foreign: string[] = [];
    for (const rel of paths) {
      const blocker = blockingEntry(rel, scan);
      if (blocker !== undefined) (scan.entries.get(blocker) === 'link' ? links : inTheWay).add(blocker);
      else if (scan.entries.get(rel) === 'link') links.add(rel);
      else if (scan.entries.has(rel) && !stage.owned.has(rel)) foreign.push(rel);
    }
    if (inTheWay.size > 0) {
      const [first] = inTheWay;
      throw writeError(Object.assign(new Error('not a folder'), { code: 'ENOTDIR' }), 'create folder', path.join(scan.root, first!), repoRoot);
    }
    if (links.size > 0) {
      throw new SpecError(
        error('output-location', `${shown} holds symbolic links where capi-render writes: ${list([...links])}`, {
          file: `${shown}/${[...links][0]}`,
          hint: 'capi-render never writes through a link (it could point anywhere); replace the link with a real folder or remove it',
        }),
      );
    }
    if (foreign.length > 0) {
      throw new SpecError(
        error('output-location', `the build would overwrite files in ${shown} that capi-render did not write: ${list(foreign)}`, {
          file: `${shown}/${foreign[0]}`,
          hint: 'move those files away; capi-render only replaces files listed in its ownership record',
        }),
      );
    }
  }

  /** Creates `rel` (relative folder) under the stage's root, refusing links and files in the way. */
  private async ensureFolder(stage: Stage, rel: string): Promise<void> {
    if (!stage.scan.exists) {
      const first = await guarded('create folder', stage.scan.root, this.options.repoRoot, () => fs.mkdir(stage.scan.root, { recursive: true, mode: 0o755 }));
      if (first) stage.created.push(first);
      stage.scan.exists = true;
    }
    if (rel === '.' || stage.scan.folders.has(rel)) return;
    const parts = rel.split('/');
    if (stage.newTops.has(parts[0]!) || !stage.scan.folders.has(parts[0]!)) {
      // Nothing of this top-level folder exists yet (blockingEntry ruled out a file or link there):
      // it is staged whole and renamed into place on commit, so no folder is created now.
      stage.newTops.add(parts[0]!);
      return;
    }
    for (let i = 1; i <= parts.length; i++) {
      const sub = parts.slice(0, i).join('/');
      if (stage.scan.folders.has(sub)) continue;
      const dir = path.join(stage.scan.root, ...parts.slice(0, i));
      await guarded('create folder', dir, this.options.repoRoot, async () => {
        try {
          await fs.mkdir(dir, { mode: 0o755 });
          stage.created.push(dir);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !(await fs.lstat(dir)).isDirectory()) throw e;
        }
      });
      stage.scan.folders.add(sub);
    }
  }
}

async function tidy(commit: CommitRecord, work: string, emptied: string[]): Promise<void> {
  const roots: string[] = [];
  for (const stage of commit.stages) {
    const plan = await fs.readFile(path.join(stage, PLAN_FILE), 'utf8').then((t) => JSON.parse(t) as StagePlan).catch(() => undefined);
    if (plan) roots.push(plan.root);
    // Renamed first (atomic), so a kill while deleting never leaves a half-deleted stage that a
    // recovery would try to install again.
    const done = `${stage}.done`;
    await fs.rename(stage, done).catch(() => undefined);
    await fs.rm(done, { recursive: true, force: true });
    await removeOutOfRepoWorkDir(stage);
  }
  for (const f of commit.files) await fs.rm(f.backup, { force: true });
  await removeEmptyFolders(emptied, roots);
  await fs.rm(path.join(work, COMMIT_FILE), { force: true });
}

async function discardStage(dir: string, repoRoot: string): Promise<void> {
  await guarded('remove', dir, repoRoot, () => fs.rm(dir, { recursive: true, force: true }));
  await removeOutOfRepoWorkDir(dir);
}

/** A stage inside an output folder on another file system lives in `<folder>/.capi-render-write/`: drop that too once empty. */
async function removeOutOfRepoWorkDir(stageDir: string): Promise<void> {
  const parent = path.dirname(stageDir);
  if (path.basename(parent) === WORK_DIR && !(await fs.stat(path.join(parent, BUSY_FILE)).catch(() => undefined))) await fs.rmdir(parent).catch(() => undefined);
}

/** The first path on the way to `rel` that is not a folder (a file or a link), if any. */
function blockingEntry(rel: string, scan: OutputFolderScan): string | undefined {
  const parts = rel.split('/');
  for (let i = 1; i < parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    if (scan.entries.has(prefix)) return prefix;
  }
  return undefined;
}

function topOf(rel: string): string {
  const slash = rel.indexOf('/');
  return slash < 0 ? rel : rel.slice(0, slash);
}

async function deviceOf(p: string): Promise<number> {
  for (let dir = p; ; dir = path.dirname(dir)) {
    const stat = await fs.stat(dir).catch(() => undefined);
    if (stat) return stat.dev;
    if (dir === path.dirname(dir)) return -1;
  }
}

async function sameContent(file: string, text: string): Promise<boolean> {
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat?.isFile() || stat.size !== Buffer.byteLength(text)) return false;
  return (await fs.readFile(file, 'utf8')) === text;
}

async function forEachLimited<T>(items: readonly T[], fn: (item: T) => Promise<void>, limit = 32): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

function list(paths: readonly string[]): string {
  return paths.length <= 5 ? paths.join(', ') : `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more`;
}
