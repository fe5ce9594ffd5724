/**
 * The public key of a key rule, read as every repository input is read (repository-files.ts): a
 * regular file of the repository, within the input size limit; a link is followed only while it
 * stays inside the repository (a link out could point the rule at a key outside the reviewed tree).
 */
import { RenderError } from '../../errors.js';
import { readInputFileSync } from '../../repository-files.js';
import path from 'node:path';

/** The key's PEM text, or why it cannot be read (phrased to follow "the key path/file <key> "). */
export function readVerifyKey(repoRoot: string, key: string): { pem: string } | { problem: string; missing?: boolean } {
  const problem = keyPathProblem(key);
  if (problem) return { problem: `path ${key} ${problem}` };
  let read;
  try {
    read = readInputFileSync(repoRoot, key);
  } catch (e) {
    if (e instanceof RenderError) return { problem: `file ${key} cannot be used: ${e.diagnostics[0]!.message}` };
    throw e;
  }
  if (!read) return { problem: `file ${key} does not exist in the repository`, missing: true };
  return { pem: read.bytes.toString('utf8') };
}

/** Why a `key` path is not a repository-relative path, or undefined when it is one. */
export function keyPathProblem(key: string): string | undefined {
  if (path.isAbsolute(key) || /^[A-Za-z]:[\\/]/.test(key)) return 'is an absolute path';
  const normal = path.posix.normalize(key.replace(/\\/g, '/'));
  if (normal === '..' || normal.startsWith('../')) return 'leaves the repository';
  return undefined;
}
