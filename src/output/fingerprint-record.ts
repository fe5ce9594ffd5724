/**
 * The output fingerprint's file in the cache (output-fingerprint.ts), in a compact form: one JSON
 * record for both output folders, where each file name and each distinct file mark (size, times,
 * sha256) is written once and files refer to them by index. Files of identical content are
 * hard-linked, so their marks are identical too, and the same names recur in every environment: a
 * fleet of 1000 environments (137 000 files) is ~1.4 MB instead of ~26 MB when every file carried its
 * own path and digest, and a no-op rebuild reads and parses a tenth of the bytes.
 *
 * Nothing is lost: decoding gives every file its exact mark back. A record that does not decode —
 * truncated, corrupted, an index out of range, an earlier version — is no record at all (undefined),
 * and a build without a record renders everything.
 */

/** A file as recorded: size, mtime and ctime (ms, exactly as lstat gives them), sha256 (hex). */
export type FileMark = readonly [size: number, mtimeMs: number, ctimeMs: number, sha256: string];

/** One output folder as recorded: folder ('' for the top, `a/b` below it) → file name → mark. */
export type FolderMarks = Map<string, Map<string, FileMark>>;

/** The fingerprint as the code uses it. */
export interface FingerprintData {
  version: 2;
  /** Absolute output and GitOps folders the record describes. */
  outDir: string;
  gitopsDir: string;
  /** When the record was taken (ms since the epoch). */
  takenAt: number;
  /** Environment → the inputs hash its files were rendered from. */
  environments: Record<string, string>;
  out: FolderMarks;
  gitops: FolderMarks;
}

/** As stored: `out`/`gitops` map a folder to [name index, mark index, …] pairs. */
interface StoredRecord {
  version: 2;
  outDir: string;
  gitopsDir: string;
  takenAt: number;
  environments: Record<string, string>;
  names: string[];
  marks: [number, number, number, string][];
  out: Record<string, number[]>;
  gitops: Record<string, number[]>;
}

/** The record's text (one line of JSON). Folders and files are in sorted order, so equal records are equal bytes. */
export function encodeFingerprint(fp: FingerprintData): string {
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const marks: [number, number, number, string][] = [];
  const markIndex = new Map<string, number>();
  const indexOf = <T>(table: T[], index: Map<string, number>, key: string, value: T) => {
    let i = index.get(key);
    if (i === undefined) index.set(key, (i = table.push(value) - 1));
    return i;
  };
  const folder = (marksOf: FolderMarks) => {
    const stored: Record<string, number[]> = {};
    for (const dir of [...marksOf.keys()].sort()) {
      const files = marksOf.get(dir)!;
      if (files.size === 0) continue;
      const pairs: number[] = [];
      for (const name of [...files.keys()].sort()) {
        const m = files.get(name)!;
        pairs.push(indexOf(names, nameIndex, name, name), indexOf(marks, markIndex, m.join(' '), [m[0], m[1], m[2], m[3]]));
      }
      stored[dir] = pairs;
    }
    return stored;
  };
  const out = folder(fp.out);
  const gitops = folder(fp.gitops);
  const record: StoredRecord = { version: 2, outDir: fp.outDir, gitopsDir: fp.gitopsDir, takenAt: fp.takenAt, environments: fp.environments, names, marks, out, gitops };
  return `${JSON.stringify(record)}\n`;
}

/** The fingerprint a record's text holds; undefined unless every part of it is well formed. */
export function decodeFingerprint(text: string): FingerprintData | undefined {
  let r: StoredRecord;
  try {
    r = JSON.parse(text) as StoredRecord;
  } catch {
    return undefined;
  }
  if (!isObject(r) || r.version !== 2 || typeof r.outDir !== 'string' || typeof r.gitopsDir !== 'string' || !Number.isFinite(r.takenAt)) return undefined;
  if (!isObject(r.environments) || !Object.values(r.environments).every((v) => typeof v === 'string')) return undefined;
  if (!Array.isArray(r.names) || !r.names.every(isFileName) || !Array.isArray(r.marks) || !r.marks.every(isMark)) return undefined;
  const out = decodeFolder(r.out, r.names, r.marks);
  const gitops = decodeFolder(r.gitops, r.names, r.marks);
  if (!out || !gitops) return undefined;
  return { version: 2, outDir: r.outDir, gitopsDir: r.gitopsDir, takenAt: r.takenAt, environments: r.environments, out, gitops };
}

function decodeFolder(stored: unknown, names: readonly string[], marks: readonly FileMark[]): FolderMarks | undefined {
  if (!isObject(stored)) return undefined;
  const folder: FolderMarks = new Map();
  for (const [dir, pairs] of Object.entries(stored)) {
    if (!(dir === '' || dir.split('/').every(isFileName)) || !Array.isArray(pairs) || pairs.length % 2 !== 0) return undefined;
    const files = new Map<string, FileMark>();
    for (let i = 0; i < pairs.length; i += 2) {
      const name = names[pairs[i] as number];
      const mark = marks[pairs[i + 1] as number];
      // A name twice in one folder cannot come from a listing: the record is not one a build wrote.
      if (!Number.isInteger(pairs[i]) || !Number.isInteger(pairs[i + 1]) || name === undefined || mark === undefined || files.has(name)) return undefined;
      files.set(name, mark);
    }
    folder.set(dir, files);
  }
  return folder;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFileName(value: unknown): boolean {
  return typeof value === 'string' && value !== '' && value !== '.' && value !== '..' && !value.includes('/');
}

function isMark(value: unknown): value is FileMark {
  return (
    Array.isArray(value) &&
    value.length === 4 &&
    Number.isSafeInteger(value[0]) &&
    (value[0] as number) >= 0 &&
    Number.isFinite(value[1]) &&
    Number.isFinite(value[2]) &&
    typeof value[3] === 'string' &&
    /^[0-9a-f]{64}$/.test(value[3])
  );
}
