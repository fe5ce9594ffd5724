/**
 * One shard's output, as a CI job uploaded it: a folder holding the repository's output folders
 * (rendered/, gitops/ — the configured names) and capi-render.lock, as `build --shard K/N` left them.
 * A shard comes from elsewhere (a downloaded artifact), so it is read like untrusted input: only
 * files its ownership records list, only regular files (links are never followed, so nothing
 * outside the shard is read), each no larger than an input file may be.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { SpecError, error } from '../errors.js';
import { parseLock } from '../lock/lock-file.js';
import { LOCK_FILE, type LockFile } from '../lock/lock-types.js';
import { OWNERSHIP_FILE } from '../output/ownership.js';
import type { OutputFiles } from '../plan/output-plan.js';
import { scanOutputFolder, type OutputFolderScan } from '../output/scan-output-folder.js';
import { MAX_INPUT_FILE_BYTES, readRecordFile } from '../repository-files.js';

export interface Shard {
  /** As given on the command line (for messages). */
  shown: string;
  /** Real path of the shard folder. */
  dir: string;
  /** `K/N`. */
  shard: string;
  lock: LockFile;
  rendered: OutputFolderScan;
  gitops: OutputFolderScan;
}

export const UPLOAD_HINT =
  'upload rendered/, gitops/ and capi-render.lock of each shard job, hidden files included (actions/upload-artifact: include-hidden-files: true)';

/** Reads shard `index` of `count` from `dir` (output folder names from capi-render.yaml). */
export async function readShard(
  shown: string,
  dir: string,
  shard: string,
  folders: { outputDir: string; gitopsDir: string },
): Promise<Shard> {
  const fail = (message: string, hint = UPLOAD_HINT): never => {
    throw new SpecError(error('shard', `shard ${shard} (${shown}): ${message}`, { file: shown, hint }));
  };
  const real = await fs.realpath(dir).catch(() => fail('does not exist'));
  if (!(await fs.stat(real)).isDirectory()) fail('is not a folder');
  const lockFile = path.join(real, LOCK_FILE);
  const lockStat = await fs.lstat(lockFile).catch(() => undefined);
  if (!lockStat?.isFile()) fail(`has no ${LOCK_FILE}${lockStat ? ' (a link or folder is there)' : ''}`);
  let lock: LockFile;
  try {
    // Opened without following a link swapped in since the lstat, without blocking, bounded (src/repository-files.ts).
    const text = (await readRecordFile(real, lockFile, 'lock', { listed: true }))?.toString('utf8');
    if (text === undefined) return fail(`has no ${LOCK_FILE}`);
    lock = parseLock(text);
  } catch (e) {
    const reason = e instanceof SpecError ? e.diagnostics[0]!.message : (e as Error).message;
    return fail(
      `its ${LOCK_FILE} cannot be read: ${reason}`,
      'the shard job must upload the capi-render.lock its build left',
    );
  }
  const rendered = await scanOutputFolder(path.join(real, folders.outputDir));
  const gitops = await scanOutputFolder(path.join(real, folders.gitopsDir));
  for (const [scan, folder] of [
    [rendered, folders.outputDir],
    [gitops, folders.gitopsDir],
  ] as const) {
    if (scan.notAFolder) fail(`${folder} is not a folder`);
    if (scan.entries.size > 0 && !scan.record) fail(`${folder}/ has no ownership record (${OWNERSHIP_FILE})`);
  }
  return { shown, dir: real, shard, lock, rendered, gitops };
}

/** The files `scan`'s record lists that `select` wants, read; a listed file that is missing or not a regular file is an error. */
export async function readShardFiles(
  shard: Shard,
  scan: OutputFolderScan,
  select: (relative: string) => boolean,
): Promise<OutputFiles> {
  const wanted = [...(scan.record?.files ?? [])].filter(select).sort();
  const files: OutputFiles = new Map();
  for (const rel of wanted) {
    const type = scan.entries.get(rel);
    const file = path.join(scan.root, ...rel.split('/'));
    const stat = type === 'file' ? await fs.lstat(file).catch(() => undefined) : undefined;
    if (!stat?.isFile()) {
      throw new SpecError(
        error(
          'shard',
          `shard ${shard.shard} (${shard.shown}): ${path.relative(shard.dir, file)} is listed in its ownership record but ${type === 'link' ? 'is a symbolic link' : type ? 'is not a regular file' : 'is missing'}`,
          {
            file: shard.shown,
            hint: `${UPLOAD_HINT}; capi-render never follows links in a shard`,
          },
        ),
      );
    }
    if (stat.size > MAX_INPUT_FILE_BYTES) {
      throw new SpecError(
        error(
          'shard',
          `shard ${shard.shard} (${shard.shown}): ${path.relative(shard.dir, file)} is ${stat.size} bytes, over the ${MAX_INPUT_FILE_BYTES}-byte limit`,
          { file: shard.shown },
        ),
      );
    }
    let bytes: Buffer | undefined;
    try {
      bytes = await readRecordFile(shard.dir, file, 'output', { listed: true });
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      // Replaced since it was listed (a link, a FIFO, a file grown past the limit).
      throw new SpecError(
        error('shard', `shard ${shard.shard} (${shard.shown}): ${e.diagnostics[0]!.message}`, {
          file: shard.shown,
          hint: `${UPLOAD_HINT}; capi-render never follows links in a shard`,
        }),
      );
    }
    if (bytes === undefined)
      throw new SpecError(
        error(
          'shard',
          `shard ${shard.shard} (${shard.shown}): ${path.relative(shard.dir, file)} is listed in its ownership record but is missing`,
          { file: shard.shown, hint: UPLOAD_HINT },
        ),
      );
    files.set(rel, bytes.toString('utf8'));
  }
  return files;
}
