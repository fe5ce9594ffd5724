/**
 * The public key of a key rule, read as every repository input is read: a regular file inside the
 * repository, reached without following a symbolic link (a link could point the rule at a key
 * outside the reviewed tree).
 */
import { lstatSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { keyPathProblem, ruleId, type VerifyRule } from './verify-rules.js';

/** The key's PEM text, or why it cannot be read (phrased to follow "the key path/file <key> "). */
export function readVerifyKey(repoRoot: string, key: string): { pem: string } | { problem: string; missing?: boolean } {
  const problem = keyPathProblem(key);
  if (problem) return { problem: `path ${key} ${problem}` };
  let at = repoRoot;
  const parts = key.split('/').filter((p) => p !== '' && p !== '.');
  for (let i = 0; i < parts.length; i++) {
    at = path.join(at, parts[i]!);
    const stat = lstatSync(at, { throwIfNoEntry: false });
    if (!stat) return { problem: `file ${key} does not exist in the repository`, missing: true };
    if (stat.isSymbolicLink()) return { problem: `file ${key} runs through a symbolic link (${parts.slice(0, i + 1).join('/')}): capi-render reads only the repository's own regular files` };
    if (i < parts.length - 1 ? !stat.isDirectory() : !stat.isFile()) return { problem: `file ${key} is not a regular file` };
  }
  return { pem: readFileSync(at, 'utf8') };
}

/** {@link ruleId} with the key's bytes for a key rule whose key can be read (as verification computes it). */
export function ruleIdIn(repoRoot: string, rule: VerifyRule): string {
  if (rule.key === undefined) return ruleId(rule);
  const read = readVerifyKey(repoRoot, rule.key);
  return ruleId(rule, 'pem' in read ? read.pem : undefined);
}
