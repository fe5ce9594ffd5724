/**
 * sha256 of every input file the repository's environments are built from — capi-render.yaml, the
 * YAML under providers/ and overlays/, every file under templates/ — recorded in capi-render.lock
 * so that `check` and `--frozen` can name the file that changed instead of only saying "inputs
 * changed". Digests are of the normalised text (no BOM, LF line ends), so a Windows checkout of the
 * same commit records the same values. Nothing is validated here: reading and reporting bad files
 * is the loaders' job.
 */
import { createHash } from 'node:crypto';
import { readFileSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE, type RenderConfig } from '../config/config-types.js';
import type { LockedInputFile } from '../lock/lock-types.js';
import { INPUT_FILE } from '../declarations/read-input-files.js';


/**
 * The digests, read synchronously: input files are small and many (a folder per environment), and a
 * no-op build is mostly this walk, which round trips through the thread pool would make several
 * times slower (issue 17's no-op target).
 */
export async function inputFileDigests(repoRoot: string, config: Pick<RenderConfig, 'providersDir' | 'overlaysDir' | 'templatesDir'>): Promise<LockedInputFile[]> {
  const root = realpathSync(repoRoot);
  const files = new Set<string>();
  if (isFile(path.join(root, CONFIG_FILE))) files.add(CONFIG_FILE);
  for (const dir of [config.providersDir, config.overlaysDir]) for (const f of listUnder(root, dir, INPUT_FILE)) files.add(f);
  for (const f of listUnder(root, config.templatesDir, /./)) files.add(f);
  const sorted = [...files].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return sorted.map((file) => ({ file, sha256: normalisedDigest(readFileSync(path.join(root, file))) }));
}

/** sha256 of the bytes without a UTF-8 BOM and with CRLF as LF (see spec/input-text.ts). */
export function normalisedDigest(bytes: Buffer): string {
  const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  const body = bytes.subarray(start);
  const hash = createHash('sha256');
  if (!body.includes(13)) return hash.update(body).digest('hex');
  // latin1 maps bytes one to one, so this edits bytes, not characters.
  return hash.update(body.toString('latin1').replace(/\r\n/g, '\n'), 'latin1').digest('hex');
}

/** Repository-relative files under `dir` whose name matches; dot entries and links out of the repository are skipped. */
function listUnder(root: string, dir: string, name: RegExp): string[] {
  const out: string[] = [];
  const visited = new Set<string>();
  const walk = (absolute: string): void => {
    // A link back to a parent folder must not loop.
    const real = realpathOrUndefined(absolute);
    if (!real || visited.has(real) || path.relative(root, real).startsWith('..')) return;
    visited.add(real);
    let entries: Dirent[];
    try {
      entries = readdirSync(absolute, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const child = path.join(absolute, entry.name);
      const stat = entry.isSymbolicLink() ? linkTarget(root, child) : entry;
      // A link to a folder this one is inside of (`..`, the repository root) would list everything
      // there, rendered/ included, as inputs: the next build's output would change the lock again.
      if (stat?.isDirectory() && entry.isSymbolicLink() && encloses(realpathOrUndefined(child), real)) continue;
      if (stat?.isDirectory()) walk(child);
      else if (stat?.isFile() && name.test(entry.name)) out.push(relative(root, child));
    }
  };
  const start = path.resolve(root, dir);
  if (!path.relative(root, start).startsWith('..')) walk(start);
  return out;
}

/** Whether folder `outer` is `inner` or one of its parents. */
function encloses(outer: string | undefined, inner: string): boolean {
  if (outer === undefined) return false;
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

function realpathOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

/** What a link inside the repository points at; undefined for a dangling link or one leaving the repository. */
function linkTarget(root: string, link: string): Stats | undefined {
  const real = realpathOrUndefined(link);
  if (!real || path.relative(root, real).startsWith('..')) return undefined;
  return statOrUndefined(real);
}

function relative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

function isFile(file: string): boolean {
  return statOrUndefined(file)?.isFile() ?? false;
}

/** Unreadable counts as absent here (as before): the loaders report unreadable inputs properly. */
function statOrUndefined(file: string): Stats | undefined {
  try {
    return statSync(file);
  } catch {
    return undefined;
  }
}
