/**
 * What the last build left in the output folders, file by file, kept in the cache folder and never
 * committed: every file's size, modification and change times and sha256 (the ownership records
 * included), kept per environment with what its files were rendered from (fingerprint-record.ts).
 *
 * Design notes: docs/internals.md "output/output-fingerprint.ts".
 */
import { createHash } from 'node:crypto';
import { lstatSync, readFileSync, readdirSync, rmSync } from 'node:fs';
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
  type FolderMarks,
} from './fingerprint-record.js';
import { createInterning, type Interning } from './mark-interning.js';
import { readOwnedFiles } from './owned-files.js';
import { OWNERSHIP_FILE } from './ownership.js';
import type { PathSet } from './path-table.js';
import { WORK_DIR } from './scan-output-folder.js';

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
  if (!treeMatches(fp, fp.outDir, entry.out, env)) return false;
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
  return treeMatches(fp, fp.outDir, out, '') && treeMatches(fp, fp.gitopsDir, gitops, '');
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
  for (const kind of ['out', 'gitops'] as const) {
    const root = folders[kind];
    const produced = init.produced[kind];
    const ownerOf = (rel: string) => {
      const env = owners[kind](rel);
      return env !== undefined && all.has(env) ? env : undefined;
    };
    const earlier = (rel: string) =>
      markAt((previous && previous.environments.get(ownerOf(rel) ?? '')?.[kind]) ?? previous?.shared[kind], rel);
    const put = (owner: string | undefined, rel: string, m: FileMark) => {
      let marks = owner === undefined ? shared[kind] : marked[kind].get(owner);
      if (!marks) marked[kind].set(interning.name(owner!), (marks = new Map()));
      putMark(marks, rel, m, interning);
    };
    // A file not produced by this build keeps its earlier mark while untouched; a touched one (or one
    // in the racy window) is hashed, and recorded only when it is still the recorded bytes.
    const carried = (rel: string, file: string, times: readonly [number, number, number]): FileMark | undefined => {
      const old = earlier(rel);
      if (!old || !previous || old[0] !== times[0]) return undefined;
      if (sameTimes(old, times) && !racy(previous, old)) return old;
      return hashOf(file) === old[3] ? [times[0], times[1], times[2], old[3]] : undefined;
    };
    // Each file the record lists (and the record itself): marked, or its environment left incomplete.
    const mark = (rel: string, recordSha: string) => {
      const owner = ownerOf(rel);
      if (owner !== undefined && !keys.has(owner)) return;
      const file = path.join(root, ...rel.split('/'));
      const stat = lstatSync(file, { throwIfNoEntry: false });
      const times: [number, number, number] | undefined = stat?.isFile()
        ? [stat.size, stat.mtimeMs, stat.ctimeMs]
        : undefined;
      const sha256 = rel === OWNERSHIP_FILE ? recordSha : produced.get(rel);
      const known = times && (sha256 !== undefined ? ([...times, sha256] as FileMark) : carried(rel, file, times));
      if (known) put(owner, rel, known);
      else if (owner !== undefined) incomplete.add(owner);
    };
    // A folder without a record (capi-render never wrote it, gitops/ of the kustomize flavour): nothing of it is recorded.
    const owned = markOwnedFiles(root, mark);
    if (!owned) continue;
    // Files someone else put there are left alone by every build; recorded as they are, so that
    // only a new one (which a full build reports) makes the folder differ.
    for (const rel of listRegularFiles(root, (f) => !owned.has(f)) ?? []) {
      const owner = ownerOf(rel);
      if (owner !== undefined && !keys.has(owner)) continue;
      const file = path.join(root, ...rel.split('/'));
      const stat = lstatSync(file, { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      const times: [number, number, number] = [stat.size, stat.mtimeMs, stat.ctimeMs];
      const old = earlier(rel);
      const sha256 = old && previous && sameTimes(old, times) && !racy(previous, old) ? old[3] : hashOf(file);
      if (sha256 !== undefined) put(owner, rel, [...times, sha256]);
      else if (owner !== undefined) incomplete.add(owner);
    }
  }
  const environments = new Map<string, EnvironmentRecord>();
  for (const [env, key] of [...keys].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    const out = marked.out.get(env) ?? new Map();
    // Every environment has files (its kustomization.yaml at least): an entry of none would vouch for nothing.
    if (incomplete.has(env) || countMarks(out) === 0) continue;
    environments.set(env, { key, out, gitops: marked.gitops.get(env) ?? new Map() });
  }
  return { version: 3, outDir: init.outDir, gitopsDir: init.gitopsDir, takenAt: Date.now(), environments, shared };
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
      // A whole output folder that does not exist holds nothing (gitops/ of the kustomize flavour):
      // the count below then says whether files were recorded there. The folder asked about (an
      // environment's) must exist: a deleted environment is never its record.
      return rel === '' && (e as NodeJS.ErrnoException).code === 'ENOENT';
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
  return hashOf(file) === recorded[3];
}

function sameTimes(mark: FileMark, times: readonly [number, number, number]): boolean {
  return mark[0] === times[0] && mark[1] === times[1] && mark[2] === times[2];
}

function racy(fp: OutputFingerprint, mark: FileMark): boolean {
  return mark[1] >= fp.takenAt - (mark[1] % 1000 === 0 ? RACY_MS_WHOLE_SECONDS : RACY_MS);
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

/**
 * Regular files below `root` that `keep` accepts, relative to it (the work folder aside; none where
 * it does not exist); undefined when anything else is there (a link, a FIFO, a device) or it cannot
 * be read. A fleet's folder holds a million files: only those kept are listed.
 */
function listRegularFiles(root: string, keep: (rel: string) => boolean): string[] | undefined {
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
      } else if (e.isFile()) {
        if (keep(child)) out.push(child);
      } else return false;
    }
    return true;
  };
  return walk('') ? out : undefined;
}
