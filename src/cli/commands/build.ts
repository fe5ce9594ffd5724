/** `capi-render build`: render environments, write rendered/, gitops/ and capi-render.lock as one transaction (or print with --stdout). */
import path from 'node:path';
import { DriftError, UsageError, error } from '../../errors.js';
import { describeLockDifferences } from '../../lock/next-lock.js';
import { repairedFiles, runBuild, type BuildRun } from '../../build/run-build.js';
import { reportStampedNoop } from '../no-op-build.js';
import { reportWrite, summarizeNames } from '../report-write.js';
import type { LockFile } from '../../lock/lock-types.js';
import type { LockState } from '../../lock/lock-state.js';
import { render } from '../../render/render.js';
import { defineCommand, type CommandContext } from '../command.js';
import { defineOptions, type OptionValues } from '../options.js';
import { failpointFromEnv } from '../failpoint.js';
import { fleetHeapTuner } from '../fleet-heap.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_OPTIONS, prepareRender, type PreparedRender } from '../render-options.js';
import { streamEnvironment } from '../environment-stream.js';

const BUILD_OPTIONS = defineOptions({
  ...RENDER_OPTIONS,
  out: {
    type: 'string',
    value: 'DIR',
    help: "export: write the complete output of the environments into DIR (the GitOps folder goes beside it); the repository's rendered/, gitops/ and capi-render.lock are left as they are",
  },
  force: {
    type: 'boolean',
    help: 'render every environment, even those whose inputs and output are unchanged since the last build',
  },
  stdout: {
    type: 'boolean',
    help: 'print the objects of one environment as a multi-document YAML stream; write nothing',
  },
  frozen: { type: 'boolean', help: 'fail instead of changing capi-render.lock (for CI)' },
  'allow-removal': {
    type: 'boolean',
    help: 'accept a build that removes providers, CRDs or whole environments (refused by default: Argo CD / Flux would prune them)',
  },
});

type BuildContext = CommandContext<OptionValues<typeof BUILD_OPTIONS>>;

export const buildCommand = defineCommand({
  name: 'build',
  summary: 'render every environment (or those named) into rendered/ and pin them in capi-render.lock',
  options: BUILD_OPTIONS,
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    // What `check` refuses to read (a link, a FIFO, a device in place of the lock, in rendered/ or
    // gitops/) a build refuses too, in prepareRender, before it reads or writes anything of it.
    const prepared = await prepareRender(ctx, { writes: !values.stdout });
    if (values.stdout) return printEnvironment(ctx, prepared);
    const exportDir = values.out ? path.resolve(io.cwd, values.out) : undefined;
    const partial = values.env.length > 0 || values.shard !== undefined;
    const failpoint = failpointFromEnv(io.env);
    const use = prepared.options.cache?.use;
    // A full build whose inputs, lock and output files are exactly as a stamped build left them is
    // a no-op: nothing is loaded or composed (see build/build-stamp.ts). An export always writes.
    if (
      !exportDir &&
      !values.force &&
      !partial &&
      (await reportStampedNoop({
        io,
        repoRoot,
        cacheDir: prepared.cacheDir,
        lockText: prepared.lockState.text,
        ...(use ? { use } : {}),
        color,
      }))
    )
      return 0;
    const lines: string[] = [];
    const tuneHeap = fleetHeapTuner();
    let build: BuildRun;
    try {
      build = await runBuild({
        render: prepared.options,
        cacheDir: prepared.cacheDir,
        ...(exportDir ? { exportDir } : {}),
        partial,
        force: values.force,
        previousLock: prepared.lockState,
        allowRemoval: values['allow-removal'],
        ...(failpoint ? { failpoint } : {}),
        onEnvironment: (e) => {
          tuneHeap();
          const parts = [
            ...(e.certManager ? [`cert-manager ${e.certManager.version}`] : []),
            ...e.providers.map((p) => `${p.label} ${p.version}`),
          ];
          lines.push(`rendered ${e.environment.name}: ${parts.length > 0 ? parts.join(', ') : 'no providers'}\n`);
        },
        beforeCommit: (lock) => refuseLockChange(values, prepared.lockState, lock),
      });
    } finally {
      await prepared.settleCache();
    }
    const { run, written } = build;
    if (written.warnings.length > 0) io.stderr.write(formatDiagnostics(written.warnings, { color }));
    for (const line of lines) io.stderr.write(line);
    if (run.skipped.length > 0)
      io.stderr.write(
        `unchanged since the last build (inputs hash in capi-render.lock): ${summarizeNames(run.skipped)}\n`,
      );
    const repaired = repairedFiles(run, written.written, repoRoot);
    if (repaired.length > 0)
      io.stderr.write(
        `repaired (edited by hand since the last build; the inputs render otherwise): ${summarizeNames(repaired)}\n`,
      );
    reportWrite(ctx, written.written);
    return 0;
  },
});

/** `--stdout`: one environment as a multi-document stream; nothing is written. */
async function printEnvironment(ctx: BuildContext, prepared: PreparedRender): Promise<number> {
  const { io, values, color } = ctx;
  const result = await render(prepared.options);
  await prepared.settleCache();
  if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
  refuseLockChange(values, prepared.lockState, result.lock);
  if (result.environments.length !== 1) {
    throw new UsageError(
      `--stdout prints one environment; choose one with --env (${result.allEnvironments.join(', ')})`,
    );
  }
  io.stdout.write(
    streamEnvironment({
      environment: result.environments[0]!,
      previousLock: prepared.lockState.lock,
      nextLock: result.lock,
      allowRemoval: values['allow-removal'],
    }),
  );
  return 0;
}

/** `--frozen`: a build that would change the lock fails (before anything is written). */
function refuseLockChange(values: BuildContext['values'], before: LockState, after: LockFile): void {
  if (!values.frozen) return;
  const { changes, line } = describeLockDifferences(before, after);
  if (changes.length === 0) return;
  throw new DriftError(
    error('frozen', `--frozen: the build would change capi-render.lock:\n  ${changes.join('\n  ')}`, {
      file: 'capi-render.lock',
      ...(line ? { line, col: 1 } : {}),
      hint: 'run capi-render build without --frozen and commit the updated lock',
    }),
  );
}
