/**
 * The reader of everything capi-render reads back from a repository. Two kinds of file, two rules.
 *
 * Design notes: docs/internals.md "repository-files.ts".
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { kindOf, readBounded, readBoundedSync, type BoundedRead, type FileKind } from './bounded-read.js';
import { SpecError, error } from './errors.js';

export type { FileKind } from './bounded-read.js';

/** Largest input file accepted (a compressed core-components ConfigMap is about 0.5 MiB). */
export const MAX_INPUT_FILE_BYTES = 32 * 1024 * 1024;
/**
 * Largest capi-render.lock accepted: ten thousand environments' entries are about 27 MiB, so this
 * leaves room for nine times as many.
 */
export const MAX_LOCK_FILE_BYTES = 256 * 1024 * 1024;
/**
 * Largest ownership record accepted: 100 environments list about 1 MiB of paths, ten thousand
 * about 105 MiB; this leaves room for about fifty thousand.
 */
export const MAX_OWNERSHIP_RECORD_BYTES = 512 * 1024 * 1024;
/**
 * Largest file of rendered/ or gitops/ accepted: one object each, which the Kubernetes API server
 * refuses well before this (its requests stop at 3 MiB).
 */
export const MAX_OUTPUT_FILE_BYTES = 64 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Inputs

/** An input file: the path it was named by (or listed under) and the path it really is, both repository-relative, `/`-separated. */
export interface InputPath {
  file: string;
  /** Equal to `file` unless a link on the way leads elsewhere in the repository. */
  real: string;
}

/** Where an input path leads. */
export interface InputTarget extends InputPath {
  /** What the real path is: a file, a folder, or something no input may be. */
  kind: FileKind;
  size: number;
}

/** An input file's bytes, with its two paths. */
export interface InputBytes extends InputPath {
  bytes: Buffer;
}

/**
 * Where the input path `file` (repository-relative) leads; undefined when nothing is there. Links
 * inside the repository are followed; a link out of it, a dangling link or a loop is refused.
 */
export function resolveInput(repoRoot: string, file: string): InputTarget | undefined {
  const rel = inputRelative(repoRoot, file);
  const root = realRoot(repoRoot);
  const abs = rel === '.' ? root : path.join(root, rel);
  let real: string;
  try {
    real = realpathSync.native(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      refuseDanglingLink(root, rel);
      return undefined;
    }
    if (code === 'ELOOP') throw inputLinkRefusal(rel, rel, 'a symbolic link loop');
    throw e;
  }
  if (real !== abs && !isInside(root, real))
    throw inputLinkRefusal(rel, linkLeaving(root, rel), 'a symbolic link that points outside the repository');
  const stat = statSync(real);
  return { file: rel, real: relativeTo(root, real), kind: kindOf(stat), size: stat.size };
}

/** The bytes of input `file` (repository-relative); undefined when it does not exist. */
export async function readInputFile(
  repoRoot: string,
  file: string,
  limit: number = MAX_INPUT_FILE_BYTES,
): Promise<InputBytes | undefined> {
  const target = regularInput(repoRoot, file, limit);
  if (!target) return undefined;
  return inputOutcome(target, await readBounded(path.join(realRoot(repoRoot), target.real), { limit }), limit);
}

/** {@link readInputFile}, synchronously. */
export function readInputFileSync(
  repoRoot: string,
  file: string,
  limit: number = MAX_INPUT_FILE_BYTES,
): InputBytes | undefined {
  const target = regularInput(repoRoot, file, limit);
  if (!target) return undefined;
  return inputOutcome(target, readBoundedSync(path.join(realRoot(repoRoot), target.real), { limit }), limit);
}

/**
 * The bytes of a file {@link listInputFiles} found (its real path is opened directly). Anything the
 * listing did not foresee — the file replaced meanwhile — is judged again from its listed path.
 */
export async function readListedInput(
  repoRoot: string,
  entry: InputPath,
  limit: number = MAX_INPUT_FILE_BYTES,
): Promise<Buffer> {
  const read = await readBounded(path.join(realRoot(repoRoot), entry.real), { limit });
  if (read.outcome === 'read') return read.bytes;
  const again = await readInputFile(repoRoot, entry.file, limit);
  if (!again)
    throw new SpecError(
      error('input-path', `${entry.file} does not exist (it was removed while capi-render read the inputs)`, {
        file: entry.file,
      }),
    );
  return again.bytes;
}

