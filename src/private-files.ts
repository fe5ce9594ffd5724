/**
 * Owner-only files and folders: how everything in capi-render's cache folder is written. The cache
 * lives in a home folder that other accounts may read (`~/.cache` is often 0755) and CI saves it
 * whole, so nothing in it should be readable by anyone but the user who built — files 0600,
 * folders 0700. The modes are passed explicitly at creation: a umask only ever removes bits, so
 * asking for 0600 gives 0600 whatever umask the user has.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, promises as fs, renameSync, unlinkSync, writeFileSync } from 'node:fs';

/** Mode of every folder capi-render creates in its cache. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of every file capi-render writes in its cache. */
export const PRIVATE_FILE_MODE = 0o600;

/**
 * Creates `dir` and any missing parent owner-only, and tightens `dir` itself to 0700 — older
 * versions created cache folders 0755. `dir` must be a folder capi-render owns (a subfolder of the
 * cache, never the cache root a user chose, which may be shared): existing parents are left as they
 * are, and the files inside `dir` are unreadable to others once `dir` is 0700. The chmod is best
 * effort: a folder another account owns stays as it is.
 */
export function makePrivateDirSync(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  try {
    chmodSync(dir, PRIVATE_DIR_MODE);
  } catch {
    // Best effort (see above); the build does not depend on it.
  }
}

/** {@link makePrivateDirSync}, asynchronously. */
export async function makePrivateDir(dir: string): Promise<void> {
  await fs.mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  await fs.chmod(dir, PRIVATE_DIR_MODE).catch(() => undefined);
}

/**
 * Writes `data` to `target` with mode 0600 through a temporary file in the same folder, renamed into
 * place, so a concurrent reader never sees half a file. The temporary file is owner-only from its
 * creation (`wx`: never reuses a file someone else made) and removed when the write fails.
 */
export function writePrivateFileSync(target: string, data: Uint8Array | string): void {
  const tmp = temporaryName(target);
  try {
    writeFileSync(tmp, data, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    renameSync(tmp, target);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // Never created, or already renamed.
    }
    throw e;
  }
}

/** {@link writePrivateFileSync}, asynchronously. */
export async function writePrivateFile(target: string, data: Uint8Array | string): Promise<void> {
  const tmp = temporaryName(target);
  try {
    await fs.writeFile(tmp, data, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    await fs.rename(tmp, target);
  } catch (e) {
    await fs.unlink(tmp).catch(() => undefined);
    throw e;
  }
}

function temporaryName(target: string): string {
  return `${target}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
}
