/**
 * `capi-render check --live FILE`: render one environment in memory and compare it with a dump of
 * the running cluster the way a server-side apply would (see adopt/live/). Exit 0 when the first
 * sync changes nothing but capi-render's own annotations, 1 otherwise; nothing is written.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { UsageError, warning } from '../../errors.js';
import { readLiveDump } from '../../adopt/live-dump.js';
import { buildLiveReport, type LiveCheckComponent } from '../../adopt/live/live-report.js';
import { sortObjects } from '../../manifest/order.js';
import { assignFileNames } from '../../plan/file-names.js';
import { render } from '../../render/render.js';
import type { CommandContext } from '../command.js';
import { formatDiagnostics } from '../format.js';
import { formatLiveReport } from '../format-live-report.js';
import { prepareRender, type RenderFlagValues } from '../render-options.js';
import { effectiveInputs } from '../../render/effective-inputs.js';
import { CERT_MANAGER_COMPONENT } from '../../render/cert-manager.js';
import { providerInputs } from '../../adopt/live/provider-inputs.js';

/** The managers Argo CD and Flux apply with (their earlier applies make removals possible). */
const GITOPS_MANAGERS = ['argocd-controller', 'kustomize-controller'];

/** What the live check reads of check's values (check.ts declares them), besides the render flags. */
export interface LiveCheckValues extends RenderFlagValues {
  readonly json: boolean;
  readonly 'field-manager': string | undefined;
}

/** Compares with the dump in `dumpFile` (`--live FILE`). */
export async function runLiveCheck(ctx: CommandContext<LiveCheckValues>, dumpFile: string): Promise<number> {
  const { io, values, repoRoot, color } = ctx;
  // Like every check, it reads nothing through a link: a link planted in rendered/ or gitops/ is refused (prepareRender's gate).
  const prepared = await prepareRender(ctx);
  const result = await render(prepared.options);
  if (result.environments.length !== 1) {
    throw new UsageError(
      `--live compares one environment with one cluster; choose it with --env (${result.allEnvironments.join(', ')})`,
    );
  }
  const env = result.environments[0]!;
  const name = env.environment.name;
  const dump = await readLiveDump(dumpFile, io.cwd);
  const warnings = [...result.warnings];
  if (!dump.hasManagedFields) {
    warnings.push(
      warning(
        'live-dump',
        `${dump.file} has no managedFields (kubectl get hides them unless --show-managed-fields is given): fields the apply would take over from clusterctl, and removals, cannot be shown`,
        { file: dump.file },
      ),
    );
  }
  if (warnings.length > 0) io.stderr.write(formatDiagnostics(warnings, { color }));
  const outputDir = path.relative(repoRoot, result.outputDir).split(path.sep).join('/') || '.';
  // The composed inputs, for hints naming the file and line that decide a differing field.
  const inputs = providerInputs((await effectiveInputs(repoRoot, name))?.inputs.providers ?? []);
  const components: LiveCheckComponent[] = env.environment.components.map((c) => {
    const objects = sortObjects(c.objects.map((object) => ({ object }))).map((x) => x.object);
    const files = assignFileNames(objects, `${name}/${c.name}`).map((f) => `${outputDir}/${name}/${c.name}/${f}`);
    const provider = env.providers.find((p) => p.label === c.name.split('.')[0]);
    const input = provider ? inputs.get(`${provider.cr.kind}/${provider.cr.namespace}/${provider.cr.name}`) : undefined;
    return {
      name: c.name,
      objects,
      files,
      ...(provider ? { components: provider.files.components } : {}),
      ...(input ? { input } : {}),
      ...(c.name === CERT_MANAGER_COMPONENT ? { certManager: true } : {}),
    };
  });
  const manager = values['field-manager'] !== undefined ? [values['field-manager']] : GITOPS_MANAGERS;
  const overlay = `${result.config.overlaysDir}/${name}/overlay.yaml`;
  const hasOverlay = existsSync(path.join(repoRoot, overlay));
  const report = buildLiveReport(components, dump, {
    environment: name,
    fieldManagers: manager,
    variablesFile: hasOverlay ? overlay : 'capi-render.yaml',
    hintFiles: { settings: hasOverlay ? overlay : 'capi-render.yaml', ...(hasOverlay ? { overlay } : {}) },
  });
  if (values.json) io.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else io.stderr.write(formatLiveReport(report, { color }));
  return report.clean ? 0 : 1;
}
