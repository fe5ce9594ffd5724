/**
 * Folder marks: what lets a no-op rebuild check a fleet's output by its folders and inodes instead of
 * listing every folder and lstat-ing every file.
 *
 * A folder's entries change only through calls that update its mtime and ctime (creating, linking,
 * unlinking or renaming a name in it: POSIX requires both; utimes(2), the only way to set an mtime
 * back, updates the ctime). So a folder whose mtime, ctime, device and inode are as recorded (and
 * not in the racy window) holds exactly the names it held: each still names the inode it named, and
 * one lstat per inode (hard links share one) checks their bytes as every file is checked. Mounts
 * aside, which only root can make, and root can rewrite the cache record itself.
 *
 * A folder is marked only when the record holds exactly its entries: every one a regular file the
 * record marks, or a folder. Anything else (a link, a FIFO, a file that could not be marked, a file
 * of an environment the record dropped) leaves it unmarked, and it is listed every time.
 */
import { lstatSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { DirMark, FolderDirs, FolderMarks } from './fingerprint-record.js';
import { WORK_DIR } from './scan-output-folder.js';

/** A folder as the scan found it. */
export interface ScannedDir {
  /** Its lstat, taken before it was listed (a later change makes it differ). */
  mark: DirMark;
  /** Regular files listed in it. */
  files: number;
  /** Whether every entry was a folder or a regular file the record marks (foreign ones: see {@link scanFolders}). */
  complete: boolean;
}

/** What {@link scanFolders} found. */
export interface FolderScan {
  dirs: Map<string, ScannedDir>;
  /**
   * Regular files that are not owned, relative to the root; undefined when anything but regular
   * files and folders is there (none of them is recorded then) or a folder cannot be listed.
   */
  foreign: string[] | undefined;
}

/** A folder mark that never matches: the folder is listed every time. */
const UNMARKED = -1;

/**
 * Lists every folder below `root` (the work folder aside), each lstat-ed before it is listed.
 * `owned`: the files the ownership record lists; `marked`: whether one of them was marked;
 * `markedIn`: how many files of a folder were marked so far (the owned ones: the scan runs after them).
 */
export function scanFolders(
  root: string,
  owned: (rel: string) => boolean,
  marked: (rel: string) => boolean,
  markedIn: (dir: string) => number,
): FolderScan {
  const dirs = new Map<string, ScannedDir>();
  const foreign: string[] = [];
  let regularOnly = true;
  /** Scans one folder; false when it is no longer a folder that can be looked at. */
  const walk = (rel: string, abs: string): boolean => {
    let stat;
    try {
      stat = lstatSync(abs, { throwIfNoEntry: false });
    } catch {
      regularOnly = false;
      return false;
    }
    // Gone since it was listed (or no folder at all: nothing there to record), or no longer a folder.
    if (stat === undefined) return false;
    if (!stat.isDirectory()) {
      regularOnly = false;
      return false;
    }
    const entry: ScannedDir = { mark: dirMarkOf(stat), files: 0, complete: true };
    dirs.set(rel, entry);
    let names;
    try {
      names = readdirSync(abs, { withFileTypes: true });
    } catch {
      entry.complete = false;
      regularOnly = false;
      return true;
    }
    let ownedMarked = 0;
    for (const e of names) {
      if (!rel && e.name === WORK_DIR) continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!walk(child, path.join(abs, e.name))) entry.complete = false;
      } else if (e.isFile()) {
        entry.files++;
        if (!owned(child)) foreign.push(child);
        else if (marked(child)) ownedMarked++;
        else entry.complete = false;
      } else {
        entry.complete = false;
        regularOnly = false;
      }
    }
    // Every owned file marked in this folder is still here (an owned file removed since it was marked leaves it unmarked).
    if (ownedMarked !== markedIn(rel)) entry.complete = false;
    return true;
  };
  walk('', root);
  return { dirs, foreign: regularOnly ? foreign : undefined };
}

/**
 * The folder marks to record: each scanned folder's, when the files `kept` record there are exactly
 * the ones it listed, else unmarked. `unrecorded`: foreign files listed that were not marked.
 */
export function folderMarks(
  scanned: Map<string, ScannedDir>,
  kept: readonly FolderMarks[],
  unrecorded: Iterable<string> = [],
): FolderDirs {
  for (const rel of unrecorded) {
    const at = rel.lastIndexOf('/');
    const dir = scanned.get(at < 0 ? '' : rel.slice(0, at));
    if (dir) dir.complete = false;
  }
  const counts = new Map<string, number>();
  for (const marks of kept) for (const [dir, files] of marks) counts.set(dir, (counts.get(dir) ?? 0) + files.size);
  const dirs: FolderDirs = new Map();
  for (const [rel, dir] of scanned) {
    const exact = dir.complete && (counts.get(rel) ?? 0) === dir.files;
    dirs.set(rel, exact ? dir.mark : [UNMARKED, UNMARKED, dir.mark[2], dir.mark[3]]);
  }
  return dirs;
}

/** Whether `stat` (a folder's lstat) is as marked; a folder recorded unmarked never is. */
export function folderUnchanged(mark: DirMark, stat: { mtimeMs: number; ctimeMs: number; dev: number; ino: number }) {
  return (
    mark[0] !== UNMARKED &&
    mark[0] === stat.mtimeMs &&
    mark[1] === stat.ctimeMs &&
    mark[2] === stat.dev &&
    mark[3] === stat.ino
  );
}

/**
 * The index {@link childFolders} builds, per record: a build asks it once per environment, and a
 * fleet's record has tens of thousands of folders. A record's folders never change once it is
 * taken or decoded, so the index of one stays right.
 */
const childIndexes = new WeakMap<FolderDirs, Map<string, string[]>>();

/** The folders below each recorded folder, by parent ('' for the top). */
export function childFolders(dirs: FolderDirs): Map<string, string[]> {
  const known = childIndexes.get(dirs);
  if (known) return known;
  const children = new Map<string, string[]>();
  childIndexes.set(dirs, children);
  for (const rel of dirs.keys()) {
    if (rel === '') continue;
    const at = rel.lastIndexOf('/');
    const parent = at < 0 ? '' : rel.slice(0, at);
    let list = children.get(parent);
    if (!list) children.set(parent, (list = []));
    list.push(rel);
  }
  return children;
}

function dirMarkOf(stat: { mtimeMs: number; ctimeMs: number; dev: number; ino: number }): DirMark {
  // An inode or device number over 2^53 is not exact as a number: such a folder is never trusted.
  if (!Number.isSafeInteger(stat.dev) || !Number.isSafeInteger(stat.ino)) return [UNMARKED, UNMARKED, 0, 0];
  return [stat.mtimeMs, stat.ctimeMs, stat.dev, stat.ino];
}
