/**
 * A committed output folder as the check reads it: its files (regular ones only, read without
 * following links), their texts where asked, and what its ownership record says capi-render wrote.
 */
import path from 'node:path';
import { normalizeInputText } from '../declarations/input-text.js';
import { OWNERSHIP_FILE, parseOwnership } from '../output/ownership.js';
import { readListedOutputFile, type RegularOutputFolder } from '../output/regular-files.js';
import { readRecordFile } from '../repository-files.js';

export interface CommittedFolder {
  /** Every file, relative, sorted. */
  list: string[];
  /** File texts (when read with contents), CRLF read as LF (a Windows checkout of the same commit is not drift). */
  files: Map<string, string>;
  /** The ownership record's text, when there is one. */
  recordText: string | undefined;
  /** Whether capi-render wrote this file (everything, for a folder from before ownership records). */
  owned: (relative: string) => boolean;
  /** Files the record does not list. */
  foreign: string[];
}

/** A folder `regularOutputFolder` listed (regular files only), read without following links. */
export async function readOutputFolder(
  { root: dir, files: list }: RegularOutputFolder,
  repoRoot: string,
  { contents }: { contents: boolean },
): Promise<CommittedFolder> {
  const files = contents ? await readFiles(dir, list, repoRoot) : new Map<string, string>();
  const recordText = (
    await readRecordFile(repoRoot, path.join(dir, OWNERSHIP_FILE), 'ownership', { listed: true })
  )?.toString('utf8');
  const record = recordText === undefined ? undefined : parseOwnership(recordText);
  const owned = (f: string) => !record || record.files.has(f);
  return { list, files, recordText, owned, foreign: list.filter((f) => !owned(f)) };
}

export async function readFiles(dir: string, list: readonly string[], repoRoot: string): Promise<Map<string, string>> {
  return new Map(
    await Promise.all(
      list.map(async (f) => [f, normalizeInputText(await readListedOutputFile(dir, f, repoRoot))] as [string, string]),
    ),
  );
}

export function groupByTopFolder(files: readonly string[]): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const f of files) {
    const top = f.split('/')[0]!;
    const list = out.get(top);
    if (list) list.push(f);
    else out.set(top, [f]);
  }
  return out;
}
