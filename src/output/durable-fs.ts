/**
 * The file-system calls that change the disk during an output write, behind one small interface, so
 * that a test can record their order and cut the power after any of them. Reads stay plain `fs`:
 * they change nothing a crash could lose.
 *
 * Durability is drawn where SQLite draws it (unixSync, with its directory sync for a new file), not
 * where git does (git fsyncs a file — in batch mode only its write-back, then one flush — but never
 * the folder, trusting the file system to order a rename after the data it names): fsync(2) of a
 * file makes its bytes durable, and only an fsync(2) of the folder makes the name that points at
 * them durable (a new file, a rename, a removal). A rename is one change that either folder's fsync
 * makes durable (journaling file systems commit it as one transaction).
 *
 * How: every file a write staged (once per inode) and every folder it gave a name is fsynced by
 * itself, 32 calls in flight on libuv's thread pool. Measured side by side on this project's 2-core
 * ext4 VM (same run, alternating, medians of 5–7 rounds):
 *   - staging a 100-environment tree as the build does (13,701 files, 167 distinct inodes — the rest
 *     are hard links — and 601 folders): no sync 391 ms; fsync one at a time +246 ms of syncing;
 *     32 in flight +67 ms (the same as files and folders in one batch, +68 ms); one syncfs
 *     (`sync -f DIR`) +21 ms;
 *   - every file distinct (13,701 inodes, the worst case): one at a time +5.4 s; 32 in flight +2.0 s;
 *     syncfs +0.3 s;
 *   - a whole 100-environment build (median of 7, before/after): see docs/performance.md.
 * syncfs is the fastest, but it flushes every dirty page of that file system (anyone's: a CI runner's
 * image build), so its cost is not ours to bound; Node has no binding, so it would be a child process
 * of GNU coreutils (Linux only; BSD and macOS `sync` take no folder); and before Linux 5.8 it does
 * not report write-back errors. Per-file fsync flushes exactly what this write wrote, reports its
 * errors, and libuv maps it to F_FULLFSYNC on macOS. Only files whose bytes changed are staged, so
 * only they are synced; a no-op build stages nothing and syncs nothing.
 */
import { promises as fs } from 'node:fs';
import { forEachLimited, nodeDurableFs } from '../durable-replace.js';

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

/** The real file system: the durable-replace calls, but a staged file may be written over (a stage is private) and a file may be copied (EXDEV). */
export const nodeTransactionFs: TransactionFs = {
  ...nodeDurableFs,
  writeFile: (file, text) => fs.writeFile(file, text),
  copyFile: (from, to) => fs.copyFile(from, to),
};

/**
 * fsyncs `files`, then `folders` (each once, 32 in flight). Before the marker their order does not
 * matter (nothing is installed yet, so a name whose bytes were lost is discarded with its stage);
 * files first reads as SQLite's file-then-directory and cost the same as one batch.
 */
export async function syncAll(tfs: TransactionFs, files: Iterable<string>, folders: Iterable<string>): Promise<void> {
  await forEachLimited([...new Set(files)], (f) => tfs.syncFile(f));
  await forEachLimited([...new Set(folders)], (d) => tfs.syncFolder(d));
}
