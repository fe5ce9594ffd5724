/** Writes capi-render.lock atomically (temp file + rename) when its text changed. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { serializeLock } from './lock-file.js';
import { LOCK_FILE, type LockFile } from './lock-types.js';

/**
 * Returns true when the file was (re)written. `unchanged` (the lock object the build started
 * from, returned as is by nextLock) skips serialising it at all.
 */
export async function writeLockFile(repoRoot: string, lock: LockFile, previousText: string | undefined, unchanged?: LockFile): Promise<boolean> {
  if (unchanged !== undefined && lock === unchanged && previousText !== undefined) return false;
  const text = serializeLock(lock);
  if (text === previousText) return false;
  const target = path.join(repoRoot, LOCK_FILE);
  const tmp = `${target}.${process.pid}.tmp`;
  await fs.writeFile(tmp, text);
  await fs.rename(tmp, target);
  return true;
}
