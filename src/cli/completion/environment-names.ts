/**
 * The environment names `--env` completes to: the folders directly under the repository's overlays
 * folder (`overlaysDir` of capi-render.yaml, default overlays/) that hold an overlay.yaml which is not
 * `abstract: true`, sorted — the same set discoverEnvironments builds from, read leniently: a
 * completion must answer quickly and never fail, so nothing is validated and any file that cannot
 * be read or parsed only drops out (an overlay that does not parse is still offered: it is the
 * environment the user is about to fix). Only regular files and folders are read; a symbolic link
 * anywhere on the way is not followed, as every command that reads the repository does.
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CONFIG_FILE } from '../../config/config-types.js';
import { DEFAULT_ENVIRONMENT } from '../../overlay/discover-environments.js';
import { OVERLAY_FILE } from '../../overlay/overlay-types.js';

/** Environment names of the repository at `repoRoot`; `default` when it has no overlays; [] when it is no folder. */
export function environmentNames(repoRoot: string): string[] {
  if (!isReal(repoRoot, 'dir')) return [];
  const config = parseLeniently(readRegular(path.join(repoRoot, CONFIG_FILE)));
  const configured = config && typeof config === 'object' ? (config as { overlaysDir?: unknown }).overlaysDir : undefined;
  const overlaysDir = typeof configured === 'string' && configured !== '' ? configured : 'overlays';
  const root = path.resolve(repoRoot, overlaysDir);
  if (!realPathWithin(repoRoot, root)) return [];
  let entries;
  try {
    entries = readdirSync(root, { withFileTypes: true });
  } catch {
    return [DEFAULT_ENVIRONMENT];
  }
  const names = entries
    // A Dirent describes the entry itself: a link to a folder is not a directory here.
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .filter((name) => {
      const text = readRegular(path.join(root, name, OVERLAY_FILE));
      if (text === undefined) return false;
      const overlay = parseLeniently(text);
      return !(overlay && typeof overlay === 'object' && (overlay as { abstract?: unknown }).abstract === true);
    })
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.length > 0 ? names : [DEFAULT_ENVIRONMENT];
}

/** The text of a regular file, or undefined (missing, a link, a folder, unreadable). */
function readRegular(file: string): string | undefined {
  if (!isReal(file, 'file')) return undefined;
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function parseLeniently(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return YAML.parse(text);
  } catch {
    return undefined;
  }
}

function isReal(file: string, kind: 'file' | 'dir'): boolean {
  const stat = lstatSync(file, { throwIfNoEntry: false });
  return kind === 'file' ? Boolean(stat?.isFile()) : Boolean(stat?.isDirectory());
}

/** True when `dir` lies inside `repoRoot` (or is it) and no folder between them is a symbolic link. */
function realPathWithin(repoRoot: string, dir: string): boolean {
  const relative = path.relative(repoRoot, dir);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return false;
  let at = repoRoot;
  for (const part of relative.split(path.sep).filter(Boolean)) {
    at = path.join(at, part);
    const stat = lstatSync(at, { throwIfNoEntry: false });
    // A missing overlays folder is fine (the repository has the implicit `default`); a link is not.
    if (!stat) return true;
    if (!stat.isDirectory()) return false;
  }
  return true;
}
