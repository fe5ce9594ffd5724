/**
 * What the last build left in the output folders, file by file, kept in the cache folder and never
 * committed: every owned file's size, modification and change times and sha256 (the ownership
 * records included), and for every environment the inputs hash its files were rendered from.
 *
 * A build may skip an environment, and a no-op build may skip everything, only when this record
 * says that the files on disk are still the bytes a build wrote: a hand-edited, deleted or added
 * file means "render it again", and the transaction then repairs it. The record lives outside the
 * repository on purpose: a pull request can edit the lock's inputs hash and rendered/ together, but
 * not this; a fresh clone has no record and renders everything.
 *
 * Checking is git's index trick: a file whose size and times are as recorded is taken as unchanged
 * without reading it; any other, and any modified just before the record was taken (where a
 * same-size edit could keep the time on a coarse clock, see {@link RACY_MS}), is hashed.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { CacheUse } from '../cache/cache-use.js';
import { makePrivateDirSync, writePrivateFileSync } from '../private-files.js';
import { isGitopsFileOf } from '../gitops/layout.js';
import { decodeFingerprint, encodeFingerprint, type FileMark, type FingerprintData, type FolderMarks } from './fingerprint-record.js';
import { OWNERSHIP_FILE, parseOwnership } from './ownership.js';
import { WORK_DIR } from './scan-output-folder.js';

/** What the last build left: both folders' files, and every environment's inputs hash (fingerprint-record.ts). */
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
 * capi-render.yaml, so with the same folders.
 */
export function readFingerprint(file: string, folders?: { outDir: string; gitopsDir: string }, use?: CacheUse): OutputFingerprint | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  use?.read(file);
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
    // Only time is lost.
  }
}

/**
 * Whether environment `env`'s files (its output folder, exactly, and its GitOps files) and both
 * ownership records are as recorded, and were rendered from `inputsHash`.
 */
export function environmentUnchanged(fp: OutputFingerprint, env: string, inputsHash: string): boolean {
  if (fp.environments[env] !== inputsHash) return false;
  if (!recordMatches(fp, fp.outDir, fp.out) || !recordMatches(fp, fp.gitopsDir, fp.gitops)) return false;
  if (!treeMatches(fp, fp.outDir, fp.out, env)) return false;
  for (const [dir, files] of fp.gitops) {
    for (const [name, mark] of files) {
      const rel = dir ? `${dir}/${name}` : name;
      if (isGitopsFileOf(rel, env) && !fileMatches(fp, path.join(fp.gitopsDir, ...rel.split('/')), mark)) return false;
    }
  }
  return true;
}

/** Whether both folders hold exactly the recorded files, byte for byte (a no-op build). */
export function outputUnchanged(fp: OutputFingerprint): boolean {
  return treeMatches(fp, fp.outDir, fp.out, '') && treeMatches(fp, fp.gitopsDir, fp.gitops, '');
}

/** What a build produced, for {@link takeFingerprint}: sha256 of every file it staged, by folder. */
export interface ProducedDigests {
  out: Map<string, string>;
  gitops: Map<string, string>;
}

/**
 * The fingerprint after a successful write. Every owned file is recorded with the digest of what
 * this build produced for it; a file this build did not produce (an environment it skipped or was
 * not asked for) keeps its earlier mark only when it is untouched since, and is otherwise left out —
 * so its environment is rendered next time. `environments` are the inputs hashes of the environments
 * this build rendered; the others keep theirs.
 */
