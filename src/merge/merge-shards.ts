/**
 * The fan-in of a sharded build: N CI jobs each ran `build --shard K/N` from the same commit and
 * uploaded their output; this merges them into the repository so that it ends up exactly as one
 * full build would leave it — rendered/, gitops/, their ownership records and capi-render.lock —
 * through the same write transaction as `build` (write-output.ts: refused locations, ownership,
 * the removal guard, one atomic commit).
 *
 * Design notes: docs/internals.md "merge/merge-shards.ts".
 */
import path from 'node:path';
import { error, throwIfErrors, type Diagnostic } from '../errors.js';
import type { LockFile, LockedInputFile } from '../lock/lock-types.js';
import { nextLock, type RenderedLockEntries } from '../lock/next-lock.js';
import { lockEmulates } from '../lock/lock-file.js';
import { baselineOf } from '../baseline/baseline.js';
import { selectShard } from '../overlay/discover-environments.js';
import { isGitopsFileOf } from '../gitops/layout.js';
import type { RenderRun } from '../render/render-run.js';
import type { OutputSource } from '../output/write-output.js';
import { readShard, readShardFiles, type Shard } from './read-shard.js';

/** The shards, each with the environments it answers for. */
export interface ShardSet {
  shards: { shard: Shard; environments: string[] }[];
  /** The lock a full build would leave. */
  lock: LockFile;
}

/** Reads shard folders `dirs` (in shard order) and merges their locks; throws for inconsistent shards. */
export async function readShardSet(
  dirs: readonly { shown: string; dir: string }[],
  run: RenderRun,
  base: LockFile,
): Promise<ShardSet> {
  const count = dirs.length;
  const shards = [];
  for (const [i, d] of dirs.entries()) {
    const shard = await readShard(d.shown, d.dir, `${i + 1}/${count}`, run.config);
    const environments = selectShard(
      run.allEnvironments.map((name) => ({ name })),
      shard.shard,
    ).map((e) => e.name);
    shards.push({ shard, environments });
  }
  const problems: Diagnostic[] = [];
  for (const { shard } of shards) {
    const changed = differentInputFiles(shard.lock.inputFiles, run.inputFiles);
    if (changed.length > 0) {
      problems.push(
        error(
          'shard',
          `shard ${shard.shard} (${shard.shown}) was built from other inputs than this checkout: ${changed.slice(0, 5).join(', ')}${changed.length > 5 ? ` and ${changed.length - 5} more` : ''}`,
          {
            file: shard.shown,
            hint: 'every shard job and the merge job must check out the same commit',
          },
        ),
      );
    }
  }
  throwIfErrors(problems);
  const entries: RenderedLockEntries[] = [];
  for (const { shard, environments } of shards) {
    for (const env of environments) {
      const locked = shard.lock.environments.find((e) => e.name === env);
      if (!locked) {
        problems.push(
          error(
            'shard',
            `shard ${shard.shard} (${shard.shown}) holds no lock entry for environment ${env}, which shard ${shard.shard} renders`,
            { file: shard.shown, hint: orderHint(count) },
          ),
        );
        continue;
      }
      const used = new Set(locked.providers.map((p) => `${p.source}\u0000${p.version}`));
      entries.push({
        environment: env,
        ...(locked.inputs ? { inputs: locked.inputs } : {}),
        providers: locked.providers,
        crds: locked.crds ?? [],
        artifacts: shard.lock.artifacts.filter((a) => used.has(`${a.source}\u0000${a.version}`)),
        images: (shard.lock.images ?? []).filter((i) => (locked.images ?? []).includes(i.image)),
      });
    }
  }
  problems.push(
    ...imageDisagreements(
      entries,
      new Map(
        shards.flatMap(({ shard, environments }) =>
          environments.map((e) => [e, `shard ${shard.shard} (${shard.shown})`] as const),
        ),
      ),
    ),
  );
  throwIfErrors(problems);
  const lock = nextLock(
    base,
    entries,
    run.allEnvironments,
    run.inputFiles,
    lockEmulates(baselineOf(run.config.emulate)),
  );
  for (const { shard, environments } of shards) {
    for (const env of environments) {
      const expected = run.inputsHashFor(env, lock);
      const recorded = lock.environments.find((e) => e.name === env)?.inputs;
      if (expected !== undefined && expected !== recorded) {
        problems.push(
          error(
            'shard',
            `shard ${shard.shard} (${shard.shown}): the output of environment ${env} is not what this checkout's inputs render (its lock entry has another inputs hash)`,
            {
              file: shard.shown,
              hint: `${orderHint(count)}, all built from the commit being merged`,
            },
          ),
        );
      }
    }
  }
  throwIfErrors(problems);
  return { shards, lock };
}

