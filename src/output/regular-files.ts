/**
 * The gate every command that reads a repository passes first (cli/render-options.ts): the records
 * capi-render wrote — capi-render.lock, the output folders and their ownership records — must be
 * regular files and folders, never reached through a link. `check` runs on untrusted pull requests,
 * so a planted link must not get its target read and printed; and a build refuses what `check`
 * refuses, so the two never disagree on the same tree.
 *
 * Design notes: docs/internals.md "output/regular-files.ts".
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
