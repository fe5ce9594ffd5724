/**
 * What a folder holds, without following links: every entry's type, mode, size, content digest,
 * link target, inode and modification time. Comparing two snapshots says which paths a command
 * changed, and whether it wrote anything at all (a rewrite with the same bytes changes the mtime).
 */
import { lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';

export interface Entry {
  type: 'file' | 'dir' | 'link' | 'other';
  mode: number;
  digest: string;
  ino: number;
  mtimeMs: number;
}

export type Snapshot = Map<string, Entry>;

/** Snapshot of dir (paths relative, `/`-separated); a missing dir is an empty snapshot. */
export function snapshot(dir: string): Snapshot {
  const out: Snapshot = new Map();
  const walk = (rel: string) => {
    let names: string[];
    try {
      names = readdirSync(path.join(dir, rel)).sort();
    } catch {
      return;
    }
    for (const name of names) {
      const child = rel ? `${rel}/${name}` : name;
      const abs = path.join(dir, child);
      const st = lstatSync(abs);
      const base = { mode: st.mode, ino: st.ino, mtimeMs: st.mtimeMs };
      if (st.isDirectory()) {
        out.set(child, { type: 'dir', digest: '', ...base, mtimeMs: 0 });
        walk(child);
      } else if (st.isSymbolicLink()) out.set(child, { type: 'link', digest: readlinkSync(abs), ...base });
      else if (st.isFile())
        out.set(child, { type: 'file', digest: createHash('sha256').update(readFileSync(abs)).digest('hex'), ...base });
      else out.set(child, { type: 'other', digest: '', ...base });
    }
  };
  walk('');
  return out;
}

/** Paths whose content, type or mode differ (or exist on one side only). */
export function changedPaths(before: Snapshot, after: Snapshot): string[] {
  const out: string[] = [];
  for (const [p, a] of after) {
    const b = before.get(p);
    if (!b || b.type !== a.type || b.digest !== a.digest || b.mode !== a.mode) out.push(p);
  }
  for (const p of before.keys()) if (!after.has(p)) out.push(p);
  return out.sort();
}

/** Paths rewritten even with the same bytes (another inode or mtime), for "a second build writes nothing". */
export function touchedPaths(before: Snapshot, after: Snapshot): string[] {
  const out = changedPaths(before, after);
  for (const [p, a] of after) {
    const b = before.get(p);
    if (b && a.type !== 'dir' && (b.ino !== a.ino || b.mtimeMs !== a.mtimeMs) && !out.includes(p)) out.push(p);
  }
  return out.sort();
}

/** Contents of the files of a snapshot under a prefix (for byte comparisons between two trees). */
export function contentsUnder(snap: Snapshot, prefixes: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [p, e] of snap)
    if (e.type !== 'dir' && prefixes.some((x) => p === x || p.startsWith(`${x}/`))) out[p] = `${e.type}:${e.digest}`;
  return out;
}
