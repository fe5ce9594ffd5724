/**
 * Atomic replacement of the output folder. The new tree is built beside the old one (files whose
 * bytes are unchanged are hard-linked, not rewritten, and new files of identical content are
 * written once and hard-linked), then swapped in with two renames. Rendered files are build output:
 * edit the inputs, never these files (an in-place edit would also change their hard-linked twins;
 * `capi-render check` reports any edit). A failed or
 * killed build leaves the previous output in place; a crash between the two renames is repaired by
 * the next run (the old tree is put back). One build at a time per output folder (a lock file).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SpecError, error } from '../errors.js';
import type { OutputFiles } from './plan.js';

export interface WriteOptions {
  /**
   * What the files replace. `all`: the whole output becomes exactly `files`. A list of top-level
   * folders (environments), or a predicate over existing files' relative paths: only those are
   * replaced; every other existing file is kept as it is.
   */
  replace: 'all' | readonly string[] | ((relative: string) => boolean);
}

export interface WriteSummary {
  /** Files whose content is new or changed. */
  written: string[];
  /** Files kept byte-identical. */
  unchanged: number;
  /** Files that existed before and are gone now. */
  removed: string[];
}

/** Writes `files` (paths relative to `outDir`) and swaps them in atomically. */
export async function writeOutputTree(outDir: string, files: OutputFiles, options: WriteOptions): Promise<WriteSummary> {
  const parent = path.dirname(path.resolve(outDir));
  const base = path.basename(outDir);
  const staging = path.join(parent, `.${base}.capi-render-new`);
  const retired = path.join(parent, `.${base}.capi-render-old`);
  await fs.mkdir(parent, { recursive: true });
  const release = await acquireLock(path.join(parent, `.${base}.capi-render-lock`));
  try {
    await recover(outDir, retired);
    await fs.rm(staging, { recursive: true, force: true });
    await fs.rm(retired, { recursive: true, force: true });
    const previous = await listFiles(outDir);
    const replaced = scopeOf(options.replace);
    const keep = previous.filter((p) => !replaced(p));
    const summary: WriteSummary = { written: [], unchanged: 0, removed: [] };
    const dirs = new Set<string>([staging]);
    for (const rel of [...keep, ...files.keys()]) dirs.add(path.dirname(path.join(staging, rel)));
    for (const dir of [...dirs].sort()) await fs.mkdir(dir, { recursive: true });
    await forEachLimited(keep, (rel) => linkOrCopy(path.join(outDir, rel), path.join(staging, rel)));
    const written = new Set<string>();
    // Files with the same content (a CRD shared by a hundred environments) are written once and
    // hard-linked: git stores one blob for them anyway, and the build writes a fraction of the bytes.
    const firstCopy = new Map<string, Promise<string>>();
    await forEachLimited([...files], async ([rel, text]) => {
      const target = path.join(staging, rel);
      const old = path.join(outDir, rel);
      if (await sameContent(old, text)) {
        await linkOrCopy(old, target);
        summary.unchanged++;
        return;
      }
      written.add(rel);
      const earlier = firstCopy.get(text);
      if (earlier) return linkOrCopy(await earlier, target);
      const done = fs.writeFile(target, text).then(() => target);
      firstCopy.set(text, done);
      await done;
    });
    summary.written = [...files.keys()].filter((rel) => written.has(rel));
    const now = new Set([...keep, ...files.keys()]);
    summary.removed = previous.filter((p) => !now.has(p));
    const existed = await exists(outDir);
    if (existed) await fs.rename(outDir, retired);
    await fs.rename(staging, outDir);
    if (existed) await fs.rm(retired, { recursive: true, force: true });
    return summary;
  } catch (e) {
    await fs.rm(staging, { recursive: true, force: true }).catch(() => undefined);
    throw e;
  } finally {
    await release();
  }
}

function scopeOf(replace: WriteOptions['replace']): (relative: string) => boolean {
  if (replace === 'all') return () => true;
  if (typeof replace === 'function') return replace;
  return (relative) => replace.includes(relative.split('/')[0]!);
}

async function recover(outDir: string, retired: string): Promise<void> {
  // A previous run died between its two renames: the old tree is intact, put it back.
  if (!(await exists(outDir)) && (await exists(retired))) await fs.rename(retired, outDir);
}

/** Whether the file at `file` holds exactly `text`; reads it only when the sizes match. */
async function sameContent(file: string, text: string): Promise<boolean> {
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat || stat.size !== Buffer.byteLength(text)) return false;
  return (await fs.readFile(file, 'utf8')) === text;
}

/** Runs `fn` over `items` with bounded concurrency, so file I/O overlaps without exhausting handles. */
async function forEachLimited<T>(items: readonly T[], fn: (item: T) => Promise<void>, limit = 32): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await fs.link(from, to);
  } catch {
    await fs.copyFile(from, to);
  }
}

async function exists(p: string): Promise<boolean> {
  return fs.stat(p).then(
    () => true,
    () => false,
  );
}

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
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) await walk(child);
      else out.push(child);
    }
  }
  await walk('');
  return out.sort();
}

async function acquireLock(lockFile: string): Promise<() => Promise<void>> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await fs.open(lockFile, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      return () => fs.rm(lockFile, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const holder = Number((await fs.readFile(lockFile, 'utf8').catch(() => '')).trim());
      if (holder && holder !== process.pid && isAlive(holder)) {
        throw new SpecError(
          error('busy', `another capi-render (pid ${holder}) is writing ${path.basename(lockFile).replace(/^\.|\.capi-render-lock$/g, '')}`, {
            file: lockFile,
            hint: 'wait for it to finish; if no build is running, delete the lock file',
          }),
        );
      }
      // The holder is gone (killed): the lock is stale.
      await fs.rm(lockFile, { force: true });
    }
  }
  throw new SpecError(error('busy', `could not take the output lock ${lockFile}`, { file: lockFile }));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
