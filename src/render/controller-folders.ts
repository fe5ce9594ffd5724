/**
 * An outputDir or gitopsDir outside the repository (or written as an absolute path) is refused when
 * an environment's GitOps flavour — in capi-render.yaml or any overlay — points Argo CD or Flux at it:
 * the rule is config/output-location.ts's, which flavour reads which folder gitops-stage.ts's. Checked
 * when the repository is loaded, before any release is fetched; the environments' flavours are read
 * only when a folder could be refused at all, so the usual repository pays nothing for it.
 */
import { RenderError, error, type Diagnostic } from '../errors.js';
import type { RenderConfig } from '../config/config-types.js';
import { locateConfigSetting } from '../config/load-config.js';
import { controllerFolderProblems, type ControllerFolder } from '../config/output-location.js';
import { discoverEnvironments } from '../overlay/discover-environments.js';
import { composeGitopsSettings } from '../overlay/compose-environment.js';
import { loadOverlay, type OverlayLoader } from '../overlay/load-overlay.js';
import { mergeGitopsConfig } from '../gitops/merge-config.js';
import { controllerReads } from './gitops-stage.js';

const SETTINGS = ['outputDir', 'gitopsDir'] as const;
const CONTROLLERS = { argocd: 'Argo CD', flux: 'Flux' } as const;

/** Warnings for an output or gitops folder an Argo CD or Flux controller would read in a way that breaks it, naming the environments that read it. */
export async function controllerFolderDiagnostics(
  repoRoot: string,
  config: Pick<RenderConfig, 'outputDir' | 'gitopsDir' | 'overlaysDir' | 'gitops'>,
  load: OverlayLoader = loadOverlay,
): Promise<Diagnostic[]> {
  const suspect = await controllerFolderProblems(
    repoRoot,
    SETTINGS.map((setting) => ({ setting, value: config[setting], readers: '' })),
  );
  if (suspect.length === 0) return [];

  // Who reads each suspect folder: controller → environments.
  const readers = new Map<string, Map<string, string[]>>(SETTINGS.map((s) => [s, new Map()]));
  for (const entry of await discoverEnvironments(repoRoot, config.overlaysDir, load)) {
    let settings = config.gitops;
    if (entry.overlayDir) {
      try {
        settings = mergeGitopsConfig(
          config.gitops,
          (await composeGitopsSettings(entry.overlayDir, { repoRoot, loadOverlay: load })).gitops,
        );
      } catch (e) {
        // A broken overlay chain is reported, with its line, when the environment is composed.
        if (e instanceof RenderError) continue;
        throw e;
      }
    }
    const flavour = settings.flavour;
    if (flavour !== 'argocd' && flavour !== 'flux') continue;
    const reads = controllerReads(settings);
    for (const setting of SETTINGS) {
      if (!reads[setting]) continue;
      const byController = readers.get(setting)!;
      byController.set(CONTROLLERS[flavour], [...(byController.get(CONTROLLERS[flavour]) ?? []), entry.name]);
    }
  }

  const folders: ControllerFolder[] = SETTINGS.filter((s) => readers.get(s)!.size > 0).map((setting) => ({
    setting,
    value: config[setting],
    readers: describe(readers.get(setting)!),
  }));
  return (await controllerFolderProblems(repoRoot, folders)).map((p) =>
    error('output-location', p.message, {
      ...locateConfigSetting(repoRoot, [p.setting]),
      field: p.setting,
      hint: p.hint,
    }),
  );
}

/** `Argo CD (environment prod) and Flux (environments a, b, c and 2 more)`. */
function describe(byController: ReadonlyMap<string, readonly string[]>): string {
  const one = ([controller, envs]: [string, readonly string[]]) =>
    `${controller} (environment${envs.length > 1 ? 's' : ''} ${envs.length > 4 ? `${envs.slice(0, 3).join(', ')} and ${envs.length - 3} more` : envs.length > 1 ? `${envs.slice(0, -1).join(', ')} and ${envs.at(-1)}` : envs[0]})`;
  return [...byController]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(one)
    .join(' and ');
}
