/**
 * What the last build left in the output folders, file by file, kept in the cache folder and never
 * committed: every file's size, modification and change times and sha256 (the ownership records
 * included), kept per environment with what its files were rendered from (fingerprint-record.ts).
 *
 * Design notes: docs/internals.md "output/output-fingerprint.ts".
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, rmSync, type Stats } from 'node:fs';
import { readBoundedSync } from '../bounded-read.js';
import { MAX_OUTPUT_FILE_BYTES } from '../repository-files.js';
import path from 'node:path';
import type { CacheUse } from '../cache/cache-use.js';
import { makePrivateDirSync, writePrivateFileSync } from '../private-files.js';
import {
  decodeFingerprint,
  encodeFingerprint,
  gitopsEnvironmentOf,
  outEnvironmentOf,
  type EnvironmentRecord,
  type FileMark,
  type FingerprintData,
  type FolderDirs,
  type FolderMarks,
} from './fingerprint-record.js';
import { createInterning, type Interning } from './mark-interning.js';
import { readOwnedFiles } from './owned-files.js';
import { OWNERSHIP_FILE } from './ownership.js';
import type { PathSet } from './path-table.js';
import { WORK_DIR } from './scan-output-folder.js';
import { childFolders, folderMarks, folderUnchanged, scanFolders, type ScannedDir } from './folder-marks.js';

/** What the last build left: each checked environment's entry and the shared files (fingerprint-record.ts). */
export type OutputFingerprint = FingerprintData;

/**
 * A file modified this close before the record was taken is always hashed: a later edit of the same
 * size could carry the same times on a coarse file-system clock. Linux stamps files from a clock of a
 * few milliseconds' resolution; a time with no sub-second part may come from a file system that keeps
 * whole seconds (FAT keeps two).
 */
const RACY_MS = 20;
const RACY_MS_WHOLE_SECONDS = 2000;

/** Where the fingerprint of `repoRoot`'s configured output folders lives in the cache. */
export function fingerprintFile(cacheDir: string, repoRoot: string): string {
  return path.join(cacheDir, 'outputs', `${createHash('sha256').update(path.resolve(repoRoot)).digest('hex')}.json`);
}

/**
 * The recorded fingerprint; undefined when there is none, it does not decode (fingerprint-record.ts),
 * or (with `folders`) it is of other folders. Without `folders` it describes the folders
 * capi-render.yaml named then: an environment whose inputs hash matches was built with the same
 * capi-render.yaml, so with the same folders. With `folders.digest` (a build stamp's), also undefined
 * unless the bytes read are the record whose {@link fingerprintDigest} that is: the record is written
 * as encoded, so its bytes' sha256 is that digest, checked before decoding and without encoding it again.
 */
export function readFingerprint(
  file: string,
  folders?: { outDir: string; gitopsDir: string; digest?: string },
  use?: CacheUse,
): OutputFingerprint | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  use?.read(file);
  if (folders?.digest !== undefined && sha256Of(text) !== folders.digest) return undefined;
  const fp = decodeFingerprint(text);
  return fp && (!folders || (fp.outDir === folders.outDir && fp.gitopsDir === folders.gitopsDir)) ? fp : undefined;
}

/** Best effort: without a record the next build renders everything, which only takes longer. */
export function writeFingerprint(file: string, fp: OutputFingerprint, use?: CacheUse): void {
  try {
    makePrivateDirSync(path.dirname(file));
    writePrivateFileSync(file, encodeFingerprint(fp));
    use?.wrote(file);
  } catch {
    // Only time is lost — once the earlier record is gone too: it describes the output before this
    // build, and a build stamp names it (every file is checked against it, but the less it can
    // vouch for the better).
    rmSync(file, { force: true });
  }
}

/**
 * Whether environment `env`'s files are as its entry records them and were rendered from `key`:
 * its output folder exactly (an added file too makes it differ), each of its GitOps files, and both
 * ownership records. An environment without an entry, with no files recorded, or whose folder is
 * gone is never unchanged: only what this record has seen may be skipped.
 */
export function environmentUnchanged(fp: OutputFingerprint, env: string, key: string): boolean {
  const entry = fp.environments.get(env);
  if (!entry || entry.key !== key || countMarks(entry.out) === 0) return false;
  if (!recordMatches(fp, fp.outDir, fp.shared.out) || !recordMatches(fp, fp.gitopsDir, fp.shared.gitops)) return false;
  if (!treeMatches(fp, fp.outDir, entry.out, fp.dirs.out, env)) return false;
  for (const [dir, files] of entry.gitops) {
    for (const [name, mark] of files)
      if (!fileMatches(fp, path.join(fp.gitopsDir, ...dir.split('/').filter(Boolean), name), mark)) return false;
  }
  return true;
}

