/**
 * The library entry point: render every environment of a repository into an output plan (paths →
 * bytes) without writing anything; `check` compares one. A run streams (render-run.ts): the
 * collected plan is built from that stream, one environment at a time, and a write of it
 * (build/write-render-result.ts) consumes the same stream instead of a collected plan.
 */
import type { OutputFiles } from '../plan/output-plan.js';
import type { EnvironmentResult } from './environment-result.js';
import type { RenderOptions, RenderResult } from './render-options.js';
import { startRender, type RenderedOutput, type RenderRun, type RenderRunResult } from './render-run.js';

/** Renders the repository's environments (RenderOptions) into one collected plan; writes nothing. */
export async function render(options: RenderOptions): Promise<RenderResult> {
  const run = await startRender(options);
  const collected = collectRun(run);
  return collected.result(await run.renderEach((output) => collected.add(output)));
}

/** A run's stream gathered into one RenderResult: `add` each environment as it is handed over, then `result`. */
export interface RunCollector {
  add(output: RenderedOutput): void;
  result(done: RenderRunResult): RenderResult;
}

export function collectRun(run: RenderRun): RunCollector {
  const environments: EnvironmentResult[] = [];
  const files: OutputFiles = new Map();
  const gitopsFiles: OutputFiles = new Map();
  return {
    add({ result, files: envFiles, gitopsFiles: envGitops }) {
      environments.push(result);
      for (const [p, text] of envFiles) files.set(p, text);
      for (const [p, text] of envGitops) gitopsFiles.set(p, text);
    },
    result({ lock, warnings, fleetGitopsFiles }) {
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
    },
  };
}
