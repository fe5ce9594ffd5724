/**
 * Reads one named file of the repository (capi-render.yaml, an overlay.yaml, capi-render.lock) the
 * way input folders are read: only a regular file. The file is opened without blocking, so a FIFO
 * put where the file should be is refused at once instead of hanging the build until something
 * writes to it, and a folder, socket or device is refused with the path it is at.
 */
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { SpecError, error } from '../errors.js';

// O_NONBLOCK: opening a FIFO for reading returns at once (and fstat then shows what it is).
const FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

/**
 * The UTF-8 text of `<repoRoot>/<file>`, undefined when it does not exist. Throws SpecError
 * `input-path` (naming `file`) when it is not a regular file; other I/O errors as they are.
 */
export async function readRepositoryFile(repoRoot: string, file: string): Promise<string | undefined> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(path.join(repoRoot, file), FLAGS);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) {
      const what = stat.isFIFO() ? 'a FIFO (named pipe)' : stat.isDirectory() ? 'a folder' : stat.isSocket() ? 'a socket' : 'not a regular file';
      throw new SpecError(error('input-path', `${file} is ${what}, not a regular file`, { file, hint: `replace it with the file itself (capi-render reads only the repository's regular files)` }));
    }
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}
