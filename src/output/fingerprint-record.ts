/**
 * The output fingerprint's file in the cache (output-fingerprint.ts), in a compact form: one JSON
 * record for both output folders, where each file name and each distinct file mark (size, times,
 * sha256) is written once and files refer to them by index. Files of identical content are
 * hard-linked, so their marks are identical too, and the same names recur in every environment: a
 * fleet of 1000 environments (137 000 files) is ~1.4 MB instead of ~26 MB when every file carried its
 * own path and digest, and a no-op rebuild reads and parses a tenth of the bytes.
 *
 * Design notes: docs/internals.md "output/fingerprint-record.ts".
 */
import { isGitopsFileOf } from '../gitops/layout.js';

/**
 * A file as recorded: size, mtime and ctime (ms, exactly as lstat gives them), sha256 (hex), and its
 * inode number (-1 when lstat cannot give it exactly: over 2^53). Hard links share one mark.
 */
export type FileMark = readonly [size: number, mtimeMs: number, ctimeMs: number, sha256: string, ino: number];

/**
 * A folder as recorded: mtime and ctime (ms), device and inode number. A folder whose entries were
 * not all recorded files and folders when the record was taken has mtime -1 (never matches: its
 * entries are always listed again). See output-fingerprint.ts for what a matching folder proves.
 */
export type DirMark = readonly [mtimeMs: number, ctimeMs: number, dev: number, ino: number];

/** Every folder of one output folder's tree as recorded ('' for the top, `a/b` below it; the work folder aside). */
export type FolderDirs = Map<string, DirMark>;

/** One output folder as recorded: folder ('' for the top, `a/b` below it) → file name → mark. */
export type FolderMarks = Map<string, Map<string, FileMark>>;

/** One environment's entry: what its files were rendered from, and those files in both folders. */
export interface EnvironmentRecord {
  /** What the environment was rendered from (build/run-build.ts: its inputs hash and lock entries). */
  key: string;
  /** Its files in the output folder (all below `<env>/`), foreign ones included. */
  out: FolderMarks;
  /** Its files in the GitOps folder (gitopsEnvironmentOf). */
  gitops: FolderMarks;
}

/** The fingerprint as the code uses it. */
export interface FingerprintData {
  version: 4;
  /** Absolute output and GitOps folders the record describes. */
  outDir: string;
  gitopsDir: string;
  /** When the record was taken (ms since the epoch). */
  takenAt: number;
  /** Environment → its entry; only environments the build that took the record checked. */
  environments: Map<string, EnvironmentRecord>;
  /** Files of no environment: the ownership records, the fleet's files, folders that are no environment. */
  shared: { out: FolderMarks; gitops: FolderMarks };
  /** Every folder of both trees. */
  dirs: { out: FolderDirs; gitops: FolderDirs };
}

/** The environment an output-folder file (`<env>/…`) belongs to; undefined for a file at the top. */
export function outEnvironmentOf(rel: string): string | undefined {
  const at = rel.indexOf('/');
  return at < 0 ? undefined : rel.slice(0, at);
}

/**
 * The environment a GitOps-folder file belongs to — the one gitops/layout.ts's isGitopsFileOf names
 * for it, the fleet's ApplicationSet aside (every environment's at once, so none's alone).
 */
export function gitopsEnvironmentOf(rel: string): string | undefined {
  const m = /^flux\/([^/]+)\/|^argocd\/applications\/([^/]+)\.yaml$|^secrets\/([^/]+)\.required\.yaml$/.exec(rel);
  const env = m?.[1] ?? m?.[2] ?? m?.[3];
  return env !== undefined && isGitopsFileOf(rel, env) ? env : undefined;
}

type StoredFolder = Record<string, number[]>;
type StoredDirs = Record<string, [number, number, number, number]>;

/** As stored: folders map a folder to [name index, mark index, …] pairs; environments are [name, key, out, gitops], sorted. */
interface StoredRecord {
  version: 4;
  outDir: string;
  gitopsDir: string;
  takenAt: number;
  names: string[];
  marks: [number, number, number, string, number][];
  environments: [string, string, StoredFolder, StoredFolder][];
  shared: { out: StoredFolder; gitops: StoredFolder };
  dirs: { out: StoredDirs; gitops: StoredDirs };
}