/** The merged output as the writer takes it: every environment, from the shard that rendered it. */
export function shardOutput(set: ShardSet, run: RenderRun): OutputSource {
  return {
    config: run.config,
    outputDir: run.outputDir,
    gitopsDir: run.gitopsDir,
    allEnvironments: run.allEnvironments,
    rendering: run.allEnvironments,
    skipped: [],
    async run(stage) {
      for (const { shard, environments } of set.shards) {
        for (const env of environments) {
          const files = await readShardFiles(shard, shard.rendered, (rel) => rel.startsWith(`${env}/`));
          const gitops = await readShardFiles(shard, shard.gitops, (rel) => isGitopsFileOf(rel, env));
          await stage(files, gitops);
        }
      }
      return { lock: set.lock };
    },
  };
}

function differentInputFiles(
  shard: readonly LockedInputFile[] | undefined,
  here: readonly LockedInputFile[],
): string[] {
  if (!shard) return ['(its lock records no input files)'];
  const theirs = new Map(shard.map((f) => [f.file, f.sha256]));
  const ours = new Map(here.map((f) => [f.file, f.sha256]));
  return [...new Set([...theirs.keys(), ...ours.keys()])].filter((f) => theirs.get(f) !== ours.get(f)).sort();
}

function orderHint(count: number): string {
  return `give the ${count} shard folders in shard order (the output of --shard 1/${count} first)`;
}

/** Real paths of shard folders may not be the repository, hold it, or lie in its output folders. */
export function shardLocationProblem(real: string, repoRoot: string, outputs: readonly string[]): string | undefined {
  const inside = (child: string, parent: string) => child === parent || child.startsWith(parent + path.sep);
  if (inside(repoRoot, real)) return real === repoRoot ? 'is the repository itself' : 'holds the repository';
  const output = outputs.find((o) => inside(real, o) || inside(o, real));
  return output ? `overlaps the output folder ${output}` : undefined;
}

/**
 * One released image pins one digest: two shards that resolved it (each where its environments pull
 * it from, e.g. two mirrors) to different digests cannot both be locked. Each build refuses that
 * within itself (images/image-resolver.ts); across shards it is found here.
 */
export function imageDisagreements(
  entries: readonly RenderedLockEntries[],
  shardOf: ReadonlyMap<string, string>,
): Diagnostic[] {
  const seen = new Map<string, { digest: string; environment: string }>();
  const problems: Diagnostic[] = [];
  for (const entry of entries) {
    for (const image of entry.images) {
      const earlier = seen.get(image.image);
      if (earlier && earlier.digest !== image.digest) {
        problems.push(
          error(
            'shard',
            `${image.image} is pinned to ${earlier.digest} by environment ${earlier.environment} (${shardOf.get(earlier.environment)}) but to ${image.digest} by ${entry.environment} (${shardOf.get(entry.environment)}): one released image pins one digest`,
            {
              hint: 'mirror the image again so every registry the environments pull from holds what the release tags, then run the shard jobs again',
            },
          ),
        );
      } else if (!earlier) seen.set(image.image, { digest: image.digest, environment: entry.environment });
    }
  }
  return problems;
}
