/**
 * Step 2 of the output transaction (transaction.ts): staging. For every file whose bytes change,
 * the new bytes are written under the stage's `new/` folder, on the output's own file system so that
 * installing is a rename; identical new files are written once and hard-linked. A path that belongs
 * to someone else or runs through a link is refused first. Nothing here is fsynced: a build can still
 * be refused after staging, and the commit (commit-plan.ts) syncs what it is about to install.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SpecError, error } from '../errors.js';
import type { BoundedMap } from '../bounded-map.js';
import { PathNames, PathSet } from './path-table.js';
import type { TransactionFs } from './durable-fs.js';
import { forEachLimited } from '../durable-replace.js';
import { readRecordFile } from '../repository-files.js';
import { OWNERSHIP_FILE } from './ownership.js';
import { WORK_DIR, type OutputFolderScan } from './scan-output-folder.js';
import { displayPath, guarded, writeError } from './write-errors.js';
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

/** What the write does in one target folder, filled in while staging. */
export interface Stage {
  target: TreeTarget;
  scan: OutputFolderScan;
  /** The stage folder: `new/`, `old/`, `plan.json`, `record.new`. */
  dir: string;
  /** Paths held compactly (path-table.ts): a fleet's write lists every file of every environment. */
  owned: PathSet;
  produced: PathSet;
  /** Produced files already byte-identical on disk; the others are written (none on a first build). */
  unchanged: PathSet;
  /** Folders this write created in the output folder (removed again if it aborts). */
  created: string[];
  /** Top-level folders absent when the write began: staged whole, moved into place with one rename. */
  newTops: Set<string>;
  /** Folders under the stage's `new/`, created (or being created). */
  stagedDirs: Map<string, Promise<void>>;
}

/** What staging shares across the stages of one write. */
export interface StageContext {
  tfs: TransactionFs;
  repoRoot: string;
  failpoint?: (step: string) => void;
  /**
   * The first staged copy of each content, once written (later ones are hard links to it). Bounded:
   * content only one environment has is forgotten as the fleet goes on, and a later copy of a
   * forgotten content is written again instead of linked.
   */
  firstCopy: BoundedMap<string, Promise<string>>;
  /** Staged paths that got an inode of their own (each is fsynced once before the commit marker). */
  ownCopies: string[];
}

/**
 * Works out what the write owns in `scan` and makes the stage folder. Throws (with nothing changed)
 * when a folder without an ownership record holds files that are not earlier capi-render output.
 */
export async function openStage(
  ctx: StageContext,
  target: TreeTarget,
  scan: OutputFolderScan,
  index: number,
  work: string,
): Promise<Stage> {
  const { repoRoot } = ctx;
  if (scan.notAFolder) {
    throw writeError(
      Object.assign(new Error('not a folder'), { code: 'ENOTDIR' }),
      'write the output folder',
      scan.root,
      repoRoot,
    );
  }
  const files = [...scan.entries.keys()];
  const names = new PathNames();
  let owned: PathSet;
  if (scan.record) {
    // Files the scan did not look at (environments this build leaves alone) stay owned as recorded.
    owned = new PathSet(
      [...scan.record.files].filter((f) => !scan.listed(f) || scan.entries.get(f) === 'file'),
      names,
    );
  } else {
    const strangers = files.filter((f) => scan.entries.get(f) !== 'file' || !target.adoptable(f));
    if (strangers.length > 0) {
      const shown = displayPath(scan.root, repoRoot);
      throw new SpecError(
        error(
          'output-location',
          `${shown} holds files capi-render did not write and has no ownership record (${OWNERSHIP_FILE}): ${list(strangers)}`,
          {
            file: shown,
            hint: `move those files out of ${shown}, or choose an empty output folder (--out, or outputDir/gitopsDir in capi-render.yaml)`,
          },
        ),
      );
    }
    owned = new PathSet(files, names);
  }
  // Stage on the output's own file system, so installing is a rename (see apply-staged.ts).
  const sameDevice = await deviceOf(scan.root).then(async (d) => d === (await deviceOf(repoRoot)));
  const dir = sameDevice ? path.join(work, `stage-${index}`) : path.join(scan.root, WORK_DIR, `stage-${index}`);
  await guarded('create', dir, repoRoot, async () => {
    await ctx.tfs.rm(dir, { recursive: true, force: true });
    await ctx.tfs.mkdir(path.join(dir, 'new'), { recursive: true });
  });
  return {
    target,
    scan,
    dir,
    owned,
    produced: new PathSet([], names),
    unchanged: new PathSet([], names),
    created: [],
    newTops: new Set(),
    stagedDirs: new Map(),
  };
}

