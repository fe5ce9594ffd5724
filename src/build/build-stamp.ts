/**
 * The whole-build stamp: what a full build read, so that the next one can tell in a few file reads
 * that nothing changed and skip loading, validating and composing altogether (a no-op rebuild).
 *
 * Design notes: docs/internals.md "build/build-stamp.ts".
 */
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { CacheUse } from '../cache/cache-use.js';
import type { RecordCount } from '../output/unchanged-summary.js';
import { fingerprintFile, outputUnchanged, readFingerprint, recordDigests } from '../output/output-fingerprint.js';
import { packageVersion } from '../package-files.js';
import { makePrivateDir, writePrivateFile } from '../private-files.js';
import { normalizeInputText } from '../declarations/input-text.js';
import { inputFileDigests } from '../render/input-file-digests.js';
import type { RunStamp } from '../render/render-run.js';
import { inputTreeDigest } from '../declarations/read-input-files.js';
import { readInputFile } from '../repository-files.js';
import { localFilesUnchanged, type LocalFileStat } from './local-artifacts.js';

/** A stamp: what the render run read (RunStamp), and what the build wrote from it. */
export interface BuildStamp extends RunStamp {
  version: string;
  outDir: string;
  gitopsDir: string;
  /** sha256 of capi-render.lock's bytes as the build left it. */
  lock: string;
  /**
   * sha256 of the output fingerprint the build recorded (output-fingerprint.ts fingerprintDigest).
   * Any later build records another, so a stamp confirms only the output of the full build that
   * wrote it: never a tree a partial build (--env, --shard) changed since.
   */
  fingerprint: string;
  /** The ownership records the build left, counted (for the no-op report). */
  records?: RecordCount[];
  /** The local repositories' release files the lock pins, with their sizes and times (local-artifacts.ts). */
  localFiles?: LocalFileStat[];
}

/** A stamp that matched, with the digests of the ownership records the output fingerprint confirmed on disk. */
export interface MatchedStamp extends BuildStamp {
  confirmedRecords: { out: string | undefined; gitops: string | undefined };
}

/** Where the stamp of `repoRoot` (built into its configured folders; exports leave none) lives. */
export function stampFile(cacheDir: string, repoRoot: string): string {
  const key = createHash('sha256')
    .update(`${path.resolve(repoRoot)}\u0000`)
    .digest('hex');
  return path.join(cacheDir, 'stamps', `${key}.json`);
}

/** sha256 (hex) of capi-render.lock's text, as a stamp records it. */
export function lockDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * The stamp of `repoRoot` when the repository is still exactly as it records — inputs, lock, and
 * every output file byte for byte (output/output-fingerprint.ts); undefined otherwise.
 */
export async function matchingStamp(
  cacheDir: string,
  repoRoot: string,
  lockText: string | undefined,
  use?: CacheUse,
): Promise<MatchedStamp | undefined> {
  const file = stampFile(cacheDir, repoRoot);
  if (lockText === undefined) return undefined;
  let stamp: BuildStamp;
  let output: ReturnType<typeof readFingerprint>;
  try {
    stamp = JSON.parse(await fs.readFile(file, 'utf8')) as BuildStamp;
  } catch {
    return undefined;
  }
  try {
    if (stamp.version !== packageVersion() || stamp.lock !== lockDigest(lockText)) return undefined;
    output = readFingerprint(fingerprintFile(cacheDir, repoRoot), {
      outDir: stamp.outDir,
      gitopsDir: stamp.gitopsDir,
      digest: stamp.fingerprint,
    });
    if (!output || !outputUnchanged(output, stamp.environments)) return undefined;
    if (!localFilesUnchanged(stamp.localFiles ?? [])) return undefined;
    if (JSON.stringify(await inputFileDigests(repoRoot, stamp.dirs)) !== JSON.stringify(stamp.inputFiles))
      return undefined;
    for (const read of stamp.reads) if (!(await readUnchanged(repoRoot, read, stamp))) return undefined;
  } catch {
    return undefined;
  }
  use?.read(file);
  return { ...stamp, confirmedRecords: recordDigests(output) };
}

/** Writes the stamp (best effort: without one the next build only takes longer). */
export async function writeStamp(file: string, stamp: BuildStamp, use?: CacheUse): Promise<void> {
  try {
    await makePrivateDir(path.dirname(file));
    await writePrivateFile(file, `${JSON.stringify(stamp)}\n`);
    use?.wrote(file);
  } catch {
    // Only time is lost.
  }
}

/** Whether one line of ComposedEnvironment.reads still holds. */
async function readUnchanged(repoRoot: string, read: string, stamp: BuildStamp): Promise<boolean> {
  const kind = read.slice(0, read.indexOf(' '));
  const file = read.slice(kind.length + 1, read.lastIndexOf(' '));
  const sha256 = read.slice(read.lastIndexOf(' ') + 1);
  // Files under providers/ and overlays/ were compared through inputFiles already.
  if (kind !== 'resource' && covered(file, stamp)) return true;
  if (kind === 'resource') return inputTreeDigest(repoRoot, file) === sha256;
  const found = await readInputFile(repoRoot, file);
  return (
    found !== undefined &&
    createHash('sha256')
      .update(normalizeInputText(found.bytes.toString('utf8')))
      .digest('hex') === sha256
  );
}

function covered(file: string, stamp: BuildStamp): boolean {
  // inputFileDigests skips dot entries: a file in one is checked on its own.
  if (!/\.ya?ml$/i.test(file) || file.split('/').some((segment) => segment.startsWith('.'))) return false;
  return [stamp.dirs.providersDir, stamp.dirs.overlaysDir].some((dir) =>
    file.startsWith(`${path.posix.normalize(dir).replace(/\/+$/, '')}/`),
  );
}
