/**
 * One environment as the multi-document stream `build --stdout` and the Argo CD plugin print: the
 * same objects, in the same order and with the same bytes per object as `rendered/<env>` holds.
 * A stream that would make a GitOps controller prune is refused: an environment that lost
 * providers or CRDs its committed output holds (the removal guard; the lock where nothing is committed), and an empty stream — a Config Management
 * Plugin that prints nothing and exits 0 has "succeeded", and Argo CD then prunes the whole app.
 */
import { SpecError, error } from '../errors.js';
import type { LockFile } from '../lock/lock-types.js';
import { environmentStream } from '../plan/output-plan.js';
import { committedFromLock, removalProblems } from '../output/removal-guard.js';
import type { EnvironmentResult } from '../render/environment-result.js';

export interface StreamInput {
  environment: EnvironmentResult;
  previousLock: LockFile;
  nextLock: LockFile;
  /** Accept a stream that drops providers or CRDs (`--allow-removal`). Default false. */
  allowRemoval?: boolean;
}

/** The stream's text; throws SpecError `removal` as described above. */
export function streamEnvironment(input: StreamInput): string {
  const env = input.environment.environment;
  if (!input.allowRemoval) {
    // The committed output where there is one; the lock stands in only where nothing is committed.
    const committed = input.environment.committed;
    const problems = removalProblems({
      committed: committed ? () => committed : committedFromLock(input.previousLock),
      next: input.nextLock,
      rendered: [env.name],
      retired: [],
      outputOf: () => 'the printed stream',
    });
    if (problems.length > 0) throw new SpecError(problems);
  }
  if (env.components.every((c) => c.objects.length === 0)) {
    throw new SpecError(
      error(
        'removal',
        `environment ${env.name} renders no objects: printing an empty stream would make Argo CD prune everything it applied`,
        {
          hint: 'declare its providers (providers/ or its overlay); an environment is retired by deleting its overlay, not by emptying it',
        },
      ),
    );
  }
  return environmentStream(env);
}
