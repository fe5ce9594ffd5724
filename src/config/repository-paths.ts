/**
 * `repositories[].path` of capi-render.yaml must name a folder that exists. A missing one used to be
 * skipped, so a typo, a Windows path or an absolute path written on another machine surfaced later
 * as an unrelated network error (offline) or quietly bypassed the local repository (online). Now it
 * is an error at its line, with the closest existing path when a folder name is mistyped.
 *
 * Design notes: docs/internals.md "config/repository-paths.ts".
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { error, warning, type Diagnostic } from '../errors.js';
import { suggestField } from '../declarations/schema/suggest-field.js';
import type { LocalRepositoryConfig } from './config-types.js';
import { locateConfigSetting } from './load-config.js';
import { isInside } from './output-location.js';

const LAYOUT = 'a clusterctl local repository: <root>/<provider-label>/<version>/<file>';

/**
 * Errors for repositories whose path is missing or not a folder, warnings for absolute paths into
 * the repository. `filling` is a folder being created by this very command (`mirror --to`), which a
 * repositories entry may name before it exists.
 */
export function repositoryPathDiagnostics(
  repoRoot: string,
  repositories: readonly LocalRepositoryConfig[],
  options: { filling?: string } = {},
): Diagnostic[] {
  const out: Diagnostic[] = [];
  repositories.forEach((repo, i) => {
    const setting = `repositories[${i}].path`;
    const at = () => ({ ...locateConfigSetting(repoRoot, ['repositories', i, 'path']), field: setting });
    // No file system takes a NUL in a path (Node throws on it): say so instead of an internal error.
    if (repo.path.includes('\0')) {
      out.push(
        error('input-path', `${setting} contains a NUL character, which no path may hold`, {
          ...at(),
          hint: 'write the folder of the local repository as a plain path',
        }),
      );
      return;
    }
    const folder = path.resolve(repoRoot, repo.path);
    const stat = statSync(folder, { throwIfNoEntry: false });
    if (stat?.isDirectory()) {
      if (
        path.isAbsolute(repo.path) &&
        (realOf(folder) === realOf(repoRoot) || isInside(realOf(folder), realOf(repoRoot)))
      ) {
        const relative = path.relative(realOf(repoRoot), realOf(folder)).split(path.sep).join('/');
        out.push(
          warning(
            'input-path',
            `${setting} ${repo.path} is an absolute path: it ties the repository to this machine (any other checkout has the repository elsewhere)`,
            {
              ...at(),
              hint: `write it relative to the repository: path: ${relative}`,
            },
          ),
        );
      }
      return;
    }
    if (stat) {
      out.push(
        error('input-path', `${setting} ${repo.path} is a file, not a folder`, {
          ...at(),
          hint: `point it at the root folder of ${LAYOUT}`,
        }),
      );
      return;
    }
    if (options.filling !== undefined && path.resolve(options.filling) === folder) return;
    const windows = /^[A-Za-z]:[\\/]|\\/.test(repo.path) && path.sep === '/';
    const guess = windows ? undefined : closestExistingPath(repoRoot, repo.path);
    const why = windows
      ? ' (a Windows path: paths are read relative to the repository, with / between folders)'
      : path.isAbsolute(repo.path)
        ? ' on this machine (an absolute path names a folder of the machine it was written on)'
        : '';
    out.push(
      error('input-path', `${setting} ${repo.path} does not exist${why}${guess ? `; did you mean ${guess}?` : ''}`, {
        ...at(),
        hint: `write the path of ${LAYOUT}, relative to the repository (fill one with \`capi-render mirror --to DIR\` on a connected machine), or remove the entry`,
      }),
    );
  });
  return out;
}

/**
 * `written` with each missing folder replaced by its closest existing sibling (by edit distance, as
 * every did-you-mean of capi-render), when that leads to a folder; undefined otherwise.
 */
function closestExistingPath(repoRoot: string, written: string): string | undefined {
  const absolute = path.isAbsolute(written);
  let dir = absolute ? path.parse(written).root : repoRoot;
  const parts: string[] = [];
  let changed = false;
  for (const part of written.split('/').filter((p) => p !== '' && p !== '.')) {
    const next = path.join(dir, part);
    if (part === '..' || statSync(next, { throwIfNoEntry: false })?.isDirectory()) {
      dir = next;
      parts.push(part);
      continue;
    }
    let siblings: string[];
    try {
      siblings = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && e.name !== '.git')
        .map((e) => e.name);
    } catch {
      return undefined;
    }
    const guess = suggestField(part, siblings);
    if (guess === undefined) return undefined;
    dir = path.join(dir, guess);
    parts.push(guess);
    changed = true;
  }
  if (!changed) return undefined;
  return `${absolute ? path.parse(written).root : ''}${parts.join('/')}`;
}

function realOf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}