/**
 * Whether both folders hold exactly the recorded files, byte for byte, and every one of
 * `environments` has an entry with files (a no-op build): a build that left some environment
 * unchecked (--env, --shard) dropped its entry, so its files, present or not, confirm nothing.
 */
export function outputUnchanged(fp: OutputFingerprint, environments: readonly string[]): boolean {
  for (const env of environments) {
    const entry = fp.environments.get(env);
    if (!entry || countMarks(entry.out) === 0) return false;
  }
  const entries = [...fp.environments.values()];
  const out = mergeMarks([fp.shared.out, ...entries.map((e) => e.out)]);
  const gitops = mergeMarks([fp.shared.gitops, ...entries.map((e) => e.gitops)]);
  return treeMatches(fp, fp.outDir, out, fp.dirs.out, '') && treeMatches(fp, fp.gitopsDir, gitops, fp.dirs.gitops, '');
}

/** sha256 of the record as stored: what a build stamp names to be of this record and no other. */
export function fingerprintDigest(fp: OutputFingerprint): string {
  return sha256Of(encodeFingerprint(fp));
}

/** What a build produced, for {@link takeFingerprint}: sha256 of every file it staged, by folder. */
export interface ProducedDigests {
  out: DigestsByPath;
  gitops: DigestsByPath;
}

/** sha256 by file path: a Map, or the compact PathMap a fleet's write keeps (path-table.ts). */
export interface DigestsByPath {
  get(rel: string): string | undefined;
  set(rel: string, sha256: string): unknown;
}

/** What {@link takeFingerprint} is told of the build. */
export interface TakeFingerprintInit {
  /** The record the build started from (undefined: none, or --force). */
  previous: OutputFingerprint | undefined;
  outDir: string;
  gitopsDir: string;
  produced: ProducedDigests;
  /** Environments this build rendered → what they were rendered from (their skip key). */
  rendered: Record<string, string>;
  /** Environments this build skipped because `previous` confirmed their files unchanged. */
  confirmed: readonly string[];
  /** Every environment of the repository: a file of one of these belongs to it, any other file is shared. */
  allEnvironments: readonly string[];
}

/**
 * The fingerprint after a successful write, per environment. Only the environments this build
 * checked get an entry — those it rendered (their files marked with the digests it produced) and
 * those `previous` confirmed unchanged (their marks carried when untouched since, else hashed again
 * against them). Every other environment's entry and files are dropped, whatever `previous` said:
 * a partial build (--env, --shard) never looked at them, so the next build renders them. An entry is
 * also dropped when any file of its environment that the ownership record lists cannot be marked
 * (missing, or not the bytes it should be), so an entry always covers all of its environment's files.
 * Shared files (the ownership records, the fleet's files, what someone else put in a folder that is
 * no environment) are recorded as they are.
 */