/** Stages `files` (relative to the stage's folder): the changed ones are written under `new/`. */
export async function stageFiles(ctx: StageContext, stage: Stage, files: OutputFiles): Promise<void> {
  const { scan } = stage;
  await refuseBlockedPaths(stage, files, ctx.repoRoot);
  await forEachLimited([...files], async ([rel, text]) => {
    stage.produced.add(rel);
    const target = path.join(scan.root, ...rel.split('/'));
    if (stage.owned.has(rel) && (await sameContent(target, text))) {
      stage.unchanged.add(rel);
      return;
    }
    ctx.failpoint?.('stage');
    await ensureFolder(ctx, stage, path.dirname(rel));
    const staged = path.join(stage.dir, 'new', ...rel.split('/'));
    await guarded('stage', target, ctx.repoRoot, async () => {
      // One mkdir per folder, however many of the parallel writers need it at once.
      const dir = path.dirname(staged);
      let made = stage.stagedDirs.get(dir);
      if (!made) stage.stagedDirs.set(dir, (made = ctx.tfs.mkdir(dir, { recursive: true }).then(() => undefined)));
      await made;
      // Files of identical content (a CRD shared by a hundred environments) are written once; a
      // link waits for that write to finish (a link to a file still being written would share an
      // inode whose first writer may yet fail).
      const earlier = ctx.firstCopy.get(text);
      const first = earlier && (await earlier.catch(() => undefined));
      if (
        first &&
        (await ctx.tfs.link(first, staged).then(
          () => true,
          () => false,
        ))
      )
        return;
      const written = ctx.tfs.writeFile(staged, text).then(() => staged);
      if (!earlier) ctx.firstCopy.set(text, written);
      await written;
      ctx.ownCopies.push(staged);
    });
  });
}

/**
 * A produced path must not replace a file someone else wrote, run through a link (which could
 * point anywhere), or need a folder where a file is. A file the record does not list that already
 * holds exactly the bytes the build writes there is capi-render's output (its line was lost from the
 * record, by an edit or a merge): it is taken back, nothing being overwritten.
 */
async function refuseBlockedPaths(stage: Stage, files: OutputFiles, repoRoot: string): Promise<void> {
  const { scan } = stage;
  const shown = displayPath(scan.root, repoRoot);
  const links = new Set<string>();
  const inTheWay = new Set<string>();
  const unlisted: string[] = [];
  for (const rel of files.keys()) {
    const blocker = blockingEntry(rel, scan);
    if (blocker !== undefined) (scan.entries.get(blocker) === 'link' ? links : inTheWay).add(blocker);
    else if (scan.entries.get(rel) === 'link') links.add(rel);
    else if (scan.entries.has(rel) && !stage.owned.has(rel)) unlisted.push(rel);
  }
  const foreign: string[] = [];
  for (const rel of unlisted) {
    if (
      scan.entries.get(rel) === 'file' &&
      (await sameContent(path.join(scan.root, ...rel.split('/')), files.get(rel)!))
    )
      stage.owned.add(rel);
    else foreign.push(rel);
  }
  if (inTheWay.size > 0) {
    const [first] = inTheWay;
    throw writeError(
      Object.assign(new Error('not a folder'), { code: 'ENOTDIR' }),
      'create folder',
      path.join(scan.root, first!),
      repoRoot,
    );
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
      error(
        'output-location',
        `the build would overwrite files in ${shown} that capi-render did not write: ${list(foreign)}`,
        {
          file: `${shown}/${foreign[0]}`,
          hint: `move those files away; capi-render only replaces files listed in its ownership record (${shown}/${OWNERSHIP_FILE})`,
        },
      ),
    );
  }
}

/** Creates `rel` (relative folder) under the stage's root, refusing links and files in the way. */
async function ensureFolder(ctx: StageContext, stage: Stage, rel: string): Promise<void> {
  const { repoRoot, tfs } = ctx;
  if (!stage.scan.exists) {
    const first = await guarded('create folder', stage.scan.root, repoRoot, () =>
      tfs.mkdir(stage.scan.root, { recursive: true, mode: 0o755 }),
    );
    // Every folder of the chain is this write's (removed again on abort, its name fsynced on commit).
    if (first) for (let d = stage.scan.root; d.length >= first.length; d = path.dirname(d)) stage.created.unshift(d);
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
    await guarded('create folder', dir, repoRoot, async () => {
      try {
        await tfs.mkdir(dir, { mode: 0o755 });
        stage.created.push(dir);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EEXIST' || !(await fs.lstat(dir)).isDirectory()) throw e;
      }
    });
    stage.scan.folders.add(sub);
  }
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
  // Bounded and without following a link swapped in since the lstat (src/repository-files.ts).
  const bytes = await readRecordFile(path.dirname(file), file, 'output', { listed: true }).catch(() => undefined);
  return bytes !== undefined && bytes.toString('utf8') === text;
}

/** Up to five paths, then how many more. */
export function list(paths: readonly string[]): string {
  return paths.length <= 5 ? paths.join(', ') : `${paths.slice(0, 5).join(', ')} and ${paths.length - 5} more`;
}
