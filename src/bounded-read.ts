/**
 * The one way capi-render opens a file it reads back: without blocking (a FIFO opens at once instead
 * of waiting for a writer), optionally without following a final link, checked with fstat on the
 * open descriptor (what was opened is what is judged, whatever the path held a moment before), and
 * read in chunks up to a limit — never more than `limit + 1` bytes, so a file that is, or becomes, a
 * stream without end (a link to /dev/zero, a growing file) costs at most the limit in memory.
 * repository-files.ts turns the outcomes into errors; this file only says what happened.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, promises as fs, readSync, type Stats } from 'node:fs';

/** What a path is, as one word for messages. */
export type FileKind = 'file' | 'folder' | 'link' | 'fifo' | 'socket' | 'device' | 'other';

/** The kind of an lstat/stat/fstat result. */
export function kindOf(stat: Stats): FileKind {
  if (stat.isFile()) return 'file';
  if (stat.isDirectory()) return 'folder';
  if (stat.isSymbolicLink()) return 'link';
  if (stat.isFIFO()) return 'fifo';
  if (stat.isSocket()) return 'socket';
  if (stat.isCharacterDevice() || stat.isBlockDevice()) return 'device';
  return 'other';
}

/** The outcome of a bounded read: the bytes, or why there are none. */
export type BoundedRead =
  | { outcome: 'read'; bytes: Buffer }
  | { outcome: 'missing' }
  /** Not a regular file (with `follow: false`, a final link is `link`). */
  | { outcome: 'irregular'; kind: FileKind }
  /** Over the limit: `size` is the size fstat gave, or (`grew`) the limit + 1 bytes read when the file grew past it. */
  | { outcome: 'too-large'; size: number; grew?: true };

export interface BoundedReadOptions {
  /** Most bytes accepted. */
  limit: number;
  /** Open through a final symbolic link (default false: a final link is `irregular`, kind `link`). */
  follow?: boolean;
}

const READ = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** Reads `file` (absolute) as described above; other I/O errors (EACCES, EIO) are thrown as they are. */
export async function readBounded(file: string, options: BoundedReadOptions): Promise<BoundedRead> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, READ | (options.follow ? 0 : NO_FOLLOW));
  } catch (e) {
    return openFailure(e, file);
  }
  try {
    const stat = await handle.stat();
    const refused = judge(stat, options.limit);
    if (refused) return refused;
    let buffer: Buffer = Buffer.allocUnsafe(Math.min(stat.size, options.limit) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > options.limit) return { outcome: 'too-large', size: length, grew: true };
        buffer = grown(buffer, options.limit);
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length > options.limit
      ? { outcome: 'too-large', size: length, grew: true }
      : { outcome: 'read', bytes: buffer.subarray(0, length) };
  } finally {
    await handle.close();
  }
}

/** {@link readBounded}, synchronously (for the no-op walks that round trips through the thread pool would slow down). */
export function readBoundedSync(file: string, options: BoundedReadOptions): BoundedRead {
  let fd: number;
  try {
    fd = openSync(file, READ | (options.follow ? 0 : NO_FOLLOW));
  } catch (e) {
    return openFailure(e, file);
  }
  try {
    const stat = fstatSync(fd);
    const refused = judge(stat, options.limit);
    if (refused) return refused;
    let buffer: Buffer = Buffer.allocUnsafe(Math.min(stat.size, options.limit) + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > options.limit) return { outcome: 'too-large', size: length, grew: true };
        buffer = grown(buffer, options.limit);
      }
      const bytesRead = readSync(fd, buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    return length > options.limit
      ? { outcome: 'too-large', size: length, grew: true }
      : { outcome: 'read', bytes: buffer.subarray(0, length) };
  } finally {
    closeSync(fd);
  }
}

/** What {@link readBoundedChunksSync} leaves: the bytes went to its callback, or why there were none. */
export type BoundedChunks = Exclude<BoundedRead, { outcome: 'read' }> | { outcome: 'read'; size: number };

/** The read's piece size: a fleet's ownership record (a hundred megabytes) is never held whole. */
const CHUNK_BYTES = 1 << 20;

/**
 * {@link readBoundedSync}, a piece at a time: `onChunk` sees the bytes in order, each piece in a
 * buffer reused by the next call (copy what must be kept). Nothing is read when fstat refuses the
 * file; a file that grows past `limit` while being read stops with `too-large` (`grew`).
 */
export function readBoundedChunksSync(
  file: string,
  options: BoundedReadOptions,
  onChunk: (bytes: Buffer) => void,
): BoundedChunks {
  let fd: number;
  try {
    fd = openSync(file, READ | (options.follow ? 0 : NO_FOLLOW));
  } catch (e) {
    return openFailure(e, file) as BoundedChunks;
  }
  try {
    const refused = judge(fstatSync(fd), options.limit);
    if (refused) return refused as BoundedChunks;
    const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
    let size = 0;
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) return { outcome: 'read', size };
      size += bytesRead;
      if (size > options.limit) return { outcome: 'too-large', size: options.limit + 1, grew: true };
      onChunk(buffer.subarray(0, bytesRead));
    }
  } finally {
    closeSync(fd);
  }
}

/** What fstat says before a byte is read: not a regular file, or already over the limit. */
function judge(stat: Stats, limit: number): BoundedRead | undefined {
  if (!stat.isFile()) return { outcome: 'irregular', kind: kindOf(stat) };
  if (stat.size > limit) return { outcome: 'too-large', size: stat.size };
  return undefined;
}

/** A file that grew while being read: twice the room, never past limit + 1. */
function grown(buffer: Buffer, limit: number): Buffer {
  const next = Buffer.allocUnsafe(Math.min(Math.max(buffer.length * 2, 64 * 1024), limit + 1));
  buffer.copy(next);
  return next;
}

/**
 * open(2) refusals that say what the path is: ELOOP (O_NOFOLLOW met a link), ENXIO (a socket, or a
 * FIFO opened for writing), EOPNOTSUPP, EISDIR — the path's own lstat names it.
 */
function openFailure(e: unknown, file: string): BoundedRead {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { outcome: 'missing' };
  if (code === 'ELOOP' || code === 'ENXIO' || code === 'EOPNOTSUPP' || code === 'EISDIR' || code === 'ENODEV') {
    const stat = lstatOrUndefined(file);
    return stat ? { outcome: 'irregular', kind: kindOf(stat) } : { outcome: 'missing' };
  }
  throw e;
}

function lstatOrUndefined(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}
