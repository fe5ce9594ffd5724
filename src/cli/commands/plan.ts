/** `capi-render plan`: what every provider of every environment can be upgraded to, by clusterctl's rules. */
import { formatPlanText, planDocument, PLAN_JSON_SCHEMA_HELP } from '../../upgrade/format-plan.js';
import { planRepository } from '../../upgrade/plan-repository.js';
import { defineCommand } from '../command.js';
import type { HelpRow } from '../options.js';
import { formatDiagnostics } from '../format.js';
import { UNSHARDED_RENDER_OPTIONS, prepareRender } from '../render-options.js';

export const planCommand = defineCommand({
  name: 'plan',
  summary:
    "per environment and provider: the locked version, newest patch, newest in the core's contract, and the next contracts' versions (clusterctl upgrade plan rules)",
  options: {
    ...UNSHARDED_RENDER_OPTIONS,
    json: {
      type: 'boolean',
      help: 'print the plan as JSON (schema below) instead of tables',
      moreHelp: PLAN_JSON_SCHEMA_HELP.map((line): HelpRow => ['', line]),
    },
  },
  async run(ctx) {
    const { io, values, color } = ctx;
    const prepared = await prepareRender(ctx);
    const planned = await planRepository(prepared.options).finally(() => prepared.settleCache());
    if (planned.current.warnings.length > 0) io.stderr.write(formatDiagnostics(planned.current.warnings, { color }));
    io.stdout.write(
      values.json ? `${JSON.stringify(planDocument(planned.plans), null, 2)}\n` : formatPlanText(planned.plans),
    );
    return 0;
  },
});
