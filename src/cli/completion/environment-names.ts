/**
 * The environment names `--env` completes to: the folders directly under the repository's overlays
 * folder (`overlaysDir` of capi-render.yaml, default overlays/) that hold an overlay.yaml which is not
 * `abstract: true`, sorted — the same set discoverEnvironments builds from, read leniently: a
 * completion must answer quickly and never fail, so nothing is validated and any file that cannot
 * be read or parsed only drops out (an overlay that does not parse is still offered: it is the
 * environment the user is about to fix). Files are read by the repository reader, by the inputs'
 * rule every command follows: a link inside the repository is followed, one out of it (or to
 * nothing) drops out, and only regular files are read (src/repository-files.ts).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { CONFIG_FILE } from '../../config/config-types.js';
import { DEFAULT_ENVIRONMENT } from '../../overlay/discover-environments.js';
import { OVERLAY_FILE } from '../../overlay/overlay-types.js';
import { readInputFileSync, resolveInput } from '../../repository-files.js';

/** Environment names of the repository at `repoRoot`; `default` when it has no overlays; [] when it is no folder. */
export function environmentNames(repoRoot: string): string[] {
  if (!statSync(repoRoot, { throwIfNoEntry: false })?.isDirectory()) return [];
  const config = parseLeniently(readLeniently(repoRoot, CONFIG_FILE));
  const configured =
    config && typeof config === 'object' ? (config as { overlaysDir?: unknown }).overlaysDir : undefined;
  const overlaysDir = typeof configured === 'string' && configured !== '' ? configured : 'overlays';
  const top = kindOf(repoRoot, overlaysDir);
  if (top === 'refused' || (top !== undefined && top !== 'folder')) return [];
  if (top === undefined) return [DEFAULT_ENVIRONMENT];
  let entries;
  try {
    entries = readdirSync(path.resolve(repoRoot, overlaysDir), { withFileTypes: true });
  } catch {
    return [DEFAULT_ENVIRONMENT];
  }
  const names = entries
    .filter(
      (e) =>
        e.isDirectory() ||
        (e.isSymbolicLink() && !e.name.startsWith('.') && kindOf(repoRoot, `${overlaysDir}/${e.name}`) === 'folder'),
    )
    .map((e) => e.name)
    .filter((name) => {
      const text = readLeniently(repoRoot, `${overlaysDir}/${name}/${OVERLAY_FILE}`);
      if (text === undefined) return false;
      const overlay = parseLeniently(text);
      return !(overlay && typeof overlay === 'object' && (overlay as { abstract?: unknown }).abstract === true);
    })
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return names.length > 0 ? names : [DEFAULT_ENVIRONMENT];
}

/** The text of an input file, or undefined (missing, refused, unreadable). */
function readLeniently(repoRoot: string, file: string): string | undefined {
  try {
    return readInputFileSync(repoRoot, file)?.bytes.toString('utf8');
  } catch {
    return undefined;
  }
}

/** What an input path is; 'refused' for a link out of the repository, to nothing, or a path leaving it. */
function kindOf(repoRoot: string, file: string): string | undefined {
  try {
    return resolveInput(repoRoot, file)?.kind;
  } catch {
    return 'refused';
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
