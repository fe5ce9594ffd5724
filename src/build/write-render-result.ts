/**
 * Writing a build's output as one transaction, from the render run's stream (writeRenderRun): the
 * one write path of `build`, `upgrade` and library callers. A caller that must see the whole output
 * before it is committed (`upgrade` compares it with rendered/) asks for it collected from the same
 * stream (`review`); nothing is rendered twice and no collected plan is turned back into a stream.
 */
import type { Diagnostic } from '../errors.js';
import type { LockFile } from '../lock/lock-types.js';
import type { LockState } from '../lock/lock-state.js';
import type { RenderResult } from '../render/render-options.js';
import type { RenderRun } from '../render/render-run.js';
import { collectRun } from '../render/render.js';
import { BoundedMap } from '../bounded-map.js';
import type { EnvironmentResult } from '../render/environment-result.js';
import { sha256Of, type DigestsByPath, type ProducedDigests } from '../output/output-fingerprint.js';
import { PathMap, PathNames } from '../output/path-table.js';
import type { OutputFiles } from '../plan/output-plan.js';
import { writeOutput, type OutputSource, type WriteRenderResultOptions } from '../output/write-output.js';
import type { WrittenRenderResult } from '../output/write-summary.js';

export type { WriteRenderResultOptions } from '../output/write-output.js';
export type { WrittenRenderResult } from '../output/write-summary.js';

/** Distinct file texts whose sha256 is remembered (the texts a fleet shares stay the most recent). */
const DIGEST_ENTRIES = 1024;

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
 * the lock, the ownership records and every staged file are installed by one commit at the end.
 * `onEnvironment` sees each rendered environment (for progress lines); `review` sees the whole
 * output, collected as it streamed, once the last environment is staged and before the removal guard
 * runs; `beforeCommit` may still refuse the lock (`--frozen`). When either throws, nothing is changed.
 */
export async function writeRenderRun(
  run: RenderRun,
  options: WriteRenderResultOptions & {
    onEnvironment?: (result: EnvironmentResult) => void;
    review?: (output: RenderResult) => void | Promise<void>;
    beforeCommit?: (lock: LockFile) => void;
  },
): Promise<WrittenRenderRun> {
  let warnings: Diagnostic[] = [];
  // Every file of the fleet until the fingerprint is taken: held compactly (path-table.ts).
  const names = new PathNames();
  const produced: ProducedDigests = { out: new PathMap(names), gitops: new PathMap(names) };
  // Identical texts (a CRD in every environment) are hashed once. Bounded, so the texts that only
  // one environment has are let go with it.
  const digests = new BoundedMap<string, string>(DIGEST_ENTRIES);
  const note = (into: DigestsByPath, files: OutputFiles) => {
    for (const [rel, text] of files) {
      let sha256 = digests.get(text);
      if (sha256 === undefined) digests.set(text, (sha256 = sha256Of(text)));
      into.set(rel, sha256);
    }
  };
  // Only a reviewed write holds the whole output in memory.
  const reviewing = options.review ? { review: options.review, collected: collectRun(run) } : undefined;
  const source: OutputSource = {
    ...run,
    run: async (stage) => {
      const done = await run.renderEach(async (output) => {
        options.onEnvironment?.(output.result);
        reviewing?.collected.add(output);
        note(produced.out, output.files);
        note(produced.gitops, output.gitopsFiles);
        await stage(output.files, output.gitopsFiles);
      });
      note(produced.gitops, done.fleetGitopsFiles);
      warnings = done.warnings;
      if (reviewing) await reviewing.review(reviewing.collected.result(done));
      return done;
    },
  };
  const { written, lockState } = await writeOutput(source, options);
  return { written, lockState, warnings, produced };
}
