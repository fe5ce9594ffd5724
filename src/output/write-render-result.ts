/**
 * Writes what a build produced: rendered/ and the GitOps consumer folder (each swapped in
 * atomically, see write.ts), then capi-render.lock (temp file + rename, only when its text changed).
 * Shared by `build` and `upgrade`, so both leave the repository in exactly the same state for the
 * same inputs. Environments the build skipped as unchanged, or was not asked to render, keep their
 * files; environments that no longer exist lose theirs; when nothing changed, nothing is touched.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { writeLockFile } from '../lock/write-lock.js';
import type { LockFile } from '../lock/lock-types.js';
import { isGitopsFileOf } from '../render/gitops-stage.js';
import type { RenderResult } from '../render/render.js';
import { writeOutputTree, type WriteSummary } from './write.js';
import { promises as fs } from 'node:fs';

/** Where and how {@link writeRenderResult} writes. */
export interface WriteRenderResultOptions {
  /** The repository root (the lock is written there). */
  repoRoot: string;
  /** Output folder. Default: the result's configured output folder (`rendered/`). */
  outDir?: string;
  /** Only some environments were asked for (--env, --shard): the others are kept. Default false. */
  partial?: boolean;
  /** The lock file's text before the build (undefined when there was none): an unchanged lock is not rewritten. */
  previousLockText: string | undefined;
  /** The lock object the build started from: when the result's lock is this same object, nothing is serialised. */
  previousLock?: LockFile;
}

/** What was written: the output-tree summary, the folder and whether the lock changed. */
export interface WrittenRenderResult extends WriteSummary {
  /** Absolute output folder written. */
  outDir: string;
  /** Whether capi-render.lock was (re)written. */
  lockWritten: boolean;
}

/** Writes the output trees, then the lock. The lock is written only after the trees are in place. */
export async function writeRenderResult(result: RenderResult, options: WriteRenderResultOptions): Promise<WrittenRenderResult> {
  const outDir = options.outDir ?? result.outputDir;
  // With --out, the consumer folder moves along, beside the output folder.
  const gitopsDir = options.outDir ? path.join(path.dirname(outDir), path.basename(result.gitopsDir)) : result.gitopsDir;
  const rendered = result.environments.map((e) => e.environment.name);
  const existing = await topLevelFolders(outDir);
  const stale = options.partial ? [] : [...existing].filter((n) => !result.allEnvironments.includes(n));
  const replaced = [...rendered, ...stale];
  let summary: WriteSummary = { written: [], unchanged: 0, removed: [] };
  if (replaced.length > 0) {
    summary = await writeOutputTree(outDir, result.files, { replace: (p) => replaced.includes(p.split('/')[0]!) });
    if (result.gitopsFiles.size > 0 || existsSync(gitopsDir)) {
      await writeOutputTree(gitopsDir, result.gitopsFiles, {
        replace: (p) => replaced.some((n) => isGitopsFileOf(p, n)) || (!options.partial && staleGitopsFile(p, result.allEnvironments)),
      });
    }
  }
  const lockWritten = await writeLockFile(options.repoRoot, result.lock, options.previousLockText, options.previousLock);
  return { ...summary, outDir, lockWritten };
}

async function topLevelFolders(dir: string): Promise<Set<string>> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
  return new Set(entries.filter((e) => e.isDirectory()).map((e) => e.name));
}

/** A consumer file of an environment that no longer exists. */
function staleGitopsFile(relative: string, environments: readonly string[]): boolean {
  const m = /^(?:argocd\/applications\/([^/]+)\.yaml|flux\/([^/]+)\/.*|secrets\/([^/]+)\.required\.yaml)$/.exec(relative);
  const env = m?.[1] ?? m?.[2] ?? m?.[3];
  return env !== undefined && !environments.includes(env);
}
