/** What a build that changed nothing reports: how much is in place, counted from the ownership records. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { OWNERSHIP_FILE, parseOwnership } from './ownership.js';
import type { TreeSummary } from './transaction.js';
import type { WrittenRenderResult } from './write-render-result.js';

/** A write that changed nothing (a no-op build reads nothing but the records). */
export async function unchangedSummary(outDir: string, gitopsDir: string): Promise<WrittenRenderResult> {
  const gitops: TreeSummary = { root: gitopsDir, written: [], unchanged: await ownedCount(gitopsDir), removed: [], foreign: [] };
  return { outDir, written: [], unchanged: await ownedCount(outDir), removed: [], foreign: [], gitops, lockWritten: false, retired: [] };
}

async function ownedCount(dir: string): Promise<number> {
  const text = await fs.readFile(path.join(dir, OWNERSHIP_FILE), 'utf8').catch(() => '');
  return parseOwnership(text).files.size;
}
