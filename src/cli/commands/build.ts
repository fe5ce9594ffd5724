/** `capi-render build`: render environments, write rendered/, gitops/ and capi-render.lock as one transaction (or print with --stdout). */
import path from 'node:path';
import { DriftError, SpecError, UsageError, error, warning } from '../../errors.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { environmentStream } from '../../output/plan.js';
import { removalProblems } from '../../output/removal-guard.js';
import { displayPath } from '../../output/write-errors.js';
import { writeRenderRun, type WrittenRenderResult, type WrittenRenderRun } from '../../output/write-render-result.js';
import type { LockFile } from '../../lock/lock-types.js';
import { render } from '../../render/render.js';
import { startRender } from '../../render/render-run.js';
import type { Command, CommandContext } from '../command.js';
import { failpointFromEnv } from '../failpoint.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender, type PreparedRender } from '../render-options.js';

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
    const run = await startRender({ ...prepared.options, skipUnchanged: true });
    const lines: string[] = [];
    let written: WrittenRenderRun;
    try {
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
  const name = result.environments[0]!.environment.name;
  // A plugin (Argo CD) that prints nothing and exits 0 makes its controller prune everything.
  if (!values['allow-removal']) {
    const problems = removalProblems({ previous: prepared.lock, next: result.lock, rendered: [name], retired: [], outputOf: () => 'the printed stream' });
    if (problems.length > 0) throw new SpecError(problems);
  }
  io.stdout.write(environmentStream(result.environments[0]!.environment));
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

/** The closing lines of a write: what changed where, environments retired, files left alone. */
export function reportWrite(ctx: CommandContext, summary: WrittenRenderResult): void {
  const { io, repoRoot, color } = ctx;
  const foreign = [
    ...summary.foreign.map((f) => displayPath(path.join(summary.outDir, f), repoRoot)),
    ...summary.gitops.foreign.map((f) => displayPath(path.join(summary.gitops.root, f), repoRoot)),
  ];
  if (foreign.length > 0) {
    const shown = foreign.length <= 5 ? foreign.join(', ') : `${foreign.slice(0, 5).join(', ')} and ${foreign.length - 5} more`;
    io.stderr.write(
      formatDiagnostics([warning('output-location', `left alone (not written by capi-render): ${shown}`, { hint: 'Argo CD and Flux apply only what the kustomization.yaml files list; move these files elsewhere to keep the output folders clean' })], {
        color,
      }),
    );
  }
  if (summary.retired.length > 0) io.stderr.write(`removed the output of environments that no longer exist: ${summarizeNames(summary.retired)}\n`);
  const counts = (s: { written: unknown[]; unchanged: number; removed: unknown[] }) => `${s.written.length} written, ${s.unchanged} unchanged, ${s.removed.length} removed`;
  const gitops = summary.gitops;
  const parts = [`${displayPath(summary.outDir, repoRoot)}: ${counts(summary)}`];
  if (gitops.written.length + gitops.unchanged + gitops.removed.length > 0) parts.push(`${displayPath(gitops.root, repoRoot)}: ${counts(gitops)}`);
  parts.push(`capi-render.lock ${summary.lockWritten ? 'updated' : 'unchanged'}`);
  io.stderr.write(`${parts.join('; ')}\n`);
}

function summarizeNames(names: readonly string[]): string {
  return names.length <= 8 ? names.join(', ') : `${names.slice(0, 8).join(', ')} and ${names.length - 8} more`;
}
