/**
 * The rendered output and lock as committed at a git revision, and as they are in the working tree.
 * A revision is read in two git calls whatever the number of files: `git ls-tree -r -z` lists the
 * blobs under the output folder, `git cat-file --batch` streams them all.
 */
import path from 'node:path';
import { SpecError, error } from '../errors.js';
import { readListedOutputFile, regularOutputFolder } from '../output/regular-files.js';
import type { GitRunner } from './git-command.js';

/** Paths relative to the folder read (`/`-separated) → file text. */
export type FileTree = Map<string, string>;

/**
 * Every file under `dir` (relative to the git runner's folder) at revision `ref`. A folder the
 * revision does not have is an empty tree; a revision that does not exist is SpecError `git`.
 */
export async function readTreeAtRef(git: GitRunner, ref: string, dir: string): Promise<FileTree> {
  await verifyRef(git, ref);
  const prefix = dir.replace(/\/+$/, '');
  const listing = (await git(['ls-tree', '-r', '-z', ref, '--', prefix])).toString('utf8');
  const entries: { path: string; oid: string }[] = [];
  for (const record of listing.split('\0')) {
    // `<mode> SP <type> SP <oid> TAB <path>`
    const m = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(record);
    if (!m || m[2] !== 'blob') continue;
    const rel = path.posix.relative(prefix, m[4]!);
    if (rel.startsWith('..')) continue;
    // A committed link is a blob holding its target's path: refused like a link in the working tree.
    if (m[1] === '120000') {
      throw new SpecError(
        error(
          'output-location',
          `${ref}:${m[4]} is a symbolic link: capi-render reads only the repository's own regular files, never through a link`,
          {
            file: m[4]!,
            hint: 'the committed output must hold regular files only; compare with a revision whose output has no links',
          },
        ),
      );
    }
    entries.push({ path: rel, oid: m[3]! });
  }
  const out: FileTree = new Map();
  if (entries.length === 0) return out;
  const batch = await git(['cat-file', '--batch'], { input: entries.map((e) => `${e.oid}\n`).join('') });
  let offset = 0;
  for (const entry of entries) {
    const headerEnd = batch.indexOf(0x0a, offset);
    const header = batch.subarray(offset, headerEnd).toString('utf8');
    const size = Number(/^[0-9a-f]+ blob (\d+)$/.exec(header)?.[1]);
    if (!Number.isFinite(size))
      throw new SpecError(error('git', `git cat-file answered "${header}" for ${entry.path}`));
    out.set(entry.path, batch.subarray(headerEnd + 1, headerEnd + 1 + size).toString('utf8'));
    offset = headerEnd + 1 + size + 1;
  }
  return new Map([...out].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** One file at a revision (relative to the git runner's folder); undefined when the revision has none. */
export async function readFileAtRef(git: GitRunner, ref: string, file: string): Promise<string | undefined> {
  await verifyRef(git, ref);
  const listing = (await git(['ls-tree', '-z', ref, '--', file])).toString('utf8');
  const m = /^\d+ blob ([0-9a-f]+)\t/.exec(listing);
  return m ? (await git(['cat-file', 'blob', m[1]!])).toString('utf8') : undefined;
}

/**
 * Every file under `dir` in the working tree (missing folder: empty), never read through a link:
 * SpecError `output-location` for a link, FIFO, socket or device in it or on the way to it (shown
 * relative to `repoRoot`, default the folder holding `dir`).
 */
export async function readTreeFromDisk(dir: string, repoRoot: string = path.dirname(dir)): Promise<FileTree> {
  const out: FileTree = new Map();
  for (const rel of (await regularOutputFolder(repoRoot, dir)).files)
    out.set(rel, await readListedOutputFile(dir, rel, repoRoot));
  return out;
}

async function verifyRef(git: GitRunner, ref: string): Promise<void> {
  if (ref.startsWith('-'))
    throw new SpecError(
      error('git', `"${ref}" is not a revision`, { hint: 'pass a branch, tag or commit, e.g. --base origin/main' }),
    );
  await git(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]).catch(() => {
    throw new SpecError(
      error('git', `${ref} is not a commit of this repository`, {
        hint: 'pass a branch, tag or commit, e.g. --base origin/main (fetch it first)',
      }),
    );
  });
}