export function takeFingerprint(init: TakeFingerprintInit): OutputFingerprint {
  const sameFolders = init.previous?.outDir === init.outDir && init.previous.gitopsDir === init.gitopsDir;
  const previous = sameFolders ? init.previous : undefined;
  const keys = new Map<string, string>();
  for (const env of init.confirmed) {
    const key = previous?.environments.get(env)?.key;
    if (key !== undefined) keys.set(env, key);
  }
  for (const [env, key] of Object.entries(init.rendered)) keys.set(env, key);
  const all = new Set(init.allEnvironments);
  const incomplete = new Set<string>();
  const owners = { out: outEnvironmentOf, gitops: gitopsEnvironmentOf };
  const folders = { out: init.outDir, gitops: init.gitopsDir };
  const marked = { out: new Map<string, FolderMarks>(), gitops: new Map<string, FolderMarks>() };
  // A fleet's record repeats names and marks in every environment: one copy of each (mark-interning.ts).
  const interning = createInterning();
  const shared: { out: FolderMarks; gitops: FolderMarks } = { out: new Map(), gitops: new Map() };
  const scanned: { out: Map<string, ScannedDir>; gitops: Map<string, ScannedDir> } = {
    out: new Map(),
    gitops: new Map(),
  };
  const unrecorded: { out: string[]; gitops: string[] } = { out: [], gitops: [] };
  for (const kind of ['out', 'gitops'] as const) {
    const root = folders[kind];
    const produced = init.produced[kind];
    const ownerOf = (rel: string) => {
      const env = owners[kind](rel);
      return env !== undefined && all.has(env) ? env : undefined;
    };
    const earlier = (rel: string) =>
      markAt((previous && previous.environments.get(ownerOf(rel) ?? '')?.[kind]) ?? previous?.shared[kind], rel);
    // Files marked per folder so far: the folder scan compares what it lists with them.
    const markedIn = new Map<string, number>();
    const put = (owner: string | undefined, rel: string, m: FileMark) => {
      let marks = owner === undefined ? shared[kind] : marked[kind].get(owner);
      if (!marks) marked[kind].set(interning.name(owner!), (marks = new Map()));
      putMark(marks, rel, m, interning);
      const dir = rel.slice(0, Math.max(0, rel.lastIndexOf('/')));
      markedIn.set(dir, (markedIn.get(dir) ?? 0) + 1);
    };
    const isMarked = (rel: string) => {
      const owner = ownerOf(rel);
      return markAt(owner === undefined ? shared[kind] : marked[kind].get(owner), rel) !== undefined;
    };
    // A file not produced by this build keeps its earlier mark while untouched; a touched one (or one
    // in the racy window) is hashed, and recorded only when it is still the recorded bytes.
    const carried = (rel: string, file: string, stat: Stats): FileMark | undefined => {
      const old = earlier(rel);
      if (!old || !previous || old[0] !== stat.size) return undefined;
      if (sameStat(old, stat) && !racy(previous, old)) return old;
      return hashOf(file) === old[3] ? markOf(stat, old[3]) : undefined;
    };
    // Each file the record lists (and the record itself): marked, or its environment left incomplete.
    const mark = (rel: string, recordSha: string) => {
      const owner = ownerOf(rel);
      if (owner !== undefined && !keys.has(owner)) return;
      const file = path.join(root, ...rel.split('/'));
      const stat = lstatSync(file, { throwIfNoEntry: false });
      const sha256 = rel === OWNERSHIP_FILE ? recordSha : produced.get(rel);
      const known = stat?.isFile()
        ? sha256 !== undefined
          ? markOf(stat, sha256)
          : carried(rel, file, stat)
        : undefined;
      if (known) put(owner, rel, known);
      else if (owner !== undefined) incomplete.add(owner);
    };
    // A folder without a record (capi-render never wrote it, gitops/ of the kustomize flavour): nothing of it is recorded.
    const owned = markOwnedFiles(root, mark);
    if (!owned) continue;
    // Every folder, each listed once after the files above were marked (folder-marks.ts says why).
    const scan = scanFolders(
      root,
      (rel) => owned.has(rel),
      isMarked,
      (dir) => markedIn.get(dir) ?? 0,
    );
    scanned[kind] = scan.dirs;
    // Files someone else put there are left alone by every build; recorded as they are, so that
    // only a new one (which a full build reports) makes the folder differ.
    for (const rel of scan.foreign ?? []) {
      const owner = ownerOf(rel);
      const file = path.join(root, ...rel.split('/'));
      const stat = owner !== undefined && !keys.has(owner) ? undefined : lstatSync(file, { throwIfNoEntry: false });
      const old = earlier(rel);
      const sha256 = !stat?.isFile()
        ? undefined
        : old && previous && sameStat(old, stat) && !racy(previous, old)
          ? old[3]
          : hashOf(file);
      if (stat?.isFile() && sha256 !== undefined) put(owner, rel, markOf(stat, sha256));
      else {
        unrecorded[kind].push(rel);
        if (stat?.isFile() && owner !== undefined) incomplete.add(owner);
      }
    }
  }
  const environments = new Map<string, EnvironmentRecord>();
  for (const [env, key] of [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const out = marked.out.get(env) ?? new Map();
    // Every environment has files (its kustomization.yaml at least): an entry of none would vouch for nothing.
    if (incomplete.has(env) || countMarks(out) === 0) continue;
    environments.set(env, { key, out, gitops: marked.gitops.get(env) ?? new Map() });
  }
  const kept = (kind: 'out' | 'gitops') => [shared[kind], ...[...environments.values()].map((e) => e[kind])];
  const dirs = {
    out: folderMarks(scanned.out, kept('out'), unrecorded.out),
    gitops: folderMarks(scanned.gitops, kept('gitops'), unrecorded.gitops),
  };
  return {
    version: 4,
    outDir: init.outDir,
    gitopsDir: init.gitopsDir,
    takenAt: Date.now(),
    environments,
    shared,
    dirs,
  };
}

/** sha256 (hex) of a text as written to disk (UTF-8). */
export function sha256Of(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** sha256 of the ownership records as recorded, per folder (undefined: the folder had none). */
export function recordDigests(fp: OutputFingerprint): { out: string | undefined; gitops: string | undefined } {
  return { out: markAt(fp.shared.out, OWNERSHIP_FILE)?.[3], gitops: markAt(fp.shared.gitops, OWNERSHIP_FILE)?.[3] };
}

function putMark(marks: FolderMarks, rel: string, m: FileMark, interning: Interning): void {
  const at = rel.lastIndexOf('/');
  const dir = at < 0 ? '' : rel.slice(0, at);
  let files = marks.get(dir);
  if (!files) marks.set(interning.name(dir), (files = new Map()));
  files.set(interning.name(rel.slice(at + 1)), interning.mark(m));
}

function countMarks(marks: FolderMarks): number {
  let n = 0;
  for (const files of marks.values()) n += files.size;
  return n;
}

/** One folder's marks from its parts (each file is in exactly one part). */
function mergeMarks(parts: readonly FolderMarks[]): FolderMarks {
  const merged: FolderMarks = new Map();
  for (const part of parts) {
    for (const [dir, files] of part) {
      const into = merged.get(dir);
      if (!into) merged.set(dir, new Map(files));
      else for (const [name, m] of files) into.set(name, m);
    }
  }
  return merged;
}

/** sha256 of an output file's bytes; undefined when it is not a regular file (or not there) or cannot be read. */
function hashOf(file: string): string | undefined {
  try {
    const read = readBoundedSync(file, { limit: MAX_OUTPUT_FILE_BYTES, follow: false });
    return read.outcome === 'read' ? createHash('sha256').update(read.bytes).digest('hex') : undefined;
  } catch {
    return undefined;
  }
}

function markAt(folder: FolderMarks | undefined, rel: string): FileMark | undefined {
  const at = rel.lastIndexOf('/');
  return folder?.get(at < 0 ? '' : rel.slice(0, at))?.get(rel.slice(at + 1));
}

/** An ownership record as recorded — or absent, as it was (a folder capi-render never wrote, such as gitops/ of the kustomize flavour). */
function recordMatches(fp: OutputFingerprint, root: string, marks: FolderMarks): boolean {
  const recorded = markAt(marks, OWNERSHIP_FILE);
  const file = path.join(root, OWNERSHIP_FILE);
  return recorded ? fileMatches(fp, file, recorded) : lstatSync(file, { throwIfNoEntry: false }) === undefined;
}

/**
 * Whether the files below `root/sub` ('' for the whole folder, its work folder aside) are exactly
 * the recorded ones there, each unchanged. A folder whose mark matches (folder-marks.ts) holds the
 * names it held: its files are checked by one lstat per inode and its folders are the recorded
 * ones. Any other folder is listed, each of its files lstat-ed. Anything but regular files and
 * folders (a link, a FIFO, a device) never matches.
 */
function treeMatches(fp: OutputFingerprint, root: string, folder: FolderMarks, dirs: FolderDirs, sub: string): boolean {
  let expected = 0;
  for (const [dir, files] of folder) if (sub === '' || dir === sub || dir.startsWith(`${sub}/`)) expected += files.size;
  let seen = 0;
  let children: Map<string, string[]> | undefined;
  // Inodes checked so far, by device: the mark their check confirmed.
  const inodes = new Map<number, Map<number, FileMark>>();
  const inodeMatches = (file: string, mark: FileMark, dev: number, checked: Map<number, FileMark>): boolean => {
    const ino = mark[4];
    const stat = lstatSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile() || !statMatches(fp, file, mark, stat)) return false;
    if (ino >= 0 && stat.ino === ino && stat.dev === dev) checked.set(ino, mark);
    return true;
  };
  const walk = (rel: string, abs: string): boolean => {
    const prefix = abs.endsWith(path.sep) ? abs : `${abs}${path.sep}`;
    const recorded = folder.get(rel);
    const dirMark = dirs.get(rel);
    if (dirMark && !racyTime(fp, dirMark[0])) {
      const stat = lstatSync(abs, { throwIfNoEntry: false });
      if (stat?.isDirectory() && folderUnchanged(dirMark, stat)) {
        if (recorded) {
          const dev = dirMark[2];
          let checked = inodes.get(dev);
          if (!checked) inodes.set(dev, (checked = new Map()));
          for (const [name, mark] of recorded) {
            // A hard link of an inode already checked is the same bytes: no lstat of its own.
            if ((mark[4] < 0 || checked.get(mark[4]) !== mark) && !inodeMatches(`${prefix}${name}`, mark, dev, checked))
              return false;
          }
          seen += recorded.size;
        }
        children ??= childFolders(dirs);
        const cut = rel ? rel.length + 1 : 0;
        for (const child of children.get(rel) ?? []) if (!walk(child, `${prefix}${child.slice(cut)}`)) return false;
        return true;
      }
    }
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      // A whole output folder that does not exist holds nothing (gitops/ of the kustomize flavour):
      // the count below then says whether files were recorded there. The folder asked about (an
      // environment's) must exist: a deleted environment is never its record.
      return rel === '' && (e as NodeJS.ErrnoException).code === 'ENOENT';
    }
    for (const e of entries) {
      if (!rel && e.name === WORK_DIR) continue;
      if (e.isDirectory()) {
        if (!walk(rel ? `${rel}/${e.name}` : e.name, `${prefix}${e.name}`)) return false;
      } else if (e.isFile()) {
        const mark = recorded?.get(e.name);
        if (!mark || !fileMatches(fp, `${prefix}${e.name}`, mark)) return false;
        seen++;
      } else return false;
    }
    return true;
  };
  return walk(sub, sub ? path.join(root, ...sub.split('/')) : root) && seen === expected;
}