/** The record's text (one line of JSON). Folders and files are in sorted order, so equal records are equal bytes. */
export function encodeFingerprint(fp: FingerprintData): string {
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const marks: [number, number, number, string, number][] = [];
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
        pairs.push(
          indexOf(names, nameIndex, name, name),
          indexOf(marks, markIndex, m.join(' '), [m[0], m[1], m[2], m[3], m[4]]),
        );
      }
      stored[dir] = pairs;
    }
    return stored;
  };
  const environments = [...fp.environments.keys()].sort().map((env): StoredRecord['environments'][number] => {
    const e = fp.environments.get(env)!;
    return [env, e.key, folder(e.out), folder(e.gitops)];
  });
  const shared = { out: folder(fp.shared.out), gitops: folder(fp.shared.gitops) };
  const dirs = (of: FolderDirs): StoredDirs => {
    const stored: StoredDirs = {};
    for (const dir of [...of.keys()].sort()) {
      const m = of.get(dir)!;
      stored[dir] = [m[0], m[1], m[2], m[3]];
    }
    return stored;
  };
  const record: StoredRecord = {
    version: 4,
    outDir: fp.outDir,
    gitopsDir: fp.gitopsDir,
    takenAt: fp.takenAt,
    names,
    marks,
    environments,
    shared,
    dirs: { out: dirs(fp.dirs.out), gitops: dirs(fp.dirs.gitops) },
  };
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
  if (
    !isObject(r) ||
    r.version !== 4 ||
    typeof r.outDir !== 'string' ||
    typeof r.gitopsDir !== 'string' ||
    !Number.isFinite(r.takenAt)
  )
    return undefined;
  if (!Array.isArray(r.names) || !r.names.every(isFileName) || !Array.isArray(r.marks) || !r.marks.every(isMark))
    return undefined;
  if (!Array.isArray(r.environments) || !isObject(r.shared) || !isObject(r.dirs)) return undefined;
  const environments = new Map<string, EnvironmentRecord>();
  for (const entry of r.environments as unknown[]) {
    if (
      !Array.isArray(entry) ||
      entry.length !== 4 ||
      !isFileName(entry[0]) ||
      typeof entry[1] !== 'string' ||
      environments.has(entry[0] as string)
    )
      return undefined;
    const env = entry[0] as string;
    const out = decodeFolder(entry[2], r.names, r.marks, { dir: (dir) => outEnvironmentOf(`${dir}/`) === env });
    const gitops = decodeFolder(entry[3], r.names, r.marks, { file: (rel) => gitopsEnvironmentOf(rel) === env });
    if (!out || !gitops) return undefined;
    environments.set(env, { key: entry[1], out, gitops });
  }
  // A shared file of a recorded environment cannot come from a build: each file is filed once, by its path.
  const out = decodeFolder(r.shared.out, r.names, r.marks, {
    dir: (dir) => !environments.has(outEnvironmentOf(`${dir}/`) ?? ''),
  });
  const gitops = decodeFolder(r.shared.gitops, r.names, r.marks, {
    file: (rel) => !environments.has(gitopsEnvironmentOf(rel) ?? ''),
  });
  if (!out || !gitops) return undefined;
  const outDirs = decodeDirs(r.dirs.out);
  const gitopsDirs = decodeDirs(r.dirs.gitops);
  if (!outDirs || !gitopsDirs) return undefined;
  return {
    version: 4,
    outDir: r.outDir,
    gitopsDir: r.gitopsDir,
    takenAt: r.takenAt,
    environments,
    shared: { out, gitops },
    dirs: { out: outDirs, gitops: gitopsDirs },
  };
}

/**
 * Where a file may be filed: decided by its folder (`dir`: a file of the output folder belongs to
 * the environment its first segment names, the folder's; '' is the top, whose files belong to none)
 * or by its whole path (`file`).
 */
type Belongs =
  { dir: (dir: string) => boolean; file?: undefined } | { file: (rel: string) => boolean; dir?: undefined };

/** A stored folder's marks; undefined when malformed or a file is not one `belongs` accepts. */
function decodeFolder(
  stored: unknown,
  names: readonly string[],
  marks: readonly FileMark[],
  belongs: Belongs,
): FolderMarks | undefined {
  if (!isObject(stored)) return undefined;
  const folder: FolderMarks = new Map();
  for (const [dir, pairs] of Object.entries(stored)) {
    if (!(dir === '' || dir.split('/').every(isFileName)) || !Array.isArray(pairs) || pairs.length % 2 !== 0)
      return undefined;
    if (belongs.dir && !belongs.dir(dir)) return undefined;
    const files = new Map<string, FileMark>();
    for (let i = 0; i < pairs.length; i += 2) {
      const name = names[pairs[i] as number];
      const mark = marks[pairs[i + 1] as number];
      // A name twice in one folder cannot come from a listing: the record is not one a build wrote.
      if (
        !Number.isInteger(pairs[i]) ||
        !Number.isInteger(pairs[i + 1]) ||
        name === undefined ||
        mark === undefined ||
        files.has(name)
      )
        return undefined;
      if (belongs.file && !belongs.file(dir ? `${dir}/${name}` : name)) return undefined;
      files.set(name, mark);
    }
    folder.set(dir, files);
  }
  return folder;
}

/** A stored folder list; undefined when malformed. */
function decodeDirs(stored: unknown): FolderDirs | undefined {
  if (!isObject(stored)) return undefined;
  const dirs: FolderDirs = new Map();
  for (const [dir, mark] of Object.entries(stored)) {
    if (!(dir === '' || dir.split('/').every(isFileName)) || !isDirMark(mark)) return undefined;
    dirs.set(dir, mark);
  }
  return dirs;
}

function isDirMark(value: unknown): value is DirMark {
  return (
    Array.isArray(value) &&
    value.length === 4 &&
    Number.isFinite(value[0]) &&
    Number.isFinite(value[1]) &&
    Number.isSafeInteger(value[2]) &&
    Number.isSafeInteger(value[3])
  );
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
    value.length === 5 &&
    Number.isSafeInteger(value[0]) &&
    (value[0] as number) >= 0 &&
    Number.isFinite(value[1]) &&
    Number.isFinite(value[2]) &&
    typeof value[3] === 'string' &&
    /^[0-9a-f]{64}$/.test(value[3]) &&
    Number.isSafeInteger(value[4]) &&
    (value[4] as number) >= -1
  );
}
