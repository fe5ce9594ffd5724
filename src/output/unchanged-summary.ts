/** What a build that changed nothing reports: how much is in place, counted from the ownership records. */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { refuseIrregularRecordPath } from '../repository-files.js';
import { ownedFilesDigest, readOwnedFiles, type OwnedFiles } from './owned-files.js';
import { OWNERSHIP_FILE } from './ownership.js';
import type { TreeSummary } from './transaction.js';
import type { WrittenRenderResult } from './write-summary.js';

/** An ownership record's digest and how many files it lists (so a later count needs no parse). */
export interface RecordCount {
  sha256: string;
  files: number;
}

/**
 * A write that changed nothing (a no-op build reads nothing but the records). `known` counts of
 * records with the same digest are taken as they are: a record of 10 000 lines takes a while to parse.
 * `counted` limits the count to some files of each folder (a build of some environments).
 */
export async function unchangedSummary(
  outDir: string,
  gitopsDir: string,
  known: readonly RecordCount[] = [],
  counted?: { out: (file: string) => boolean; gitops: (file: string) => boolean },
): Promise<WrittenRenderResult> {
  const count = async (dir: string, filter?: (file: string) => boolean) =>
    filter ? countSome(dir, filter) : (await countRecord(dir, known)).files;
  const gitops: TreeSummary = {
    root: gitopsDir,
    written: [],
    unchanged: await count(gitopsDir, counted?.gitops),
    removed: [],
    foreign: [],
  };
  return {
    outDir,
    written: [],
    unchanged: await count(outDir, counted?.out),
    removed: [],
    foreign: [],
    gitops,
    lockWritten: false,
    retired: [],
  };
}

/**
 * The same summary for a no-op whose ownership records the output fingerprint has just confirmed on
 * disk: `digests` are their sha256 as recorded (undefined: a folder with none, which counts 0). The
 * counts come from `known` without reading the records again (13 700 lines of 100 environments are
 * ~1 MB to read and hash); a digest `known` lacks is counted from the file as usual.
 */
export async function confirmedSummary(
  outDir: string,
  gitopsDir: string,
  known: readonly RecordCount[],
  digests: { out: string | undefined; gitops: string | undefined },
): Promise<WrittenRenderResult> {
  const count = (digest: string | undefined) =>
    digest === undefined ? 0 : known.find((k) => k.sha256 === digest)?.files;
  const out = count(digests.out);
  const gitopsFiles = count(digests.gitops);
  if (out === undefined || gitopsFiles === undefined) return unchangedSummary(outDir, gitopsDir, known);
  const gitops: TreeSummary = { root: gitopsDir, written: [], unchanged: gitopsFiles, removed: [], foreign: [] };
  return { outDir, written: [], unchanged: out, removed: [], foreign: [], gitops, lockWritten: false, retired: [] };
}

async function countSome(dir: string, filter: (file: string) => boolean): Promise<number> {
  let count = 0;
  for (const file of ownedFilesOf(dir)?.files ?? []) if (filter(file)) count++;
  return count;
}

/** The record of the output folder `dir`, counted. */
export async function countRecord(dir: string, known: readonly RecordCount[] = []): Promise<RecordCount> {
  // A fleet's record is a hundred megabytes: when a count may already be known (a no-op), it is
  // only hashed first, and its files are collected (compactly) only when the count is not known.
  if (known.length > 0) {
    const sha256 = whenReadable(dir, ownedFilesDigest) ?? EMPTY_SHA256;
    const seen = known.find((k) => k.sha256 === sha256);
    if (seen) return seen;
  }
  const record = ownedFilesOf(dir);
  return record ? { sha256: record.sha256, files: record.files.size } : { sha256: EMPTY_SHA256, files: 0 };
}

/** The sha256 of no bytes: what a folder without a record (or with one that cannot be read) counts as. */
const EMPTY_SHA256 = createHash('sha256').update('').digest('hex');

/** The files of `dir`'s ownership record; undefined when it has none that can be read (as with {@link whenReadable}). */
function ownedFilesOf(dir: string): OwnedFiles | undefined {
  return whenReadable(dir, readOwnedFiles);
}

/**
 * `read` of `dir`'s ownership record; undefined when the path to it is refused (a link on the way)
 * or reading fails (EACCES, EIO): nothing is counted, as for a record that is not a regular file
 * (the build that wrote it, or the no-op that confirmed it, has refused such a one already).
 */
function whenReadable<T>(dir: string, read: (file: string) => T | undefined): T | undefined {
  const file = path.join(dir, OWNERSHIP_FILE);
  try {
    refuseIrregularRecordPath(path.dirname(dir), file);
    return read(file);
  } catch {
    return undefined;
  }
}
