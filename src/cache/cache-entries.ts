/**
 * capi-render's own entries in a cache folder, and nothing else: the folder may be one the user chose
 * and shares (`--cache-dir`), so only files in capi-render's own layout are listed, and so ever
 * removed. Links are never followed: a linked folder or file is not capi-render's, whatever its name.
 *
 * Design notes: docs/internals.md "cache/cache-entries.ts".
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

export type CacheEntryKind =
  'artifact' | 'parsed' | 'lock' | 'validated' | 'release-index' | 'stamp' | 'plugin' | 'temporary';

export interface CacheEntry {
  /** Absolute path. */
  file: string;
  kind: CacheEntryKind;
  /** Disk usage: the size rounded up to whole 4 KiB blocks, at least one (an empty file still takes an inode and a block's worth of bookkeeping). */
  bytes: number;
  /** Last used (its modification time: every read touches it). */
  lastUsed: number;
}

const SHA = '[0-9a-f]{64}';
const FOLDERS: { folder: RegExp; file: RegExp; kind: CacheEntryKind }[] = [
  { folder: /^sha256$/, file: new RegExp(`^${SHA}$`), kind: 'artifact' },
  { folder: /^parsed2-v8-[0-9A-Za-z.-]+$/, file: new RegExp(`^${SHA}\\.bin$`), kind: 'parsed' },
  { folder: /^lock-v8-[0-9A-Za-z.-]+$/, file: new RegExp(`^${SHA}\\.bin$`), kind: 'lock' },
  { folder: /^validated$/, file: new RegExp(`^${SHA}$`), kind: 'validated' },
  { folder: /^release-(?:lists|files)$/, file: new RegExp(`^${SHA}\\.json$`), kind: 'release-index' },
  { folder: /^stamps$/, file: new RegExp(`^${SHA}\\.json$`), kind: 'stamp' },
  { folder: /^outputs$/, file: new RegExp(`^${SHA}\\.json$`), kind: 'stamp' },
  { folder: /^plugin-streams$/, file: new RegExp(`^${SHA}\\.json$`), kind: 'plugin' },
  { folder: /^plugin-documents$/, file: new RegExp(`^${SHA}$`), kind: 'plugin' },
];
const TEMPORARY = /\.\d+\.[0-9a-f]+\.tmp$/;
/** A temporary file younger than this may belong to a write in progress. */
const TEMPORARY_AGE_MS = 24 * 60 * 60 * 1000;
const BLOCK = 4096;

/** Every entry of capi-render's layout under `dir` (none when it does not exist). */
export async function listCacheEntries(dir: string, now = Date.now()): Promise<CacheEntry[]> {
  const top = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  const out: CacheEntry[] = [];
  for (const folder of top) {
    // isDirectory() on a Dirent is false for a link to a folder: links are never entered.
    if (!folder.isDirectory()) continue;
    const layout = FOLDERS.find((f) => f.folder.test(folder.name));
    if (!layout) continue;
    const sub = path.join(dir, folder.name);
    const files = await fs.readdir(sub, { withFileTypes: true }).catch(() => []);
    for (const f of files) {
      if (!f.isFile()) continue;
      const own = layout.file.test(f.name);
      const temporary = !own && TEMPORARY.test(f.name) && layout.file.test(f.name.replace(TEMPORARY, ''));
      if (!own && !temporary) continue;
      const file = path.join(sub, f.name);
      const stat = await fs.lstat(file).catch(() => undefined);
      if (!stat?.isFile()) continue;
      if (temporary && now - stat.mtimeMs < TEMPORARY_AGE_MS) continue;
      out.push({
        file,
        kind: temporary ? 'temporary' : layout.kind,
        bytes: Math.max(1, Math.ceil(stat.size / BLOCK)) * BLOCK,
        lastUsed: stat.mtimeMs,
      });
    }
  }
  return out;
}
