/**
 * Replacing files in the user's repository so that a power loss at any moment leaves each file
 * either exactly as it was or exactly as written: the files `upgrade` edits, what `init`
 * and `import` write, a mirror's files and the review report. The build's output has its own
 * transaction (output/transaction.ts); this is the one-file-at-a-time case, in the foundation layer
 * because commands of several layers use it.
 *
 * Design notes: docs/internals.md "durable-replace.ts".
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** The calls that change the disk, so that a test can record their order (output/durable-fs.ts's TransactionFs fits it). */
export interface DurableFs {
  /** Creates `file` (the real one exclusively: it must not exist) with `data`. */
  writeFile(file: string, data: string | Uint8Array): Promise<void>;
  /** A hard link `created` to `existing`; fails when `created` exists. */
  link(existing: string, created: string): Promise<void>;
  /** As fs.mkdir; returns the first folder created with `recursive`. */
  mkdir(dir: string, options?: { recursive?: boolean }): Promise<string | undefined>;
  rename(from: string, to: string): Promise<void>;
  rm(target: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
  rmdir(dir: string): Promise<void>;
  /** fsync(2) of a file: its bytes are on disk. */
  syncFile(file: string): Promise<void>;
  /** fsync(2) of a folder: its entries (names created, renamed or removed) are on disk. */
  syncFolder(dir: string): Promise<void>;
}

/** Errors of an fsync of a folder that mean "this file system does not sync folders" (Windows cannot open one, some FUSE and network file systems refuse). */
const FOLDER_SYNC_UNSUPPORTED = new Set(['EISDIR', 'EPERM', 'EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EBADF']);

/** fsync(2) of `p`, a file or (`folder`) a folder; a file system that cannot sync folders is accepted as it is. */
export async function fsyncPath(p: string, folder: boolean): Promise<void> {
  let handle: fs.FileHandle;
  try {
    // A file is opened for writing: Windows flushes only a handle that may write (FlushFileBuffers).
    handle = await fs.open(p, folder ? 'r' : 'r+');
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
export const nodeDurableFs: DurableFs = {
  writeFile: (file, data) => fs.writeFile(file, data, { flag: 'wx' }),
  link: (existing, created) => fs.link(existing, created),
  mkdir: (dir, options) => fs.mkdir(dir, options),
  rename: (from, to) => fs.rename(from, to),
  rm: (target, options) => fs.rm(target, options),
  rmdir: (dir) => fs.rmdir(dir),
  syncFile: (file) => fsyncPath(file, false),
  syncFolder: (dir) => fsyncPath(dir, true),
};

/** Runs `fn` over `items` with at most `limit` calls in flight (fsyncs wait on the disk, not the CPU). */
export async function forEachLimited<T>(
  items: readonly T[],
  fn: (item: T) => Promise<void>,
  limit = 32,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/**
 * Step 1: creates `dir` and its missing parents, then fsyncs every folder that gained a new
 * folder's name (the parent of the first one created and each created one but `dir`, whose own new
 * names its writer syncs). Nothing to sync when `dir` existed.
 */
export async function makeFoldersDurably(dfs: DurableFs, dir: string): Promise<void> {
  const first = await dfs.mkdir(dir, { recursive: true });
  if (first === undefined) return;
  const holders: string[] = [];
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    holders.push(d);
    if (d === path.dirname(first) || d === path.dirname(d)) break;
  }
  await forEachLimited(holders, (d) => dfs.syncFolder(d));
}

/** A fresh hidden name beside `file` (input readers skip dot files, so a leftover is never read as an input). */
export function temporarySibling(file: string): string {
  return path.join(
    path.dirname(file),
    `.${path.basename(file)}.capi-render-${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );
}

/** How {@link replaceFilesDurably} writes. */
export interface ReplaceOptions {
  /** Default: the real file system. */
  dfs?: DurableFs;
  /** Create missing folders (step 1). Default: true; false makes a missing folder an ENOENT, as a plain write would. */
  createFolders?: boolean;
}

/**
 * Writes every file (absolute path → bytes) by the protocol of the module comment: each one ends
 * as it was or as given, never half-written or empty. A failure removes the temporary files not yet
 * renamed and rethrows; files already renamed stay replaced (callers that must undo keep originals).
 */
export async function replaceFilesDurably(
  files: ReadonlyMap<string, string | Uint8Array>,
  options: ReplaceOptions = {},
): Promise<void> {
  const dfs = options.dfs ?? nodeDurableFs;
  const folders = [...new Set([...files.keys()].map((f) => path.dirname(f)))];
  if (options.createFolders ?? true) for (const dir of folders) await makeFoldersDurably(dfs, dir);
  const pending = new Map([...files.keys()].map((file) => [file, temporarySibling(file)]));
  try {
    // Every write settles before a failure is handled, so none can create its file after the clean-up.
    let failure: { error: unknown } | undefined;
    await forEachLimited([...files], async ([file, data]) => {
      if (failure) return;
      const temp = pending.get(file)!;
      try {
        await dfs.writeFile(temp, data);
        await dfs.syncFile(temp);
      } catch (error) {
        failure ??= { error };
      }
    });
    if (failure) throw failure.error;
    for (const [file, temp] of pending) {
      await dfs.rename(temp, file);
      pending.delete(file);
    }
  } catch (e) {
    await Promise.all([...pending.values()].map((temp) => dfs.rm(temp, { force: true }).catch(() => undefined)));
    throw e;
  }
  await forEachLimited(folders, (d) => dfs.syncFolder(d));
}

/** {@link replaceFilesDurably} for one file. */
export function replaceFileDurably(
  file: string,
  data: string | Uint8Array,
  options: ReplaceOptions = {},
): Promise<void> {
  return replaceFilesDurably(new Map([[file, data]]), options);
}