/** Whether `file` is still the recorded bytes: by its size, times and inode (git's racy rule aside), else by its sha256. */
function fileMatches(fp: OutputFingerprint, file: string, recorded: FileMark): boolean {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  return stat?.isFile() === true && statMatches(fp, file, recorded, stat);
}

/** {@link fileMatches} for a regular file already lstat-ed. */
function statMatches(fp: OutputFingerprint, file: string, recorded: FileMark, stat: Stats): boolean {
  if (stat.size !== recorded[0]) return false;
  if (sameStat(recorded, stat) && !racy(fp, recorded)) return true;
  return hashOf(file) === recorded[3];
}

/** A regular file's mark from its lstat and the sha256 of its bytes. */
function markOf(stat: Stats, sha256: string): FileMark {
  return [stat.size, stat.mtimeMs, stat.ctimeMs, sha256, inoOf(stat)];
}

/** The inode number, or -1 when it is over 2^53 (not exact as a number: never compared). */
function inoOf(stat: Stats): number {
  return Number.isSafeInteger(stat.ino) ? stat.ino : -1;
}

/** Whether lstat says the file is as marked: size, times and inode. */
function sameStat(mark: FileMark, stat: Stats): boolean {
  return mark[0] === stat.size && mark[1] === stat.mtimeMs && mark[2] === stat.ctimeMs && mark[4] === inoOf(stat);
}

