/**
 * The library entry point: render every environment of a repository into an output plan (paths →
 * bytes) without writing anything. `writeRenderResult` applies a plan; `check` compares one. A
 * build of a whole fleet streams instead (render-run.ts): this collects the same run in memory.
 */
import type { OutputFiles } from '../plan/output-plan.js';
import type { EnvironmentResult } from './environment-result.js';
import type { RenderOptions, RenderResult } from './render-options.js';
import { startRender } from './render-run.js';

/** Renders the repository's environments (RenderOptions) into one collected plan; writes nothing. */
export async function render(options: RenderOptions): Promise<RenderResult> {
  const run = await startRender(options);
  const environments: EnvironmentResult[] = [];
  const files: OutputFiles = new Map();
  const gitopsFiles: OutputFiles = new Map();
  const { lock, warnings, fleetGitopsFiles } = await run.renderEach(
    ({ result, files: envFiles, gitopsFiles: envGitops }) => {
      environments.push(result);
      for (const [p, text] of envFiles) files.set(p, text);
      for (const [p, text] of envGitops) gitopsFiles.set(p, text);
    },
  );
  for (const [p, text] of fleetGitopsFiles) gitopsFiles.set(p, text);
  return {
    config: run.config,
    outputDir: run.outputDir,
    skipped: run.skipped,
    gitopsDir: run.gitopsDir,
    gitopsFiles: new Map([...gitopsFiles.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
    lock,
    allEnvironments: run.allEnvironments,
    environments,
    files,
    warnings,
  };
}
