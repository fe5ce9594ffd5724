/**
 * `capi-render variables`: per environment and provider, every `${VAR}` the components use — its
 * default, whether it is required, whether it ends in a Secret, and where the environment's value
 * comes from (like clusterctl's `generate provider --describe`, per environment). Never a value.
 * Nothing is written in the repository. A required variable without a value is listed as MISSING
 * and the command still exits 0: `build` and `check` are the gates.
 */
import { listVariables } from '../../render/list-variables.js';
import type { ListedVariable, VariableListDocument } from '../../render/variables-report.js';
import { defineCommand } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { UNSHARDED_RENDER_OPTIONS, prepareRender } from '../render-options.js';

export const variablesCommand = defineCommand({
  name: 'variables',
  summary:
    "list the ${VAR}s each provider's components use: default, required, secret, and per environment where the value comes from (never the value)",
  options: {
    ...UNSHARDED_RENDER_OPTIONS,
    provider: {
      type: 'string',
      value: 'LABEL',
      help: 'only the provider with this manifest label, e.g. infrastructure-aws',
    },
    json: {
      type: 'boolean',
      help: 'print {apiVersion, kind: VariableList, environments: [{environment, providers: [{provider, version, variables: [{name, default, required, secret, source, from}]}]}]}; source is overlay, configSecret, config, env, default or missing, from says where (null for default and missing)',
    },
  },
  async run(ctx) {
    const { io, values, color } = ctx;
    const prepared = await prepareRender(ctx);
    const listed = await listVariables({
      ...prepared.options,
      ...(values.provider !== undefined ? { provider: values.provider } : {}),
    }).finally(() => prepared.settleCache());
    if (listed.warnings.length > 0) io.stderr.write(formatDiagnostics(listed.warnings, { color }));
    io.stdout.write(
      values.json ? `${JSON.stringify(listed.document, null, 2)}\n` : formatVariablesText(listed.document),
    );
    const missing = listed.document.environments.flatMap((e) =>
      e.providers.flatMap((p) =>
        p.variables.filter((v) => v.source === 'missing').map((v) => `${e.environment}/${p.provider} ${v.name}`),
      ),
    );
    if (missing.length > 0) {
      io.stderr.write(
        `${missing.length} required variable${missing.length === 1 ? ' has' : 's have'} no value (a build fails): ${missing.join(', ')}\n`,
      );
    }
    const unset = listed.document.environments.flatMap((e) =>
      e.providers.flatMap((p) =>
        p.variables.filter((v) => v.source === 'unset').map((v) => `${e.environment}/${p.provider} ${v.name}`),
      ),
    );
    if (unset.length > 0) {
      const what = `${unset.length} secret reference${unset.length === 1 ? ' has' : 's have'} no value`;
      io.stderr.write(
        `${what} (a build needs one only where it would show, not in a Secret that secrets.mode leaves out or replaces): ${unset.join(', ')}\n`,
      );
    }
    return 0;
  },
});

/** One table per environment and provider, columns aligned. */
export function formatVariablesText(document: VariableListDocument): string {
  const out: string[] = [];
  for (const e of document.environments) {
    out.push(`environment ${e.environment}\n`);
    if (e.providers.length === 0) out.push('  (no provider)\n');
    for (const p of e.providers) {
      out.push(`  ${p.provider} ${p.version}\n`);
      if (p.variables.length === 0) {
        out.push('    (no variables)\n');
        continue;
      }
      const rows = [['NAME', 'REQUIRED', 'SECRET', 'DEFAULT', 'SOURCE'], ...p.variables.map(row)];
      const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
      for (const r of rows)
        out.push(`    ${r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}\n`);
    }
  }
  return out.join('');
}

function row(v: ListedVariable): string[] {
  const source =
    v.source === 'missing'
      ? 'MISSING'
      : v.source === 'default'
        ? 'default'
        : v.source === 'configSecret'
          ? `configSecret ${v.from}`
          : v.source === 'unset'
            ? `UNSET ${v.from}`
            : String(v.from);
  return [v.name, v.required ? 'yes' : 'no', v.secret ? 'yes' : 'no', v.default ?? '-', source];
}
