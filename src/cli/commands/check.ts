/**
 * `capi-render check`: the CI gate. Re-renders every environment in memory from the committed
 * inputs and lock, and compares with the committed rendered/, gitops/ and capi-render.lock. Exit 1
 * with a short report on drift; nothing is written.
 */
import { DriftError, UsageError, warning } from '../../errors.js';
import { runCheck } from '../../check/run-check.js';
import type { Command } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_FLAGS, RENDER_FLAG_HELP, prepareRender } from '../render-options.js';

export const checkCommand: Command = {
  name: 'check',
  summary:
    'verify that rendered/, gitops/ and capi-render.lock are exactly what the inputs render (for CI); with --live, what the first sync to a running cluster would change',
  usage: '[--env NAME]... [--shard K/N] [--offline] | --live FILE [--env NAME] [--json] [--field-manager NAME]',
  help: [
    ...RENDER_FLAG_HELP.map(([flag, text]): [string, string] =>
      flag === '--shard K/N'
        ? [
            flag,
            `${text}; shard 1 also checks what belongs to no environment (output of removed environments), so N shards check as much as one full check`,
          ]
        : [flag, text],
    ),
    [
      '--live FILE',
      "instead: compare one environment with a kubectl dump of the running cluster, as a server-side apply would (exit 0 when the first sync changes nothing but capi-render's own annotations)",
    ],
    ['--json', 'with --live: print the report as JSON on stdout'],
    [
      '--field-manager NAME',
      "with --live: the applier's field manager, whose earlier applies make removals possible (default argocd-controller and kustomize-controller)",
    ],
  ],
  options: {
    ...RENDER_FLAGS,
    live: { type: 'string' },
    json: { type: 'boolean' },
    'field-manager': { type: 'string' },
  },
  async run(ctx) {
    const { io, color, values } = ctx;
    if (values.live !== undefined) return (await import('./check-live.js')).runLiveCheck(ctx);
    if (values.json || values['field-manager'] !== undefined)
      throw new UsageError('--json and --field-manager go with --live FILE');
    // Nothing but the repository's own regular files is read: a link planted in rendered/ is refused, not followed (prepareRender's gate).
    const prepared = await prepareRender(ctx);
    const { regular } = prepared;
    const result = await runCheck({ render: prepared.options, listed: [regular.output, regular.gitops] }).finally(() =>
      prepared.settleCache(),
    );
    if (result.warnings.length > 0) io.stderr.write(formatDiagnostics(result.warnings, { color }));
    if (result.foreign.length > 0)
      io.stderr.write(
        formatDiagnostics(
          [warning('output-location', `not written by capi-render (ignored): ${result.foreign.join(', ')}`)],
          { color },
        ),
      );
    if (!result.upToDate) throw new DriftError(result.report);
    const count = result.environments.length;
    io.stderr.write(
      `check: ${count} environment${count === 1 ? '' : 's'} up to date (${result.files} files, capi-render.lock)\n`,
    );
    return 0;
  },
};
