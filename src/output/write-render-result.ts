/**
 * Writes what a build produced: the output tree (atomically, see write.ts) and then capi-render.lock
 * (temp file + rename, only when its text changed). Shared by `build` and `upgrade`, so both leave
 * the repository in exactly the same state for the same inputs.
 */
import { writeLockFile } from '../lock/write-lock.js';
import type { RenderResult } from '../render/render.js';
import { writeOutputTree, type WriteSummary } from './write.js';

/** Where and how {@link writeRenderResult} writes. */
export interface WriteRenderResultOptions {
  /** The repository root (the lock is written there). */
  repoRoot: string;
  /** Output folder. Default: the result's configured output folder (`rendered/`). */
  outDir?: string;
  /**
   * Whether only the rendered environments are replaced (`--env`/`--shard` builds), keeping the other
   * environments' folders as they are. Default: false — the output becomes exactly the result.
   */
  partial?: boolean;
  /** The lock file's text before the build (undefined when there was none): an unchanged lock is not rewritten. */
  previousLockText: string | undefined;
}

/** What was written: the output-tree summary, the folder and whether the lock changed. */
export interface WrittenRenderResult extends WriteSummary {
  /** Absolute output folder written. */
  outDir: string;
  /** Whether capi-render.lock was (re)written. */
  lockWritten: boolean;
}

/** Writes the output tree, then the lock. The lock is written only after the tree is in place. */
export async function writeRenderResult(result: RenderResult, options: WriteRenderResultOptions): Promise<WrittenRenderResult> {
  const outDir = options.outDir ?? result.outputDir;
  const summary = await writeOutputTree(outDir, result.files, { replace: options.partial ? result.environments.map((e) => e.environment.name) : 'all' });
  const lockWritten = await writeLockFile(options.repoRoot, result.lock, options.previousLockText);
  return { ...summary, outDir, lockWritten };
}
