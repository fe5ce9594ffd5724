/** `capi-render build`: render environments, write rendered/, gitops/ and capi-render.lock as one transaction (or print with --stdout). */
import path from 'node:path';
import { DriftError, UsageError, error } from '../../errors.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { writeRenderRun, type WrittenRenderRun } from '../../output/write-render-result.js';
import { packageVersion } from '../../package-files.js';
import { countRecord } from '../../output/unchanged-summary.js';
import { lockDigest, stampFile, writeStamp } from '../../render/build-stamp.js';
import { reportStampedNoop } from '../no-op-build.js';
import { reportWrite, summarizeNames } from '../report-write.js';
import type { LockFile } from '../../lock/lock-types.js';
import { render } from '../../render/render.js';
import { startRender, type RenderRun } from '../../render/render-run.js';
import type { Command, CommandContext } from '../command.js';
import { failpointFromEnv } from '../failpoint.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender, type PreparedRender } from '../render-options.js';
import { streamEnvironment } from '../environment-stream.js';

export const buildCommand: Command = {
  name: 'build',
  summary: 'render every environment (or those named) into rendered/ and pin them in capi-render.lock',
  usage: '[--env NAME]... [--shard K/N] [--out DIR] [--stdout] [--offline] [--frozen] [--allow-removal]',
  help: [
    ...RENDER_FLAG_HELP,
    ['--out DIR', 'write to DIR instead of the configured output folder (default rendered/); the GitOps folder goes beside it'],
    ['--stdout', 'print the objects of one environment as a multi-document YAML stream; write nothing'],
    ['--frozen', 'fail instead of changing capi-render.lock (for CI)'],
    ['--allow-removal', 'accept a build that removes providers, CRDs or whole environments (refused by default: Argo CD / Flux would prune them)'],
  ],
  options: { ...RENDER_FLAGS, out: { type: 'string' }, stdout: { type: 'boolean' }, frozen: { type: 'boolean' }, 'allow-removal': { type: 'boolean' } },
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    const prepared = await prepareRender(ctx, { writes: !values.stdout });
    if (values.stdout) return printEnvironment(ctx, prepared);
    const outDir = values.out ? path.resolve(io.cwd, String(values.out)) : undefined;
    const partial = ((values.env as string[] | undefined) ?? []).length > 0 || values.shard !== undefined;
    const failpoint = failpointFromEnv(io.env);
    // A full build whose inputs, lock and outputs are exactly as a stamped build left them is a
    // no-op: nothing is loaded or composed (see render/build-stamp.ts).
    const stampAt = stampFile(prepared.cacheDir, repoRoot, outDir ?? '');
    const use = prepared.options.cache?.use;
    if (!partial && (await reportStampedNoop({ io, repoRoot, cacheDir: prepared.cacheDir, outDir, lockText: prepared.lockText, ...(use ? { use } : {}), color }))) return 0;
    const lines: string[] = [];
    let written: WrittenRenderRun;
    let run: RenderRun;
    try {
      run = await startRender({ ...prepared.options, skipUnchanged: true });
      written = await writeRenderRun(run, {
        repoRoot,
        ...(outDir ? { outDir, outDirFlag: '--out' } : {}),
        partial,
        previousLockText: prepared.lockText,
        previousLock: prepared.lock,
        allowRemoval: Boolean(values['allow-removal']),
        ...(failpoint ? { failpoint } : {}),
        onEnvironment: (e) => {
          const parts = [...(e.certManager ? [`cert-manager ${e.certManager.version}`] : []), ...e.providers.map((p) => `${p.label} ${p.version}`)];
          lines.push(`rendered ${e.environment.name}: ${parts.length > 0 ? parts.join(', ') : 'no providers'}\n`);
        },
        beforeCommit: (lock) => refuseLockChange(values, prepared.lock, lock),
      });
      if (!partial && run.stamp && written.lockText !== undefined) {
        const { outDir: out, gitops } = written.written;
        const records = [await countRecord(out), await countRecord(gitops.root)];
        await writeStamp(stampAt, { version: packageVersion(), outDir: out, gitopsDir: gitops.root, lock: lockDigest(written.lockText), ...run.stamp, records }, use);
      }
    } finally {
      await prepared.settleCache();
    }
    if (written.warnings.length > 0) io.stderr.write(formatDiagnostics(written.warnings, { color }));
    for (const line of lines) io.stderr.write(line);
    if (run.skipped.length > 0) io.stderr.write(`unchanged since the last build (inputs hash in capi-render.lock): ${summarizeNames(run.skipped)}\n`);
    reportWrite(ctx, written.written);
    return 0;
  },
};

/** `--stdout`: one environment as a multi-document stream; nothing is written. */
async function printEnvironment(ctx: CommandContext, prepared: PreparedRender): Promise<number> {
  const { io, values, color } = ctx;
  const result = await render(prepared.options);
  await prepared.settleCache();
  if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
  refuseLockChange(values, prepared.lock, result.lock);
  if (result.environments.length !== 1) {
    throw new UsageError(`--stdout prints one environment; choose one with --env (${result.allEnvironments.join(', ')})`);
  }
  io.stdout.write(streamEnvironment({ environment: result.environments[0]!, previousLock: prepared.lock, nextLock: result.lock, allowRemoval: Boolean(values['allow-removal']) }));
  return 0;
}

/** `--frozen`: a build that would change the lock fails (before anything is written). */
function refuseLockChange(values: CommandContext['values'], before: LockFile, after: LockFile): void {
  if (!values.frozen) return;
  const changes = describeLockChanges(before, after);
  if (changes.length === 0) return;
  throw new DriftError(
    error('frozen', `--frozen: the build would change capi-render.lock:\n  ${changes.join('\n  ')}`, {
      file: 'capi-render.lock',
      hint: 'run capi-render build without --frozen and commit the updated lock',
    }),
  );
}

