/**
 * Writing `init`'s files into the folder the user named, with the care `build` takes: never into a
 * .git folder, never through a symbolic link (a planted link could point anywhere), each file written
 * under a temporary name, fsynced and renamed into place (durable-replace.ts: a kill or a power loss
 * leaves whole files or none), and
 * failures reported as error[write] with the path and the reason.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { replaceFileDurably } from '../durable-replace.js';
import { SpecError, UsageError, error } from '../errors.js';
import { guarded } from '../output/write-errors.js';
import { realPath } from '../config/output-location.js';

/** Files to write, relative to `root`. `force` allows replacing existing regular files. */
export async function writeScaffold(root: string, files: ReadonlyMap<string, string>, force: boolean): Promise<void> {
  const real = await realPath(root);
  if (real.split(path.sep).includes('.git'))
    throw new UsageError(
      `--repo ${root} is inside a .git folder; run init in the folder that holds your repository's files`,
    );
  const existing: string[] = [];
  const links: string[] = [];
  for (const rel of files.keys()) {
    const parts = rel.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const stat = await fs.lstat(path.join(root, ...parts.slice(0, i))).catch(() => undefined);
      if (!stat) break;
      if (stat.isSymbolicLink()) links.push(parts.slice(0, i).join('/'));
      else if (i === parts.length) existing.push(rel);
    }
  }
  if (links.length > 0) {
    throw new SpecError(
      error('input-path', `init would write through symbolic links: ${[...new Set(links)].join(', ')}`, {
        hint: 'replace the links with real files or folders, or run init elsewhere',
      }),
    );
  }
  if (existing.length > 0 && !force)
    throw new SpecError(
      error('input-path', `init would overwrite ${existing.join(', ')}`, {
        hint: 'run it in an empty folder, or pass --force',
      }),
    );
  for (const [rel, text] of files) {
    const target = path.join(root, ...rel.split('/'));
    await guarded('write', target, root, () => replaceFileDurably(target, text));
  }
}
