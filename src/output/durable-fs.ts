/**
 * The file-system calls that change the disk during an output write, behind one small interface, so
 * that a test can record their order and cut the power after any of them. Reads stay plain `fs`:
 * they change nothing a crash could lose.
 *
 * Durability is drawn where SQLite draws it (unixSync with its directory sync) and not where git's
 * default does: fsync(2) of a file makes its bytes durable, and only an fsync(2) of the folder makes
 * the name that points at them durable (a new file, a rename, a removal). A rename is one change of
 * the file system that either folder's fsync makes durable (every journaling file system commits it
 * as one transaction).
 *
 * How: every file a write staged and every folder it touched is fsynced by itself, 32 calls in flight
 * on libuv's thread pool. Measured side by side on a 2-core ext4 VM (same run, alternating, staging
 * a 100-environment tree, 13,701 files, 601 folders; medians of 5):
 *   - files as the build stages them (167 distinct inodes; the rest are hard links, see output-stage.ts):
 *     no sync 426 ms; fsync one at a time +271 ms; 32 in flight +63 ms; one syncfs (`sync -f`) +19 ms;
 *   - every file distinct (13,701 inodes, the worst case): one at a time +5.4 s; 32 in flight +2.0 s;
 *     syncfs +0.3 s.
 * syncfs is faster, but it flushes every dirty page of that file system (anyone's: a CI runner's
 * image build), so its cost is not ours to bound; Node has no binding, so it would be a child process
 * of GNU coreutils (Linux only; BSD and macOS `sync` take no folder); and before Linux 5.8 it does
 * not report write-back errors. Per-file fsync flushes exactly what this write wrote, reports its
 * errors, and libuv maps it to F_FULLFSYNC on macOS. A no-op build stages nothing and syncs nothing.
 */
import { promises as fs } from 'node:fs';

/** The changing calls the output write makes (paths absolute). */
export interface TransactionFs {
  writeFile(file: string, text: string): Promise<void>;
  /** A hard link `created` to `existing`. */
  link(existing: string, created: string): Promise<void>;
  /** As fs.mkdir; returns the first folder created with `recursive`. */
  mkdir(dir: string, options?: { recursive?: boolean; mode?: number }): Promise<string | undefined>;
  rename(from: string, to: string): Promise<void>;
  copyFile(from: string, to: string): Promise<void>;
  rm(target: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  rmdir(dir: string): Promise<void>;
  /** fsync(2) of a file: its bytes are on disk. */
  syncFile(file: string): Promise<void>;
  /** fsync(2) of a folder: its entries (names created, renamed or removed) are on disk. */
  syncFolder(dir: string): Promise<void>;
}

/** Errors of an fsync of a folder that mean "this file system does not sync folders" (Windows cannot open one, some FUSE and network file systems refuse). */
const FOLDER_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF']);

async function fsyncPath(p: string, folder: boolean): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(p, 'r');
  } catch (e) {
    if (folder && FOLDER_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) return;
    throw e;
  }
  try {
    await handle.sync();
  } catch (e) {
    if (!folder || !FOLDER_SYNC_UNSUPPORTED.has((e as NodeJS.ErrnoException).code ?? '')) throw e;
  } finally {
    await handle.close();
  }
}

/** The real file system. */
export const nodeTransactionFs: TransactionFs = {
  writeFile: (file, text) => fs.writeFile(file, text),
  link: (existing, created) => fs.link(existing, created),
  mkdir: (dir, options) => fs.mkdir(dir, options),
  rename: (from, to) => fs.rename(from, to),
  copyFile: (from, to) => fs.copyFile(from, to),
  rm: (target, options) => fs.rm(target, options),
  rmdir: (dir) => fs.rmdir(dir),
  syncFile: (file) => fsyncPath(file, false),
  syncFolder: (dir) => fsyncPath(dir, true),
};

/**
 * fsyncs `files`, then `folders` (each once, 32 in flight): files first, so that a folder's names
 * never become durable before the bytes they name (the order SQLite keeps for a new journal).
 */
export async function syncAll(tfs: TransactionFs, files: Iterable<string>, folders: Iterable<string>): Promise<void> {
  await forEachLimited([...new Set(files)], (f) => tfs.syncFile(f));
  await forEachLimited([...new Set(folders)], (d) => tfs.syncFolder(d));
}

/** Runs `fn` over `items` with at most `limit` calls in flight. */
export async function forEachLimited<T>(items: readonly T[], fn: (item: T) => Promise<void>, limit = 32): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