/** {@link readListedInput}, synchronously. */
export function readListedInputSync(repoRoot: string, entry: InputPath, limit: number = MAX_INPUT_FILE_BYTES): Buffer {
  const read = readBoundedSync(path.join(realRoot(repoRoot), entry.real), { limit });
  if (read.outcome === 'read') return read.bytes;
  const again = readInputFileSync(repoRoot, entry.file, limit);
  if (!again)
    throw new SpecError(
      error('input-path', `${entry.file} does not exist (it was removed while capi-render read the inputs)`, {
        file: entry.file,
      }),
    );
  return again.bytes;
}

/**
 * The input files under `dir` (repository-relative) whose names match `name`, recursively — or
 * `dir` itself when it is a file (whatever its name); undefined when `dir` does not exist. Entries
 * whose names start with `.` are skipped. Links inside the repository are followed (to files and to
 * folders); a link out of it, a dangling one, or one to a folder that holds it (`..`, `.`: the walk
 * would never end) is refused, whatever its name. An entry named like an input file is one: a FIFO,
 * socket or device with a matching name is refused, and so is a folder whose name matches
 * `fileNames` (default `name`; a folder `core.yaml` stands where a file was meant). Sorted by `file`
 * (code-unit order).
 */
export function listInputFiles(
  repoRoot: string,
  dir: string,
  name: RegExp,
  fileNames: RegExp = name,
): InputPath[] | undefined {
  const start = resolveInput(repoRoot, dir);
  if (!start) return undefined;
  if (start.kind === 'file') return [{ file: start.file, real: start.real }];
  if (start.kind !== 'folder') throw notRegularInput(start.file, start.kind);
  const root = realRoot(repoRoot);
  const out: InputPath[] = [];
  const walk = (rel: string, real: string, stack: readonly string[]): void => {
    const entries = readdirSync(real === '.' ? root : path.join(root, real), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const childRel = join(rel, entry.name);
      const childReal = join(real, entry.name);
      if (entry.isDirectory()) {
        if (fileNames.test(entry.name)) throw notRegularInput(childRel, 'folder');
        walk(childRel, childReal, [...stack, childReal]);
      } else if (entry.isFile()) {
        if (name.test(entry.name)) out.push({ file: childRel, real: childReal });
      } else if (entry.isSymbolicLink()) {
        const target = resolveInput(repoRoot, childRel);
        if (!target) continue; // removed meanwhile
        if (target.kind === 'folder') {
          if (fileNames.test(entry.name)) throw notRegularInput(childRel, 'folder');
          if (stack.some((folder) => encloses(target.real, folder))) {
            throw new SpecError(
              error(
                'input-path',
                `${childRel} is a symbolic link to ${target.real === '.' ? 'the repository root' : target.real}, a folder that holds it: reading it would never end`,
                {
                  file: childRel,
                  hint: 'link to a folder beside it instead, or remove the link',
                },
              ),
            );
          }
          walk(childRel, target.real, [...stack, target.real]);
        } else if (name.test(entry.name)) {
          if (target.kind !== 'file') throw notRegularInput(childRel, target.kind);
          out.push({ file: childRel, real: target.real });
        }
      } else if (name.test(entry.name)) {
        throw notRegularInput(childRel, kindOf(lstatSync(path.join(root, childReal))));
      }
    }
  };
  walk(start.file, start.real, [start.real]);
  return out.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Every path the inputs are known by (named and real), deduplicated and sorted: what the lock records. */
export function inputPathsOf(entries: readonly InputPath[]): string[] {
  const all = new Set<string>();
  for (const e of entries) {
    all.add(e.file);
    all.add(e.real);
  }
  return [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function regularInput(repoRoot: string, file: string, limit: number): InputTarget | undefined {
  const target = resolveInput(repoRoot, file);
  if (!target) return undefined;
  if (target.kind !== 'file') throw notRegularInput(target.file, target.kind);
  if (target.size > limit) throw inputTooLarge(target.file, target.size, limit);
  return target;
}

/** A regular file removed between its stat and its open reads as missing, as it would a moment later. */
function inputOutcome(target: InputTarget, read: BoundedRead, limit: number): InputBytes | undefined {
  switch (read.outcome) {
    case 'read':
      return { file: target.file, real: target.real, bytes: read.bytes };
    case 'missing':
      return undefined;
    case 'irregular':
      throw notRegularInput(target.file, read.kind);
    case 'too-large':
      throw inputTooLarge(target.file, read.grew ? `more than ${limit}` : read.size, limit);
  }
}

/**
 * `file` as a normalised repository-relative path (an absolute one taken relative to the repository);
 * refused when it leaves the repository by its own `..` or is absolute elsewhere.
 */
function inputRelative(repoRoot: string, file: string): string {
  const given = path.isAbsolute(file) ? path.relative(path.resolve(repoRoot), file) : file;
  const rel = path.posix.normalize(given.split(path.sep).join('/')).replace(/\/+$/, '') || '.';
  if (rel === '..' || rel.startsWith('../') || path.isAbsolute(given)) {
    throw new SpecError(
      error('input-path', `${file} is outside the repository`, {
        file,
        hint: 'inputs must live inside the repository',
      }),
    );
  }
  return rel;
}

/** The first component of `rel` whose real path leaves the repository (a link). */
function linkLeaving(root: string, rel: string): string {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    try {
      if (!isInside(root, realpathSync.native(path.join(root, prefix)))) return prefix;
    } catch {
      return prefix;
    }
  }
  return rel;
}

/** Refuses `rel` when a link on its way points at nothing; returns when it is simply missing. */
function refuseDanglingLink(root: string, rel: string): void {
  const parts = rel.split('/');
  for (let i = 1; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join('/');
    const at = path.join(root, prefix);
    let stat;
    try {
      stat = lstatSync(at);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) {
      let real: string;
      try {
        real = realpathSync.native(at);
      } catch {
        throw inputLinkRefusal(
          rel,
          prefix,
          `a symbolic link that points to nothing (${readlinkSync(at)} does not exist)`,
        );
      }
      if (!isInside(root, real))
        throw inputLinkRefusal(rel, prefix, 'a symbolic link that points outside the repository');
    } else if (!stat.isDirectory()) return;
  }
}

function inputLinkRefusal(rel: string, via: string, what: string): SpecError {
  const message = via === rel ? `${rel} is ${what}` : `${rel} is reached through ${via}, ${what}`;
  return new SpecError(
    error('input-path', message, {
      file: rel,
      hint: 'inputs must live inside the repository: copy the file in instead of linking to it, or link to a file of the repository',
    }),
  );
}

function notRegularInput(rel: string, kind: FileKind): SpecError {
  const what = kind === 'other' ? 'not a regular file' : `${describeKind(kind)}, not a regular file`;
  return new SpecError(
    error('input-path', `${rel} is ${what}`, {
      file: rel,
      hint: "replace it with the file itself (capi-render reads only the repository's regular files)",
    }),
  );
}

function inputTooLarge(rel: string, size: number | string, limit: number): SpecError {
  return new SpecError(
    error('yaml-limit', `${rel} is ${size} bytes, over the ${limit}-byte limit for an input file`, { file: rel }),
  );
}

// ---------------------------------------------------------------------------------------------
// Records

/** What capi-render wrote and reads back; `transaction`: the files of its write folder (.capi-render-write/). */
export type RecordKind = 'lock' | 'ownership' | 'output' | 'transaction';

const RECORDS: Record<RecordKind, { limit: number; what: string }> = {
  lock: { limit: MAX_LOCK_FILE_BYTES, what: 'capi-render.lock' },
  ownership: { limit: MAX_OWNERSHIP_RECORD_BYTES, what: 'an ownership record' },
  output: { limit: MAX_OUTPUT_FILE_BYTES, what: 'a file of the output' },
  // A write's plan and commit record list the paths it changes: no larger than the records it rewrites.
  transaction: { limit: MAX_OWNERSHIP_RECORD_BYTES, what: "a record of capi-render's write transaction" },
};

export interface RecordReadOptions {
  /**
   * The caller listed `file` with a scan that follows no link (regular-files.ts, scan-output-folder.ts):
   * the folders on its way need no second look; the file itself is judged when opened.
   */
  listed?: boolean;
}

/**
 * The bytes of record `file` (absolute) of the repository `repoRoot`; undefined when it does not
 * exist. Refused (SpecError `output-location`, or `yaml-limit` over its limit) when it, or a
 * folder between the repository and it, is a link, or it is not a regular file.
 */
export async function readRecordFile(
  repoRoot: string,
  file: string,
  kind: RecordKind,
  options: RecordReadOptions = {},
): Promise<Buffer | undefined> {
  if (!options.listed) refuseIrregularRecordPath(repoRoot, file);
  return recordOutcome(await readBounded(file, { limit: RECORDS[kind].limit }), file, repoRoot, kind);
}

/** {@link readRecordFile}, synchronously. */
export function readRecordFileSync(
  repoRoot: string,
  file: string,
  kind: RecordKind,
  options: RecordReadOptions = {},
): Buffer | undefined {
  if (!options.listed) refuseIrregularRecordPath(repoRoot, file);
  return recordOutcome(readBoundedSync(file, { limit: RECORDS[kind].limit }), file, repoRoot, kind);
}

/**
 * Refuses `target` when it is a link, or (unless `folder`) not a regular file, or when a folder
 * between the repository and it is a link. Of a path outside the repository (an output folder
 * elsewhere) only the target itself is looked at; a path that does not exist is fine.
 */
export function refuseIrregularRecordPath(
  repoRoot: string,
  target: string,
  { folder = false }: { folder?: boolean } = {},
): void {
  const rel = path.relative(repoRoot, target);
  const outside = rel === '' || rel.startsWith('..') || path.isAbsolute(rel);
  const parts = outside
    ? [target]
    : rel.split(path.sep).map((_, i, all) => path.join(repoRoot, ...all.slice(0, i + 1)));
  for (const [i, part] of parts.entries()) {
    let stat;
    try {
      stat = lstatSync(part);
    } catch {
      return;
    }
    if (stat.isSymbolicLink()) throw recordRefusal(part, repoRoot);
    if (i < parts.length - 1) {
      if (!stat.isDirectory()) return; // a file where a folder should be: the path does not exist
    } else if (!folder && !stat.isFile()) throw recordRefusal(part, repoRoot);
    // An output folder that is a file is no folder of output: the scan sees it so.
  }
}

/** The refusal of record `file`: what it is (a link and its target, a FIFO, …) and what to do. */
export function recordRefusal(file: string, repoRoot: string, more = 0): SpecError {
  const shown = displayPath(file, repoRoot);
  let stat;
  try {
    stat = lstatSync(file);
  } catch {
    stat = undefined;
  }
  const link = stat?.isSymbolicLink() ?? false;
  const what = !stat
    ? 'is not a regular file'
    : link
      ? `is a symbolic link (to ${linkText(file)})`
      : `is ${describeKind(kindOf(stat))}`;
  const others = more > 0 ? ` (and ${more} more such ${more === 1 ? 'entry' : 'entries'})` : '';
  return new SpecError(
    error(
      'output-location',
      `${shown} ${what}${others}: capi-render reads only the repository's own regular files${link ? ', never through a link' : ''}`,
      {
        file: shown,
        hint: 'remove it (a build writes the real file in its place); the committed output must hold regular files only',
      },
    ),
  );
}

function recordOutcome(read: BoundedRead, file: string, repoRoot: string, kind: RecordKind): Buffer | undefined {
  switch (read.outcome) {
    case 'read':
      return read.bytes;
    case 'missing':
      return undefined;
    case 'irregular':
      throw recordRefusal(file, repoRoot);
    case 'too-large': {
      const shown = displayPath(file, repoRoot);
      const { limit, what } = RECORDS[kind];
      throw new SpecError(
        error(
          'yaml-limit',
          `${shown} is ${read.grew ? `more than ${limit}` : read.size} bytes, over the ${limit}-byte limit for ${what}`,
          {
            file: shown,
            hint: 'capi-render never writes a file this large: restore it from git, or remove it and run capi-render build',
          },
        ),
      );
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Shared

/** Repository-relative when inside the repository, absolute otherwise. */
export function displayPath(file: string, repoRoot: string): string {
  const rel = path.relative(repoRoot, file);
  return rel && !rel.startsWith('..') && !path.isAbsolute(rel)
    ? rel.split(path.sep).join('/')
    : rel === ''
      ? '.'
      : file;
}

/** "a FIFO (named pipe)", "a folder", …: what a path is, for messages. */
export function describeKind(kind: FileKind): string {
  switch (kind) {
    case 'file':
      return 'a regular file';
    case 'folder':
      return 'a folder';
    case 'link':
      return 'a symbolic link';
    case 'fifo':
      return 'a FIFO (named pipe)';
    case 'socket':
      return 'a socket';
    case 'device':
      return 'a device';
    case 'other':
      return 'not a regular file';
  }
}

function linkText(file: string): string {
  try {
    return readlinkSync(file);
  } catch {
    return '?';
  }
}

/** The repository root's real path (links resolved), so that "inside" compares real paths. */
function realRoot(repoRoot: string): string {
  try {
    return realpathSync.native(repoRoot);
  } catch {
    return path.resolve(repoRoot);
  }
}

function relativeTo(root: string, real: string): string {
  return path.relative(root, real).split(path.sep).join('/') || '.';
}

function join(rel: string, name: string): string {
  return rel === '.' ? name : `${rel}/${name}`;
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** Whether repository-relative folder `outer` is `inner` or one of its parents. */
function encloses(outer: string, inner: string): boolean {
  return outer === '.' || inner === outer || inner.startsWith(`${outer}/`);
}
