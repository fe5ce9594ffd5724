/** Where `mirror --to` may write (release files, or an image folder). */
import { UsageError } from '../../errors.js';
import { inputLocations, outputLocationProblems } from '../../config/output-location.js';
import type { RenderConfig } from '../../config/config-types.js';

/**
 * Where a mirror may go: not the repository root or around it, not into git, not into an input or
 * an output folder. A local repository named in `repositories:` is the one input it may fill: that
 * is what an air-gapped mirror is for (the files it writes have the pinned digests).
 */
export async function assertMirrorTarget(
  repoRoot: string,
  target: string,
  { config, outputDir, gitopsDir }: { config: RenderConfig; outputDir: string; gitopsDir: string },
  what: { writes: string; example: string },
): Promise<void> {
  const guarded: [string, string][] = [
    ...inputLocations(repoRoot, { ...config, repositories: [] }),
    ['the output folder (outputDir)', outputDir],
    ['the GitOps folder (gitopsDir)', gitopsDir],
  ];
  const problems = await outputLocationProblems(
    repoRoot,
    [{ setting: '--to', folder: target }],
    guarded,
    `the mirror would write ${what.writes}`,
  );
  if (problems.length > 0)
    throw new UsageError(
      problems
        .map((p) => `${p.message}; choose a folder of its own for the mirror, such as ${what.example}`)
        .join('\n'),
    );
}
