/**
 * `capi-render merge SHARD...`: the fan-in job of a sharded CI build. Each SHARD is the output one
 * `build --shard K/N` job uploaded (its rendered/, gitops/ and capi-render.lock), given in shard
 * order; the repository ends up exactly as one full build would leave it (see merge/merge-shards.ts).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { UsageError } from '../../errors.js';
import { readShardSet, shardLocationProblem, shardOutput } from '../../merge/merge-shards.js';
import { writeOutput } from '../../output/write-output.js';
import { startRender } from '../../render/render-run.js';
import { defineCommand } from '../command.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';
import { reportWrite } from '../report-write.js';

export const mergeCommand = defineCommand({
  name: 'merge',
  summary:
    'merge the outputs of N `build --shard K/N` jobs (in shard order) into rendered/, gitops/ and capi-render.lock, as one full build would leave them',
  synopsis: 'SHARD... [--allow-removal] [--offline] [--json]',
  arguments: {
    help: {
      'SHARD...':
        'the folders the shard jobs uploaded (each holding rendered/, gitops/ and capi-render.lock), shard 1 first',
    },
  },
  options: {
    'allow-removal': {
      type: 'boolean',
      help: 'accept a merge that removes providers, CRDs or whole environments (refused by default, as for build)',
    },
    offline: {
      ...RENDER_OPTIONS.offline,
      help: 'never use the network (the merge needs none; accepted so CI can pass it everywhere)',
    },
    'cache-dir': { ...RENDER_OPTIONS['cache-dir'], help: 'cache folder (validated inputs are remembered there)' },
    json: { type: 'boolean', help: 'print what was merged as JSON' },
  },
  async run(ctx) {
    const { io, values, positionals, repoRoot } = ctx;
    if (positionals.length === 0)
      throw new UsageError('name the shard folders, shard 1 first: capi-render merge shards/1 shards/2 …');
    const prepared = await prepareRender(ctx, { writes: true });
    try {
      const run = await startRender({ ...prepared.options, environments: [], shard: undefined });
      const realRepo = await fs.realpath(repoRoot);
      const outputs = await Promise.all(
        [run.outputDir, run.gitopsDir].map((d) => fs.realpath(d).catch(() => path.resolve(d))),
      );
      const dirs: { shown: string; dir: string; real: string }[] = [];
      for (const shown of positionals) {
        const dir = path.resolve(io.cwd, shown);
        const real = await fs.realpath(dir).catch(() => dir);
        const problem = shardLocationProblem(real, realRepo, outputs);
        if (problem)
          throw new UsageError(
            `shard folder ${shown} ${problem}; download the shard outputs to a folder of their own (e.g. $RUNNER_TEMP/shards)`,
          );
        if (dirs.some((d) => d.real === real)) throw new UsageError(`shard folder ${shown} is given twice`);
        dirs.push({ shown, dir, real });
      }
      const set = await readShardSet(dirs, run, prepared.lockState.lock);
      const { written: summary } = await writeOutput(shardOutput(set, run), {
        repoRoot,
        previousLock: prepared.lockState,
        allowRemoval: values['allow-removal'],
      });
      if (values.json) {
        const shards = set.shards.map(({ shard, environments }) => ({
          shard: shard.shard,
          folder: shard.shown,
          environments,
        }));
        io.stdout.write(
          `${JSON.stringify({ shards, written: summary.written.length, unchanged: summary.unchanged, removed: summary.removed.length, lockWritten: summary.lockWritten }, null, 2)}\n`,
        );
      }
      for (const { shard, environments } of set.shards)
        io.stderr.write(
          `merged shard ${shard.shard} (${shard.shown}): ${environments.length} environment${environments.length === 1 ? '' : 's'}\n`,
        );
      reportWrite(ctx, summary);
      return 0;
    } finally {
      await prepared.settleCache();
    }
  },
});
