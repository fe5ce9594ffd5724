/**
 * Writes a build's result: rendered/ and the GitOps consumer folder, each swapped in atomically.
 * Environments the build skipped as unchanged, or that it was not asked to render, keep their files;
 * environments that no longer exist lose theirs. When nothing changed at all, nothing is touched.
 */
import { existsSync } from 'node:fs';
import { isGitopsFileOf } from '../render/gitops-stage.js';
import type { RenderResult } from '../render/render.js';
import { listFiles, writeOutputTree, type WriteSummary } from './write.js';

export interface BuildWriteOptions {
  /** Only some environments were asked for (--env, --shard): the others are kept. */
  partial: boolean;
  gitopsDir: string;
}

export async function writeBuildOutput(result: RenderResult, outDir: string, options: BuildWriteOptions): Promise<WriteSummary> {
  const rendered = result.environments.map((e) => e.environment.name);
  const existing = new Set((await listFiles(outDir)).map((p) => p.split('/')[0]!));
  const stale = options.partial ? [] : [...existing].filter((n) => !result.allEnvironments.includes(n));
  const replaced = [...rendered, ...stale];
  if (replaced.length === 0) return { written: [], unchanged: 0, removed: [] };
  const summary = await writeOutputTree(outDir, result.files, { replace: (p) => replaced.includes(p.split('/')[0]!) });
  if (result.gitopsFiles.size > 0 || existsSync(options.gitopsDir)) {
    await writeOutputTree(options.gitopsDir, result.gitopsFiles, {
      replace: (p) => replaced.some((n) => isGitopsFileOf(p, n)) || (!options.partial && staleGitopsFile(p, result.allEnvironments)),
    });
  }
  return summary;
}

/** A consumer file of an environment that no longer exists. */
function staleGitopsFile(relative: string, environments: readonly string[]): boolean {
  const m = /^(?:argocd\/applications\/([^/]+)\.yaml|flux\/([^/]+)\/.*|secrets\/([^/]+)\.required\.yaml)$/.exec(relative);
  const env = m?.[1] ?? m?.[2] ?? m?.[3];
  return env !== undefined && !environments.includes(env);
}
