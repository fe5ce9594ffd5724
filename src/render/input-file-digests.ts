/**
 * sha256 of every input file the repository's environments are built from — capi-render.yaml, the
 * YAML under providers/ and overlays/, every file under templates/ — recorded in capi-render.lock
 * so that `check` and `--frozen` can name the file that changed instead of only saying "inputs
 * changed". Digests are of the normalised text (no BOM, LF line ends), so a Windows checkout of the
 * same commit records the same values. Nothing is validated here: reading and reporting bad files
 * is the loaders' job.
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { CONFIG_FILE, type RenderConfig } from '../config/config-types.js';
import type { LockedInputFile } from '../lock/lock-types.js';
import { INPUT_FILE } from '../spec/read-input-files.js';


export async function inputFileDigests(repoRoot: string, config: Pick<RenderConfig, 'providersDir' | 'overlaysDir' | 'templatesDir'>): Promise<LockedInputFile[]> {
  const root = await fs.realpath(repoRoot);
  const files = new Set<string>();
  if (await isFile(path.join(root, CONFIG_FILE))) files.add(CONFIG_FILE);
  for (const dir of [config.providersDir, config.overlaysDir]) for (const f of await listUnder(root, dir, INPUT_FILE)) files.add(f);
  for (const f of await listUnder(root, config.templatesDir, /./)) files.add(f);
  const sorted = [...files].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return Promise.all(sorted.map(async (file) => ({ file, sha256: normalisedDigest(await fs.readFile(path.join(root, file))) })));
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
async function listUnder(root: string, dir: string, name: RegExp): Promise<string[]> {
  const out: string[] = [];
  const visited = new Set<string>();
  const walk = async (absolute: string): Promise<void> => {
    // A link back to a parent folder must not loop.
    const real = await fs.realpath(absolute).catch(() => undefined);
    if (!real || visited.has(real) || path.relative(root, real).startsWith('..')) return;
    visited.add(real);
    const entries = await fs.readdir(absolute, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const child = path.join(absolute, entry.name);
      const stat = entry.isSymbolicLink() ? await linkTarget(root, child) : entry;
      if (stat?.isDirectory()) await walk(child);
      else if (stat?.isFile() && name.test(entry.name)) out.push(relative(root, child));
    }
  };
  const start = path.resolve(root, dir);
  if (!path.relative(root, start).startsWith('..')) await walk(start);
  return out;
}

/** What a link inside the repository points at; undefined for a dangling link or one leaving the repository. */
async function linkTarget(root: string, link: string) {
  const real = await fs.realpath(link).catch(() => undefined);
  if (!real || path.relative(root, real).startsWith('..')) return undefined;
  return fs.stat(real);
}

function relative(root: string, file: string): string {
  return path.relative(root, file).split(path.sep).join('/');
}

async function isFile(file: string): Promise<boolean> {
  return (await fs.stat(file).catch(() => undefined))?.isFile() ?? false;
}
