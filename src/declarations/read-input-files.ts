/**
 * Reads the YAML files of an input folder (providers/, an overlay's resources). This is the I/O edge
 * of loading: it returns file texts in a stable order and refuses what must never be read — files
 * outside the repository (through symlinks or `..`), anything but regular files, non-UTF-8 text and
 * oversized files. Listing and reading are the repository reader's (src/repository-files.ts), the
 * one rule for every input.
 */
import { createHash } from 'node:crypto';
import { SpecError, error } from '../errors.js';
import { listInputFiles, readListedInput, readListedInputSync, type InputPath } from '../repository-files.js';
import { normalizeInputText } from './input-text.js';

export { MAX_INPUT_FILE_BYTES } from '../repository-files.js';

export interface InputFile {
  /** Path relative to the repository root, with `/` separators (as listed: a link's own path). */
  file: string;
  text: string;
}

/** Input files: YAML, and JSON (which is YAML; kubectl reads both), so a `.json` CR is never skipped without a word. */
export const INPUT_FILE = /\.(ya?ml|json)$/i;

/**
 * Lists and reads every `*.yaml`/`*.yml`/`*.json` file under `dir` (recursively), or `dir` itself when it is a
 * file. Files are returned sorted by their repository-relative path (code-unit order), so the result
 * never depends on the file system's listing order.
 */
export async function readInputFiles(repoRoot: string, dir: string): Promise<InputFile[]> {
  const files = listInputFiles(repoRoot, dir, INPUT_FILE);
  if (!files) throw new SpecError(error('input-path', `${dir} does not exist`, { file: dir }));
  return Promise.all(files.map(async (entry) => ({ file: entry.file, text: await readText(repoRoot, entry) })));
}

/** sha256 over the paths and texts of an input folder's files (what a build hashes to skip unchanged environments). */
export function inputTreeDigestOf(files: readonly InputFile[]): string {
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f.file}\u0000${f.text}\u0000`);
  return hash.digest('hex');
}

/**
 * {@link inputTreeDigestOf} of a folder (or file) read from disk, without parsing anything. Read
 * synchronously, for the no-op check: input folders hold a few small files, and round trips through
 * the thread pool took longer than reading them.
 */
export function inputTreeDigest(repoRoot: string, dir: string): string {
  const files = listInputFiles(repoRoot, dir, INPUT_FILE);
  if (!files) throw new SpecError(error('input-path', `${dir} does not exist`, { file: dir }));
  return inputTreeDigestOf(
    files.map((entry) => ({ file: entry.file, text: textOf(entry, readListedInputSync(repoRoot, entry)) })),
  );
}

async function readText(repoRoot: string, entry: InputPath): Promise<string> {
  return textOf(entry, await readListedInput(repoRoot, entry));
}

/** An input file's text: UTF-8 (else a SpecError naming the file), without BOM, LF line ends. */
function textOf(entry: InputPath, bytes: Buffer): string {
  try {
    return normalizeInputText(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new SpecError(
      error('input-encoding', `${entry.file} is not valid UTF-8 text`, {
        file: entry.file,
        hint: 'save the file as UTF-8',
      }),
    );
  }
}