export function takeFingerprint(init: { previous: OutputFingerprint | undefined; outDir: string; gitopsDir: string; produced: ProducedDigests; environments: Record<string, string> }): OutputFingerprint {
  const { previous } = init;
  const mark = (root: string, produced: Map<string, string>, earlier: FolderMarks | undefined): FolderMarks => {
    const marks: FolderMarks = new Map();
    const put = (rel: string, m: FileMark) => {
      const at = rel.lastIndexOf('/');
      const dir = at < 0 ? '' : rel.slice(0, at);
      let files = marks.get(dir);
      if (!files) marks.set(dir, (files = new Map()));
      files.set(rel.slice(at + 1), m);
    };
    let recordText: string;
    try {
      recordText = readFileSync(path.join(root, OWNERSHIP_FILE), 'utf8');
    } catch {
      return marks;
    }
    const owned = new Set([OWNERSHIP_FILE, ...parseOwnership(recordText).files]);
    const untouched = (rel: string, times: readonly [number, number, number]) => {
      const old = markAt(earlier, rel);
      return old && previous && sameTimes(old, times) && !racy(previous, old) ? old : undefined;
    };
    for (const rel of owned) {
      const stat = lstatSync(path.join(root, ...rel.split('/')), { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      const times: [number, number, number] = [stat.size, stat.mtimeMs, stat.ctimeMs];
      const sha256 = rel === OWNERSHIP_FILE ? sha256Of(recordText) : produced.get(rel);
      const known = sha256 !== undefined ? ([...times, sha256] as FileMark) : untouched(rel, times);
      if (known) put(rel, known);
    }
    // Files someone else put there are left alone by every build; recorded as they are, so that
    // only a new one (which a full build reports) makes the folder differ.
    for (const rel of listRegularFiles(root) ?? []) {
      if (owned.has(rel)) continue;
      const file = path.join(root, ...rel.split('/'));
      const stat = lstatSync(file, { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      const times: [number, number, number] = [stat.size, stat.mtimeMs, stat.ctimeMs];
      put(rel, untouched(rel, times) ?? ([...times, createHash('sha256').update(readFileSync(file)).digest('hex')] as FileMark));
    }
    return marks;
  };
  const sameFolders = previous?.outDir === init.outDir && previous.gitopsDir === init.gitopsDir;
  return {
    version: 2,
    outDir: init.outDir,
    gitopsDir: init.gitopsDir,
    takenAt: Date.now(),
    environments: { ...(sameFolders ? previous.environments : {}), ...init.environments },
    out: mark(init.outDir, init.produced.out, sameFolders ? previous.out : undefined),
    gitops: mark(init.gitopsDir, init.produced.gitops, sameFolders ? previous.gitops : undefined),
  };
}

/** sha256 (hex) of a text as written to disk (UTF-8). */
export function sha256Of(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** sha256 of the ownership records as recorded, per folder (undefined: the folder had none). */
export function recordDigests(fp: OutputFingerprint): { out: string | undefined; gitops: string | undefined } {
  return { out: markAt(fp.out, OWNERSHIP_FILE)?.[3], gitops: markAt(fp.gitops, OWNERSHIP_FILE)?.[3] };
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
 * the recorded ones there, each unchanged: one readdir per folder and one lstat per file. Anything
 * but regular files and folders (a link, a FIFO, a device) never matches.
 */
function treeMatches(fp: OutputFingerprint, root: string, folder: FolderMarks, sub: string): boolean {
  let expected = 0;
  for (const [dir, files] of folder) if (sub === '' || dir === sub || dir.startsWith(`${sub}/`)) expected += files.size;
  let seen = 0;
  const walk = (rel: string): boolean => {
    const abs = rel ? path.join(root, ...rel.split('/')) : root;
    let entries;
    try {
      entries = readdirSync(abs, { withFileTypes: true });
    } catch (e) {
      // A folder that does not exist holds nothing (gitops/ of the kustomize flavour, a deleted
      // environment); the count below then says whether files were recorded there.
      return (e as NodeJS.ErrnoException).code === 'ENOENT';
    }
    const recorded = folder.get(rel);
    const prefix = abs.endsWith(path.sep) ? abs : `${abs}${path.sep}`;
    for (const e of entries) {
      if (!rel && e.name === WORK_DIR) continue;
      if (e.isDirectory()) {
        if (!walk(rel ? `${rel}/${e.name}` : e.name)) return false;
      } else if (e.isFile()) {
        const mark = recorded?.get(e.name);
        if (!mark || !fileMatches(fp, `${prefix}${e.name}`, mark)) return false;
        seen++;
      } else return false;
    }
    return true;
  };
  return walk(sub) && seen === expected;
}

/** Whether `file` is still the recorded bytes: by its size and times (git's racy rule aside), else by its sha256. */
function fileMatches(fp: OutputFingerprint, file: string, recorded: FileMark): boolean {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  if (!stat?.isFile() || stat.size !== recorded[0]) return false;
  if (sameTimes(recorded, [stat.size, stat.mtimeMs, stat.ctimeMs]) && !racy(fp, recorded)) return true;
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex') === recorded[3];
  } catch {
    return false;
  }
}

function sameTimes(mark: FileMark, times: readonly [number, number, number]): boolean {
  return mark[0] === times[0] && mark[1] === times[1] && mark[2] === times[2];
}

function racy(fp: OutputFingerprint, mark: FileMark): boolean {
  return mark[1] >= fp.takenAt - (mark[1] % 1000 === 0 ? RACY_MS_WHOLE_SECONDS : RACY_MS);
}

/**
 * Regular files below `root`, relative to it (the work folder aside; none where it does not exist);
 * undefined when anything else is there (a link, a FIFO, a device) or it cannot be read.
 */
function listRegularFiles(root: string): string[] | undefined {
  const out: string[] = [];
  const walk = (rel: string): boolean => {
    let entries;
    try {
      entries = readdirSync(rel ? path.join(root, rel) : root, { withFileTypes: true });
    } catch (e) {
      return (e as NodeJS.ErrnoException).code === 'ENOENT';
    }
    for (const e of entries) {
      if (!rel && e.name === WORK_DIR) continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (!walk(child)) return false;
      } else if (e.isFile()) out.push(child);
      else return false;
    }
    return true;
  };
  return walk('') ? out : undefined;
}
