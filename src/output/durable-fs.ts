/**
 * The file-system calls that change the disk during an output write, behind one small interface, so
 * that a test can record their order and cut the power after any of them. Reads stay plain `fs`:
 * they change nothing a crash could lose.
 *
 * Design notes: docs/internals.md "output/durable-fs.ts".
 */
import { promises as fs } from 'node:fs';
import { forEachLimited, nodeDurableFs } from '../durable-replace.js';

/** The changing calls the output write makes (paths absolute). */
export interface TransactionFs {
  /** Writes `text`, or its pieces in order (a fleet's ownership record is never one string). */
  writeFile(file: string, text: string | Uint8Array | Iterable<string>): Promise<void>;
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
