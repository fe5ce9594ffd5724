/**
 * `capi-render check`: the CI gate. Re-renders every environment in memory from the committed
 * inputs and lock, and compares with the committed rendered/, gitops/ and capi-render.lock. Exit 1
 * with a short report on drift; nothing is written.
 */
import { DriftError, UsageError, warning } from '../../errors.js';
import { runCheck } from '../../check/run-check.js';
import { defineCommand } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { RENDER_OPTIONS, prepareRender } from '../render-options.js';

export const checkCommand = defineCommand({
  name: 'check',
  summary:
    'verify that rendered/, gitops/ and capi-render.lock are exactly what the inputs render (for CI); with --live, what the first sync to a running cluster would change',
  synopsis: '[--env NAME]... [--shard K/N] [--offline] | --live FILE [--env NAME] [--json] [--field-manager NAME]',
  options: {
    ...RENDER_OPTIONS,
    shard: {
      ...RENDER_OPTIONS.shard,
      help: `${RENDER_OPTIONS.shard.help}; shard 1 also checks what belongs to no environment (output of removed environments), so N shards check as much as one full check`,
    },
    live: {
      type: 'string',
      value: 'FILE',
      help: "instead: compare one environment with a kubectl dump of the running cluster, as a server-side apply would (exit 0 when the first sync changes nothing but capi-render's own annotations)",
    },
    json: { type: 'boolean', help: 'with --live: print the report as JSON on stdout' },
    'field-manager': {
      type: 'string',
      value: 'NAME',
      help: "with --live: the applier's field manager, whose earlier applies make removals possible (default argocd-controller and kustomize-controller)",
    },
  },
  async run(ctx) {
    const { io, color, values } = ctx;
    if (values.live !== undefined) return (await import('./check-live.js')).runLiveCheck(ctx, values.live);
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
});
