/**
 * Writes new or replaced input files (provider declarations, an overlay) into the user's repository
 * as carefully as a build writes its output: the target folders are checked first (inside the
 * repository, not .git, not an output folder, no symbolic link on the way), every file is staged
 * beside its target and then moved into place, a file that appeared meanwhile is never overwritten,
 * and a failure undoes what was already moved (replaced files come back). File-system failures are
 * `error[write]` with the path and the operating system's reason.
 *
 * Design notes: docs/internals.md "adopt/import/write-input-files.ts".
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { forEachLimited, nodeDurableFs, type DurableFs } from '../../durable-replace.js';
import { WriteError, error } from '../../errors.js';
import { realPath } from '../../config/output-location.js';
import type { Failpoint } from '../../output/apply-staged.js';
import { guarded } from '../../output/write-errors.js';

export interface InputFileWrite {
  /** Repository-relative, `/`-separated. */
  path: string;
  text: string;
  /** True to replace an existing file; otherwise an existing file is an error. */
  replaces: boolean;
  /** True when the file already holds `text`: not written, but its folder is still cleaned of a killed import's staging files. */
  unchanged?: boolean;
}

/** Places the repository's inputs must not be written to: output folders (absolute). */
export interface ForbiddenFolders {
  outputs: readonly { setting: string; folder: string }[];
}

const HINT = 'check the permissions and free space of that folder; nothing was changed';

/**
 * Why `folder` (absolute) is no place for input files, or undefined when it is fine: outside the
 * repository, in or holding `.git`, inside an output folder, or reached through a symbolic link.
 */
export async function inputFolderProblem(
  repoRoot: string,
  folder: string,
  forbidden: ForbiddenFolders,
): Promise<string | undefined> {
  const root = await realPath(repoRoot);
  const relative = path.relative(path.resolve(repoRoot), path.resolve(folder));
  if (relative.startsWith('..') || path.isAbsolute(relative)) return 'is outside the repository';
  if (relative.split(path.sep).includes('.git')) return 'is inside the .git folder';
  const link = await symlinkOnPath(repoRoot, relative);
  if (link) return `is reached through the symbolic link ${link}`;
  const real = await realPath(folder);
  for (const out of forbidden.outputs) {
    const realOut = await realPath(out.folder);
    if (real === realOut || isInside(real, realOut))
      return `is inside the ${out.setting} output folder ${path.relative(root, realOut) || '.'}, which builds replace`;
    if (isInside(realOut, real) && real !== root)
      return `holds the ${out.setting} output folder ${path.relative(root, realOut)}`;
  }
  return undefined;
}

/**
 * Writes every file or none (as far as the file system allows: see the module comment). A process
 * killed midway leaves only complete files and hidden staging files, which the next import removes;
 * files it already placed hold exactly what the next import plans, so that one writes the rest.
 * `failpoint` is the interruption tests' hook (steps `stage` and `apply`); `dfs` the power-loss tests'.
 */
export async function writeInputFiles(
  repoRoot: string,
  planned: readonly InputFileWrite[],
  failpoint: Failpoint = () => undefined,
  dfs: DurableFs = nodeDurableFs,
): Promise<void> {
  // Also where every file is already in place: a run killed after its last placement left staging files.
  await removeLeftovers(dfs, repoRoot, planned);
  const files = planned.filter((f) => !f.unchanged);
  const createdDirs: string[] = [];
  const staged: { target: string; temp: string; file: InputFileWrite }[] = [];
  const done: { target: string; backup?: string }[] = [];
  try {
    for (const file of files) {
      const target = path.join(repoRoot, ...file.path.split('/'));
      await ensureFolder(dfs, repoRoot, path.dirname(target), createdDirs);
      const temp = siblingName(target, 'new');
      // Listed before writing, so a write that fails halfway (a full disk) is removed too.
      staged.push({ target, temp, file });
      await guarded('write', target, repoRoot, () => dfs.writeFile(temp, file.text), HINT);
      failpoint('stage');
    }
    // Placed files must never point at bytes or folders a power loss could take back.
    await forEachLimited(staged, ({ target, temp }) =>
      guarded('write', target, repoRoot, () => dfs.syncFile(temp), HINT),
    );
    await forEachLimited([...new Set(createdDirs.map((d) => path.dirname(d)))], (d) =>
      guarded('write', d, repoRoot, () => dfs.syncFolder(d), HINT),
    );
    for (const { target, temp, file } of staged) {
      const existing = await fs.lstat(target).catch(() => undefined);
      if (existing && !file.replaces)
        throw new WriteError(
          error('write', `${file.path} appeared while importing; it was not overwritten`, {
            file: file.path,
            hint: 'run the import again',
          }),
        );
      if (existing && !existing.isFile())
        throw new WriteError(
          error('write', `${file.path} is not a regular file; it was not replaced`, {
            file: file.path,
            hint: 'move it away and run the import again',
          }),
        );
      if (existing) {
        const backup = siblingName(target, 'old');
        await guarded('replace', target, repoRoot, () => dfs.link(target, backup), HINT);
        await guarded('replace', target, repoRoot, () => dfs.rename(temp, target), HINT);
        done.push({ target, backup });
      } else {
        // link() creates the name only if it does not exist: a file that appeared meanwhile is kept.
        await guarded('write', target, repoRoot, () => dfs.link(temp, target), HINT);
        await dfs.rm(temp);
        done.push({ target });
      }
      failpoint('apply');
    }
    // The new names on disk before the backups (the old files) go.
    await forEachLimited([...new Set(staged.map((s) => path.dirname(s.target)))], (d) =>
      guarded('write', d, repoRoot, () => dfs.syncFolder(d), HINT),
    );
  } catch (e) {
    await undo(dfs, done, staged, createdDirs);
    throw e;
  }
  await Promise.all(done.flatMap((d) => (d.backup ? [dfs.rm(d.backup).catch(() => undefined)] : [])));
}

