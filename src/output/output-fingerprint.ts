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
import { OWNERSHIP_FILE, parseOwnership } from './ownership.js';
import { WORK_DIR } from './scan-output-folder.js';

/** A file as recorded: size, mtime and ctime (ms), sha256. */
type FileMark = [size: number, mtimeMs: number, ctimeMs: number, sha256: string];
type Marks = Record<string, FileMark>;

export interface OutputFingerprint {
  version: 1;
  /** Absolute output and GitOps folders the record describes. */
  outDir: string;
  gitopsDir: string;
  /** When the record was taken (ms since the epoch). */
  takenAt: number;
  /** Environment → the inputs hash its files were rendered from. */
  environments: Record<string, string>;
  out: Marks;
  gitops: Marks;
}

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
 * The recorded fingerprint; undefined when there is none, or (with `folders`) it is of other folders.
 * Without `folders` it describes the folders capi-render.yaml named then: an environment whose
 * inputs hash matches was built with the same capi-render.yaml, so with the same folders.
 */
export function readFingerprint(file: string, folders?: { outDir: string; gitopsDir: string }, use?: CacheUse): OutputFingerprint | undefined {
  try {
    const fp = JSON.parse(readFileSync(file, 'utf8')) as OutputFingerprint;
    use?.read(file);
    const same = !folders || (fp.outDir === folders.outDir && fp.gitopsDir === folders.gitopsDir);
    return fp.version === 1 && same && typeof fp.takenAt === 'number' && fp.out && fp.gitops && fp.environments ? fp : undefined;
  } catch {
    return undefined;
  }
}

/** Best effort: without a record the next build renders everything, which only takes longer. */
export function writeFingerprint(file: string, fp: OutputFingerprint, use?: CacheUse): void {
  try {
    makePrivateDirSync(path.dirname(file));
    writePrivateFileSync(file, `${JSON.stringify(fp)}\n`);
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
  const inFolder = Object.keys(fp.out).filter((rel) => rel.startsWith(`${env}/`));
  const onDisk = listRegularFiles(fp.outDir, env);
  if (!onDisk || !sameSet(onDisk, inFolder)) return false;
  if (!inFolder.every((rel) => fileMatches(fp, fp.outDir, rel, fp.out))) return false;
  return Object.keys(fp.gitops).every((rel) => !isGitopsFileOf(rel, env) || fileMatches(fp, fp.gitopsDir, rel, fp.gitops));
}

/** Whether both folders hold exactly the recorded files, byte for byte (a no-op build). */
export function outputUnchanged(fp: OutputFingerprint): boolean {
  return (
    [
      [fp.outDir, fp.out],
      [fp.gitopsDir, fp.gitops],
    ] as const
  ).every(([root, marks]) => {
    const onDisk = listRegularFiles(root, '');
    return onDisk !== undefined && sameSet(onDisk, Object.keys(marks)) && Object.keys(marks).every((rel) => fileMatches(fp, root, rel, marks));
  });
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
  const mark = (root: string, produced: Map<string, string>, earlier: Marks | undefined): Marks => {
    const marks: Marks = {};
    let recordText: string;
    try {
      recordText = readFileSync(path.join(root, OWNERSHIP_FILE), 'utf8');
    } catch {
      return marks;
    }
    const owned = new Set([OWNERSHIP_FILE, ...parseOwnership(recordText).files]);
    const untouched = (rel: string, times: readonly [number, number, number]) => {
      const old = earlier?.[rel];
      return old && previous && sameTimes(old, times) && !racy(previous, old) ? old : undefined;
    };
    for (const rel of owned) {
      const stat = lstatSync(path.join(root, ...rel.split('/')), { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      const times: [number, number, number] = [stat.size, stat.mtimeMs, stat.ctimeMs];
      const sha256 = rel === OWNERSHIP_FILE ? sha256Of(recordText) : produced.get(rel);
      const known = sha256 !== undefined ? ([...times, sha256] as FileMark) : untouched(rel, times);
      if (known) marks[rel] = known;
    }
    // Files someone else put there are left alone by every build; recorded as they are, so that
    // only a new one (which a full build reports) makes the folder differ.
    for (const rel of listRegularFiles(root, '') ?? []) {
      if (owned.has(rel)) continue;
      const file = path.join(root, ...rel.split('/'));
      const stat = lstatSync(file, { throwIfNoEntry: false });
      if (!stat?.isFile()) continue;
      const times: [number, number, number] = [stat.size, stat.mtimeMs, stat.ctimeMs];
      const known = untouched(rel, times) ?? ([...times, createHash('sha256').update(readFileSync(file)).digest('hex')] as FileMark);
      marks[rel] = known;
    }
    return marks;
  };
  const sameFolders = previous?.outDir === init.outDir && previous.gitopsDir === init.gitopsDir;
  return {
    version: 1,
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

/** An ownership record as recorded — or absent, as it was (a folder capi-render never wrote, such as gitops/ of the kustomize flavour). */
function recordMatches(fp: OutputFingerprint, root: string, marks: Marks): boolean {
  if (marks[OWNERSHIP_FILE]) return fileMatches(fp, root, OWNERSHIP_FILE, marks);
  return lstatSync(path.join(root, OWNERSHIP_FILE), { throwIfNoEntry: false }) === undefined;
}

function fileMatches(fp: OutputFingerprint, root: string, rel: string, marks: Marks): boolean {
  const recorded = marks[rel];
  if (!recorded) return false;
  const file = path.join(root, ...rel.split('/'));
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
 * Regular files below `root/sub`, relative to root (the work folder aside; none where it does not
 * exist); undefined when anything else is there (a link, a FIFO, a device) or it cannot be read.
 */
function listRegularFiles(root: string, sub: string): string[] | undefined {
  const out: string[] = [];
  const walk = (rel: string): boolean => {
    let entries;
    try {
      entries = readdirSync(rel ? path.join(root, rel) : root, { withFileTypes: true });
    } catch (e) {
      // A folder that does not exist holds nothing (gitops/ of the kustomize flavour, a deleted environment).
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
  return walk(sub) ? out : undefined;
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const set = new Set(a);
  return b.every((x) => set.has(x));
}
