/**
 * Reads the YAML files of an input folder (providers/, an overlay's resources). This is the I/O edge
 * of loading: it returns file texts in a stable order and refuses what must never be read — files
 * outside the repository (through symlinks or `..`), non-UTF-8 text and oversized files.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SpecError, error } from '../errors.js';
import { normalizeInputText } from './input-text.js';

export interface InputFile {
  /** Path relative to the repository root, with `/` separators. */
  file: string;
  text: string;
}

/** Largest input file accepted (a compressed core-components ConfigMap is about 0.5 MiB). Default 32 MiB. */
export const MAX_INPUT_FILE_BYTES = 32 * 1024 * 1024;

/** Input files: YAML, and JSON (which is YAML; kubectl reads both), so a `.json` CR is never skipped without a word. */
export const INPUT_FILE = /\.(ya?ml|json)$/i;

/**
 * Lists and reads every `*.yaml`/`*.yml`/`*.json` file under `dir` (recursively), or `dir` itself when it is a
 * file. Files are returned sorted by their repository-relative path (code-unit order), so the result
 * never depends on the file system's listing order.
 */
export async function readInputFiles(repoRoot: string, dir: string): Promise<InputFile[]> {
  const root = await fs.realpath(repoRoot);
  const start = path.resolve(root, dir);
  const files: string[] = [];
  await collect(root, start, files, true);
  files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(files.map(async (file) => ({ file, text: await readText(root, file) })));
}

/** sha256 over the paths and texts of an input folder's files (what a build hashes to skip unchanged environments). */
export function inputTreeDigestOf(files: readonly InputFile[]): string {
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f.file}\u0000${f.text}\u0000`);
  return hash.digest('hex');
}

/** {@link inputTreeDigestOf} of a folder (or file) read from disk, without parsing anything. */
export async function inputTreeDigest(repoRoot: string, dir: string): Promise<string> {
  return inputTreeDigestOf(await readInputFiles(repoRoot, dir));
}

async function collect(root: string, target: string, out: string[], explicit: boolean): Promise<void> {
  const rel = relativeInside(root, target);
  let stat;
  try {
    stat = await fs.lstat(target);
  } catch {
    throw new SpecError(error('input-path', `${rel} does not exist`, { file: rel }));
  }
  if (stat.isSymbolicLink()) {
    const real = await fs.realpath(target).catch(() => undefined);
    if (real === undefined || !isInside(root, real)) {
      throw new SpecError(
        error('input-path', `${rel} is a symbolic link that points outside the repository`, {
          file: rel,
          hint: 'inputs must live inside the repository; copy the file in instead of linking to it',
        }),
      );
    }
    stat = await fs.stat(real);
  }
  if (stat.isDirectory()) {
    const entries = await fs.readdir(target);
    entries.sort();
    for (const entry of entries) {
      if (entry.startsWith('.')) continue;
      await collect(root, path.join(target, entry), out, false);
    }
  } else if (stat.isFile() && (explicit || INPUT_FILE.test(target))) {
    out.push(rel);
  }
}

async function readText(root: string, rel: string): Promise<string> {
  const absolute = path.join(root, rel);
  const stat = await fs.stat(absolute);
  if (stat.size > MAX_INPUT_FILE_BYTES) {
    throw new SpecError(error('yaml-limit', `${rel} is ${stat.size} bytes, over the ${MAX_INPUT_FILE_BYTES}-byte limit for an input file`, { file: rel }));
  }
  const bytes = await fs.readFile(absolute);
  try {
    return normalizeInputText(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw new SpecError(error('input-encoding', `${rel} is not valid UTF-8 text`, { file: rel, hint: 'save the file as UTF-8' }));
  }
}

function relativeInside(root: string, target: string): string {
  if (!isInside(root, target)) {
    throw new SpecError(error('input-path', `${target} is outside the repository ${root}`, { file: target }));
  }
  return path.relative(root, target).split(path.sep).join('/') || '.';
}

function isInside(root: string, target: string): boolean {
  const rel = path.relative(root, target);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}
