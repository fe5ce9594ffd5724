/**
 * What an output folder holds before a build writes it: every entry (regular files, links, anything
 * else), the folders, any `.git` inside it, and its ownership record. Links are listed, never
 * followed, so a link planted in rendered/ can neither be read through nor written through.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { readRecordFile } from '../repository-files.js';
import { OWNERSHIP_FILE, parseOwnership, type OwnershipRecord } from './ownership.js';

/** The transient folder a write stages in (see transaction.ts); never part of the output. */
export const WORK_DIR = '.capi-render-write';

export type EntryType = 'file' | 'link' | 'other';

export interface OutputFolderScan {
  /** Absolute path of the folder. */
  root: string;
  exists: boolean;
  /** Whether the path exists but is not a folder (a file or a link where the output folder should be). */
  notAFolder: boolean;
  /** Every non-folder entry, relative, `/`-separated. */
  entries: Map<string, EntryType>;
  /** Every folder below the root, relative. */
  folders: Set<string>;
  /** Relative paths of `.git` entries found inside (a repository or a submodule). */
  git: string[];
  /** The ownership record, when the folder has one (and it is a regular file). */
  record?: OwnershipRecord;
  /** What is at the ownership record's path, when anything is (`file`, `link`, `other`). */
  recordType?: EntryType;
  /** Whether the scan listed the folder `relative` lies in (top-level folders outside `descend` are not listed). */
  listed(relative: string): boolean;
}

/**
 * Scans `root`. `descend` limits which folders are listed below the top level (a build that writes
 * two environments of a thousand need not list the other 998); the top level is always listed.
 * `repoRoot` is what paths in errors are shown relative to (default: the folder holding `root`).
 */
export async function scanOutputFolder(
  root: string,
  descend: (folder: string) => boolean = () => true,
  repoRoot: string = path.dirname(root),
): Promise<OutputFolderScan> {
  const skipped = new Set<string>();
  const scan: OutputFolderScan = {
    root,
    exists: false,
    notAFolder: false,
    entries: new Map(),
    folders: new Set(),
    git: [],
    listed: (relative) => !skipped.has(relative.split('/')[0]!) || !relative.includes('/'),
  };
  // The folder itself may be a link (checked by config/output-location.ts on its real path); nothing inside it may.
  const top = await fs.stat(root).catch(() => undefined);
  if (!top) return scan;
  scan.exists = true;
  if (!top.isDirectory()) {
    scan.notAFolder = true;
    return scan;
  }
  const walk = async (rel: string): Promise<void> => {
    const entries = await fs.readdir(rel ? path.join(root, rel) : root, { withFileTypes: true });
    for (const e of entries) {
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (!rel && (e.name === OWNERSHIP_FILE || e.name === WORK_DIR)) continue;
      if (e.name === '.git') scan.git.push(child);
      if (e.isDirectory()) {
        scan.folders.add(child);
        if (rel || descend(child)) await walk(child);
        else skipped.add(child);
      } else {
        scan.entries.set(child, e.isFile() ? 'file' : e.isSymbolicLink() ? 'link' : 'other');
      }
    }
  };
  await walk('');
  const recordFile = path.join(root, OWNERSHIP_FILE);
  const record = await fs.lstat(recordFile).catch(() => undefined);
  if (record) scan.recordType = record.isFile() ? 'file' : record.isSymbolicLink() ? 'link' : 'other';
  // Read by the repository reader: never through a link swapped in since the lstat, never past its size limit.
  const text = record?.isFile() ? await readRecordFile(repoRoot, recordFile, 'ownership', { listed: true }) : undefined;
  if (text !== undefined) scan.record = parseOwnership(text.toString('utf8'));
  return scan;
}
