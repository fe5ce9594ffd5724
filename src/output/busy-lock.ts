/**
 * One writer at a time per repository: a file holding the writer's pid. It is written in full under
 * a private name and then hard-linked into place (link fails if the name exists), so the lock file
 * never exists without its pid — a writer killed at any moment leaves a lock that is visibly stale.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRecordFile } from '../repository-files.js';
import { SpecError, error } from '../errors.js';

/** Takes the lock at `file`; returns the function that releases it. */
export async function acquireBusyLock(file: string, what: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const mine = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    try {
      await fs.writeFile(mine, String(process.pid), { mode: 0o644 });
      await fs.link(mine, file).catch(async (e: NodeJS.ErrnoException) => {
        // A file system without hard links: an exclusive create (a kill between create and write leaves it empty, hence stale).
        if (e.code !== 'EPERM' && e.code !== 'ENOTSUP' && e.code !== 'ENOSYS') throw e;
        await fs.writeFile(file, String(process.pid), { flag: 'wx', mode: 0o644 });
      });
      return () => fs.rm(file, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
        // The writer before us removed the (then empty) folder as it finished: make it again.
        await fs.mkdir(path.dirname(file), { recursive: true });
        continue;
      }
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // A pid, read without blocking or following a link (a FIFO planted there must not hang the build).
      const read = await readRecordFile(path.dirname(file), file, 'transaction').catch(() => undefined);
      const holder = Number(read?.toString('utf8').trim() ?? '');
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new SpecError(
          error('busy', `another capi-render${holder ? ` (pid ${holder})` : ''} is writing ${what}`, {
            file,
            hint: 'wait for it to finish and run again; if no capi-render is running, delete the lock file',
          }),
        );
      }
      // The holder is gone (killed): stale.
      await fs.rm(file, { force: true });
    } finally {
      await fs.rm(mine, { force: true });
    }
  }
  throw new SpecError(
    error('busy', `could not take the write lock ${file}`, {
      file,
      hint: 'run again; if it keeps failing, delete the lock file',
    }),
  );
}

/**
 * Whether `name` (an entry beside the lock file `lockName`) is the private file of another process
 * that is taking the lock right now: cleaning the folder must leave it alone. One of a process that
 * is gone is a leftover like any other.
 */
export function isLockAttempt(name: string, lockName: string): boolean {
  if (!name.startsWith(`${lockName}.`)) return false;
  const pid = Number(name.slice(lockName.length + 1).split('.')[0]);
  return Number.isInteger(pid) && pid > 0 && pid !== process.pid && isAlive(pid);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
