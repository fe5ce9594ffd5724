/** Listing an output folder as the files it delivers: without capi-render's ownership record and work folder. */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { OWNERSHIP_FILE } from './ownership.js';
import { WORK_DIR } from './scan-output-folder.js';

/** Every file under `dir`, relative, `/`-separated, sorted. Missing dir → []. */
export async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  async function walk(rel: string): Promise<void> {
    let entries;
    try {
      entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (!rel && (e.name === OWNERSHIP_FILE || e.name === WORK_DIR)) continue;
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else out.push(child);
    }
  }
  await walk('');
  return out.sort();
}
