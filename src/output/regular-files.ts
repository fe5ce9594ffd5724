/**
 * The gate every command that reads a repository passes first (cli/render-options.ts): the records
 * capi-render wrote — capi-render.lock, the output folders (`outputDir`, `gitopsDir`) and their
 * ownership records — must be regular files and folders, never reached through a link. `check` runs
 * on untrusted pull requests, so a symbolic link planted in rendered/ (to ~/.docker/config.json, say)
 * must not get its target read, compared and printed; and a build must refuse what `check` refuses,
 * else a build would succeed and the check after it fail on the same tree. The output folders are
 * listed with the scan `build` uses before it writes (scan-output-folder.ts: entries typed without
 * following links), and every entry that is not a regular file — a link (to a file or a folder), a
 * FIFO, a socket, a device — is refused before anything is read. Files are then read by the
 * repository reader (src/repository-files.ts), which opens each without following a link and
 * without blocking, and reads it only when it is a regular file, up to its size limit.
 */
import path from 'node:path';
import { loadConfig } from '../config/load-config.js';
import { LOCK_FILE } from '../lock/lock-types.js';
import { readRecordFile, recordRefusal, refuseIrregularRecordPath } from '../repository-files.js';
import { OWNERSHIP_FILE } from './ownership.js';
import { scanOutputFolder } from './scan-output-folder.js';

/** An output folder that holds only regular files (and folders). */
export interface RegularOutputFolder {
  /** Absolute path. */
  root: string;
  /** Every file, relative, `/`-separated, sorted; without the ownership record and the work folder. */
  files: string[];
}

/**
 * Refuses (SpecError `output-location`, naming the first path) a repository whose lock or output
 * folders (`outputDir`, `gitopsDir`) hold anything but regular files and folders, or are reached
 * through a link. capi-render.yaml is an input: the config loader reads it by the inputs' rule.
 */
export async function refuseIrregularRepositoryFiles(
  repoRoot: string,
): Promise<{ output: RegularOutputFolder; gitops: RegularOutputFolder }> {
  refuseIrregularRecordPath(repoRoot, path.join(repoRoot, LOCK_FILE));
  const config = await loadConfig(repoRoot);
  const [output, gitops] = await Promise.all([
    regularOutputFolder(repoRoot, path.resolve(repoRoot, config.outputDir)),
    regularOutputFolder(repoRoot, path.resolve(repoRoot, config.gitopsDir)),
  ]);
  return { output, gitops };
}

/**
 * Lists `root` (an output folder; missing: no files), refusing a link on the way to it, any entry
 * in it that is not a regular file or a folder, and an ownership record that is not a regular file.
 */
export async function regularOutputFolder(repoRoot: string, root: string): Promise<RegularOutputFolder> {
  refuseIrregularRecordPath(repoRoot, root, { folder: true });
  const scan = await scanOutputFolder(root, undefined, repoRoot);
  if (!scan.exists) return { root, files: [] };
  const irregular = [...scan.entries].filter(([, type]) => type !== 'file').map(([rel]) => rel);
  if (scan.recordType !== undefined && scan.recordType !== 'file') irregular.unshift(OWNERSHIP_FILE);
  if (irregular.length > 0) {
    const sorted = irregular.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    throw recordRefusal(path.join(root, ...sorted[0]!.split('/')), repoRoot, sorted.length - 1);
  }
  return { root, files: [...scan.entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)) };
}

/**
 * The text of `file` (relative, `/`-separated) of an output folder {@link regularOutputFolder}
 * listed: opened without following a link, up to the output files' size limit; one removed or
 * replaced since the listing is refused like any other irregular entry.
 */
export async function readListedOutputFile(root: string, file: string, repoRoot: string): Promise<string> {
  const absolute = path.join(root, ...file.split('/'));
  const bytes = await readRecordFile(repoRoot, absolute, 'output', { listed: true });
  if (bytes === undefined) throw recordRefusal(absolute, repoRoot);
  return bytes.toString('utf8');
}
