/**
 * Writing a build's output as one transaction: a collected render result (writeRenderResult, for
 * `upgrade` and library callers) or a streaming run (writeRenderRun, for `build`). Both go through
 * write-output.ts, so they leave the repository in exactly the same state.
 */
import type { Diagnostic } from '../errors.js';
import type { LockFile } from '../lock/lock-types.js';
import type { LockState } from '../lock/lock-state.js';
import type { RenderResult } from '../render/render-options.js';
import type { RenderRun } from '../render/render-run.js';
import type { EnvironmentResult } from '../render/environment-result.js';
import { sha256Of, type ProducedDigests } from '../output/output-fingerprint.js';
import type { OutputFiles } from '../plan/output-plan.js';
import { writeOutput, type OutputSource, type WriteRenderResultOptions } from '../output/write-output.js';
import type { WrittenRenderResult } from '../output/write-summary.js';

export type { WriteRenderResultOptions } from '../output/write-output.js';
export type { WrittenRenderResult } from '../output/write-summary.js';

/** Writes a collected render result: the output trees and the lock in one transaction. */
export async function writeRenderResult(
  result: RenderResult,
  options: WriteRenderResultOptions,
): Promise<WrittenRenderResult> {
  const replay: OutputSource = {
    config: result.config,
    outputDir: result.outputDir,
    gitopsDir: result.gitopsDir,
    allEnvironments: result.allEnvironments,
    rendering: result.environments.map((e) => e.environment.name),
    skipped: result.skipped,
    async run(onEnvironment) {
      if (result.files.size > 0 || result.gitopsFiles.size > 0) await onEnvironment(result.files, result.gitopsFiles);
      return { lock: result.lock };
    },
  };
  return (await writeOutput(replay, options)).written;
}

/** What {@link writeRenderRun} leaves: the write, and the lock and warnings of the build. */
export interface WrittenRenderRun {
  /** capi-render.lock after the write (without a text when there is none). */
  lockState: LockState;
  written: WrittenRenderResult;
  warnings: Diagnostic[];
  /** sha256 of every file staged, by folder (for the output fingerprint). */
  produced: ProducedDigests;
}

/**
 * Renders and writes environment by environment (see render/render-run.ts): each environment's
 * files are staged as soon as it is rendered and then let go, so memory does not grow with the fleet;
 * the lock, the ownership records and every staged file are installed by one commit at the end, as
 * {@link writeRenderResult} does. `onEnvironment` sees each rendered environment (for progress
 * lines); `beforeCommit` may still refuse the lock (`--frozen`): then nothing is changed.
 */
export async function writeRenderRun(
  run: RenderRun,
  options: WriteRenderResultOptions & {
    onEnvironment?: (result: EnvironmentResult) => void;
    beforeCommit?: (lock: LockFile) => void;
  },
): Promise<WrittenRenderRun> {
  let warnings: Diagnostic[] = [];
  const produced: ProducedDigests = { out: new Map(), gitops: new Map() };
  // Identical texts (a CRD in every environment) are hashed once.
  const digests = new Map<string, string>();
  const note = (into: Map<string, string>, files: OutputFiles) => {
    for (const [rel, text] of files) {
      let sha256 = digests.get(text);
      if (sha256 === undefined) digests.set(text, (sha256 = sha256Of(text)));
      into.set(rel, sha256);
    }
  };
  const source: OutputSource = {
    ...run,
    run: async (stage) => {
      const done = await run.renderEach(async (output) => {
        options.onEnvironment?.(output.result);
        note(produced.out, output.files);
        note(produced.gitops, output.gitopsFiles);
        await stage(output.files, output.gitopsFiles);
      });
      note(produced.gitops, done.fleetGitopsFiles);
      warnings = done.warnings;
      return done;
    },
  };
  const { written, lockState } = await writeOutput(source, options);
  return { written, lockState, warnings, produced };
}
