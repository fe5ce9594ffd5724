/** `capi-render build`: render environments, write rendered/ and capi-render.lock atomically (or print with --stdout). */
import path from 'node:path';
import { DriftError, UsageError, error } from '../../errors.js';
import { describeLockChanges } from '../../lock/next-lock.js';
import { environmentStream } from '../../output/plan.js';
import { writeRenderResult } from '../../output/write-render-result.js';
import { render } from '../../render/render.js';
import type { Command } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender } from '../render-options.js';

export const buildCommand: Command = {
  name: 'build',
  summary: 'render every environment (or those named) into rendered/ and pin them in capi-render.lock',
  usage: '[--env NAME]... [--shard K/N] [--out DIR] [--stdout] [--offline] [--frozen]',
  help: [
    ...RENDER_FLAG_HELP,
    ['--out DIR', 'write to DIR instead of the configured output folder (default rendered/)'],
    ['--stdout', 'print the objects of one environment as a multi-document YAML stream; write nothing'],
    ['--frozen', 'fail instead of changing capi-render.lock (for CI)'],
  ],
  options: { ...RENDER_FLAGS, out: { type: 'string' }, stdout: { type: 'boolean' }, frozen: { type: 'boolean' } },
  async run(ctx) {
    const { io, values, repoRoot, color } = ctx;
    const prepared = await prepareRender(ctx);
    const result = await render({ ...prepared.options, skipUnchanged: !values.stdout });
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    const changes = describeLockChanges(prepared.lock, result.lock);
    if (values.frozen && changes.length > 0) {
      throw new DriftError(
        error('frozen', `--frozen: the build would change capi-render.lock:\n  ${changes.join('\n  ')}`, {
          file: 'capi-render.lock',
          hint: 'run capi-render build without --frozen and commit the updated lock',
        }),
      );
    }
    if (values.stdout) {
      if (result.environments.length !== 1) {
        throw new UsageError(`--stdout prints one environment; choose one with --env (${result.allEnvironments.join(', ')})`);
      }
      io.stdout.write(environmentStream(result.environments[0]!.environment));
      return 0;
    }
    const outDir = values.out ? path.resolve(io.cwd, String(values.out)) : result.outputDir;
    const partial = ((values.env as string[] | undefined) ?? []).length > 0 || values.shard !== undefined;
    const summary = await writeRenderResult(result, { repoRoot, outDir: values.out ? outDir : undefined, partial, previousLockText: prepared.lockText, previousLock: prepared.lock });
    for (const e of result.environments) {
      const parts = [...(e.certManager ? [`cert-manager ${e.certManager.version}`] : []), ...e.providers.map((p) => `${p.label} ${p.version}`)];
      io.stderr.write(`rendered ${e.environment.name}: ${parts.join(', ')}\n`);
    }
    if (result.skipped.length > 0) io.stderr.write(`unchanged since the last build (inputs hash in capi-render.lock): ${summarizeNames(result.skipped)}\n`);
    const shown = path.relative(io.cwd, outDir) || '.';
    io.stderr.write(`${shown}: ${summary.written.length} written, ${summary.unchanged} unchanged, ${summary.removed.length} removed${summary.lockWritten ? '; capi-render.lock updated' : ''}\n`);
    return 0;
  },
};

function summarizeNames(names: readonly string[]): string {
  return names.length <= 8 ? names.join(', ') : `${names.slice(0, 8).join(', ')} and ${names.length - 8} more`;
}
