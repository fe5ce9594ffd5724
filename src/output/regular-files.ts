/**
 * What the read-only commands (`check`, `check --live`, `diff`, `report`, `inputs`) may read of the
 * repository: its own regular files, never through a link. `check` runs on untrusted pull requests,
 * so a symbolic link planted in rendered/ (to ~/.docker/config.json, say) must not get its target
 * read, compared and printed. The output folders are listed with the scan `build` uses before it
 * writes (scan-output-folder.ts: entries typed without following links), and every entry that is
 * not a regular file — a link (to a file or a folder), a FIFO, a socket, a device — is refused
 * before anything is read. Each file is then opened without following a link and without blocking
 * (a FIFO swapped in meanwhile is refused, not waited on), and read only when it is a regular file.
 */
import { constants, promises as fs } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE } from '../config/config-types.js';
import { loadConfig } from '../config/load-config.js';
import { SpecError, error } from '../errors.js';
import { LOCK_FILE } from '../lock/lock-types.js';
import { OWNERSHIP_FILE } from './ownership.js';
import { scanOutputFolder } from './scan-output-folder.js';
import { displayPath } from './write-errors.js';

/** An output folder that holds only regular files (and folders). */
export interface RegularOutputFolder {
  /** Absolute path. */
  root: string;
  /** Every file, relative, `/`-separated, sorted; without the ownership record and the work folder. */
  files: string[];
}

/** open(2) flags: never through a final link; a FIFO opens at once instead of waiting for a writer. */
const NO_FOLLOW = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Refuses (SpecError `output-location`, naming the first path) a repository whose configuration,
 * lock or output folders (`outputDir`, `gitopsDir`) hold anything but regular files and folders,
 * or are reached through a link. The commands that only read call it before they read anything.
 */
export async function refuseIrregularRepositoryFiles(repoRoot: string): Promise<{ output: RegularOutputFolder; gitops: RegularOutputFolder }> {
  for (const file of [CONFIG_FILE, LOCK_FILE]) await refuseIrregularPath(repoRoot, path.join(repoRoot, file));
  const config = await loadConfig(repoRoot);
  const [output, gitops] = await Promise.all([regularOutputFolder(repoRoot, path.resolve(repoRoot, config.outputDir)), regularOutputFolder(repoRoot, path.resolve(repoRoot, config.gitopsDir))]);
  return { output, gitops };
}

/**
 * Lists `root` (an output folder; missing: no files), refusing a link on the way to it, any entry
 * in it that is not a regular file or a folder, and an ownership record that is not a regular file.
 */
export async function regularOutputFolder(repoRoot: string, root: string): Promise<RegularOutputFolder> {
  await refuseIrregularPath(repoRoot, root, { folder: true });
  const scan = await scanOutputFolder(root);
  if (!scan.exists) return { root, files: [] };
  const irregular = [...scan.entries].filter(([, type]) => type !== 'file').map(([rel]) => rel);
  const record = path.join(root, OWNERSHIP_FILE);
  const recordStat = await fs.lstat(record).catch(() => undefined);
  if (recordStat && !recordStat.isFile()) irregular.unshift(OWNERSHIP_FILE);
  if (irregular.length > 0) {
    const sorted = irregular.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    throw await refusal(path.join(root, ...sorted[0]!.split('/')), repoRoot, sorted.length - 1);
  }
  return { root, files: [...scan.entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/**
 * The text of `file`, opened without following a link; refused (SpecError `output-location`) when
 * it is not a regular file. `missing` is returned when it does not exist (default: the error).
 */
export async function readRegularFile(file: string, repoRoot: string): Promise<string>;
export async function readRegularFile<T>(file: string, repoRoot: string, options: { missing: T }): Promise<string | T>;
export async function readRegularFile<T>(file: string, repoRoot: string, options?: { missing: T }): Promise<string | T> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, NO_FOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' && options) return options.missing;
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EOPNOTSUPP') throw await refusal(file, repoRoot);
    throw e;
  }
  try {
    if (!(await handle.stat()).isFile()) throw await refusal(file, repoRoot);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Refuses `target` when it is a link, or (unless `folder`) not a regular file, or when a folder
 * between the repository and it is a link. Of a path outside the repository (an output folder
 * elsewhere) only the target itself is looked at; a path that does not exist is fine.
 */
async function refuseIrregularPath(repoRoot: string, target: string, { folder = false } = {}): Promise<void> {
  const rel = path.relative(repoRoot, target);
  const outside = rel === '' || rel.startsWith('..') || path.isAbsolute(rel);
  const parts = outside ? [target] : rel.split(path.sep).map((_, i, all) => path.join(repoRoot, ...all.slice(0, i + 1)));
  for (const [i, part] of parts.entries()) {
    const stat = await fs.lstat(part).catch(() => undefined);
    if (!stat) return;
    if (stat.isSymbolicLink()) throw await refusal(part, repoRoot);
    if (i < parts.length - 1) {
      if (!stat.isDirectory()) return; // a file where a folder should be: the path does not exist
    } else if (!folder && !stat.isFile()) throw await refusal(part, repoRoot);
    // An output folder that is a file is no folder of output: the scan sees it so.
  }
}

/** The refusal of `file`: what it is (a link and its target, a FIFO, …) and what to do. */
async function refusal(file: string, repoRoot: string, more = 0): Promise<SpecError> {
  const shown = displayPath(file, repoRoot);
  const stat = await fs.lstat(file).catch(() => undefined);
  const what = !stat
    ? 'is not a regular file'
    : stat.isSymbolicLink()
      ? `is a symbolic link (to ${await fs.readlink(file).catch(() => '?')})`
      : stat.isFIFO()
        ? 'is a FIFO (named pipe)'
        : stat.isSocket()
          ? 'is a socket'
          : stat.isCharacterDevice() || stat.isBlockDevice()
            ? 'is a device'
            : stat.isDirectory()
              ? 'is a folder'
              : 'is not a regular file';
  const others = more > 0 ? ` (and ${more} more such ${more === 1 ? 'entry' : 'entries'})` : '';
  return new SpecError(
    error('output-location', `${shown} ${what}${others}: capi-render reads only the repository's own regular files${stat?.isSymbolicLink() ? ', never through a link' : ''}`, {
      file: shown,
      hint: 'remove it (a build writes the real file in its place); the committed output must hold regular files only',
    }),
  );
}