function racy(fp: OutputFingerprint, mark: FileMark): boolean {
  return racyTime(fp, mark[1]);
}

/** Whether a modification time is too close before the record to vouch for anything (git's racy rule). */
function racyTime(fp: OutputFingerprint, mtimeMs: number): boolean {
  return mtimeMs >= fp.takenAt - (mtimeMs % 1000 === 0 ? RACY_MS_WHOLE_SECONDS : RACY_MS);
}

/**
 * Reads `root`'s ownership record as written — a regular file, never through a link, bounded — a
 * piece at a time (a fleet's record is a hundred megabytes; it is never held whole), then calls
 * `mark` with the record itself and each file it lists, once each; returns those files, kept
 * compactly. Undefined, with nothing marked, when there is no record (a folder capi-render never
 * wrote, gitops/ of the kustomize flavour) or it cannot be read whole.
 */
function markOwnedFiles(root: string, mark: (rel: string, recordSha: string) => void): PathSet | undefined {
  const record = readOwnedFiles(path.join(root, OWNERSHIP_FILE));
  if (!record) return undefined;
  mark(OWNERSHIP_FILE, record.sha256);
  for (const rel of record.files) if (rel !== OWNERSHIP_FILE) mark(rel, record.sha256);
  return record.files.add(OWNERSHIP_FILE);
}