const LEFTOVER = /^\..+\.capi-render-import-(new|old)-\d+-[0-9a-f]{8}$/;

/** Staging files of an import that was killed, in the folders this one writes to. */
async function removeLeftovers(dfs: DurableFs, repoRoot: string, files: readonly InputFileWrite[]): Promise<void> {
  const dirs = [...new Set(files.map((f) => path.join(repoRoot, ...f.path.split('/').slice(0, -1))))];
  for (const dir of dirs) {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names) if (LEFTOVER.test(name)) await dfs.rm(path.join(dir, name)).catch(() => undefined);
  }
}

async function undo(
  dfs: DurableFs,
  done: readonly { target: string; backup?: string }[],
  staged: readonly { temp: string }[],
  createdDirs: readonly string[],
): Promise<void> {
  for (const d of [...done].reverse()) {
    if (d.backup) await dfs.rename(d.backup, d.target).catch(() => undefined);
    else await dfs.rm(d.target).catch(() => undefined);
  }
  for (const s of staged) await dfs.rm(s.temp, { force: true }).catch(() => undefined);
  for (const dir of [...createdDirs].reverse()) await dfs.rmdir(dir).catch(() => undefined);
}

/** Creates the missing folders of `dir` one by one, never through a symbolic link. */
async function ensureFolder(dfs: DurableFs, repoRoot: string, dir: string, created: string[]): Promise<void> {
  const parts = path.relative(repoRoot, dir).split(path.sep).filter(Boolean);
  let current = repoRoot;
  for (const part of parts) {
    current = path.join(current, part);
    const stat = await fs.lstat(current).catch(() => undefined);
    if (stat?.isSymbolicLink())
      throw new WriteError(
        error('write', `${path.relative(repoRoot, current)} is a symbolic link; import does not write through links`, {
          file: path.relative(repoRoot, current),
          hint: 'replace the link with a real folder',
        }),
      );
    if (stat && !stat.isDirectory())
      throw new WriteError(
        error('write', `${path.relative(repoRoot, current)} is a file where a folder is needed`, {
          file: path.relative(repoRoot, current),
          hint: 'move that file away',
        }),
      );
    if (!stat) {
      const at = current;
      await guarded('create folder', at, repoRoot, () => dfs.mkdir(at), HINT);
      created.push(at);
    }
  }
}

async function symlinkOnPath(repoRoot: string, relative: string): Promise<string | undefined> {
  let current = repoRoot;
  for (const part of relative.split(path.sep).filter(Boolean)) {
    current = path.join(current, part);
    const stat = await fs.lstat(current).catch(() => undefined);
    if (!stat) return undefined;
    if (stat.isSymbolicLink()) return path.relative(repoRoot, current);
  }
  return undefined;
}

/** A hidden name beside `target` (input readers skip dot files, so a leftover is never read). */
function siblingName(target: string, role: string): string {
  return path.join(
    path.dirname(target),
    `.${path.basename(target)}.capi-render-import-${role}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
}

function isInside(inner: string, outer: string): boolean {
  const rel = path.relative(outer, inner);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel);
}
