/**
 * Runs the GitOps flavour stage for one environment with its effective settings (capi-render.yaml,
 * then its overlays), and the fleet stage once per build over every environment (destination
 * checks and the Argo CD ApplicationSet, which lists environments). Consumer files (Argo CD
 * Applications, Flux Kustomizations) come back with paths relative to the gitops folder, never
 * inside rendered/.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { GitopsConfig } from '../gitops/options.js';
import { mergeGitopsConfig } from '../gitops/merge-config.js';
import {
  composeGitopsSettings,
  type ComposeContext,
  type ComposedEnvironment,
} from '../overlay/compose-environment.js';
import { applyGitopsFlavour, type GitopsMemo } from '../gitops/apply-gitops-flavour.js';
import { argocdFleetFiles } from '../gitops/argocd-applications.js';
import { resolveGitopsOptions, type GitopsOptions } from '../gitops/options.js';
import { templateReader } from '../template-files.js';
import type { Diagnostic } from '../errors.js';
import type { RenderedEnvironment } from '../plan/output-plan.js';
import { packagePath } from '../package-files.js';

const EXTRA_PREFIX = '../gitops/';

/** Where the stage finds what it needs besides the environment's settings. */
export interface GitopsStageContext {
  repoRoot: string;
  /** Repository-relative output folder: the default path prefix Argo CD and Flux point at. */
  outputDir: string;
  templatesDir: string;
}

export interface GitopsStageInput extends GitopsStageContext {
  environment: RenderedEnvironment;
  settings: GitopsConfig;
  labels: Record<string, string>;
  memo: GitopsMemo;
}

export interface GitopsStageOutput {
  environment: RenderedEnvironment;
  /** Paths relative to the gitops folder. */
  files: Map<string, string>;
  warnings: Diagnostic[];
}

function stageOptions(settings: GitopsConfig, labels: Record<string, string>, ctx: GitopsStageContext): GitopsOptions {
  const templates = path.resolve(ctx.repoRoot, ctx.templatesDir);
  return {
    flavour: settings.flavour ?? 'kustomize',
    ...(settings.protect ? { protect: settings.protect } : {}),
    argocd: { pathPrefix: ctx.outputDir, ...settings.argocd },
    flux: { pathPrefix: ctx.outputDir, ...settings.flux },
    ...(existsSync(templates) ? { templatesDir: templates } : {}),
    labels,
  };
}

/**
 * Which of the repository's folders the flavour points a controller at, to read from git: the output
 * folder when the controllers' paths default to it ({@link stageOptions}: Argo CD with `source: path`,
 * Flux from a GitRepository without `oci`, neither with a `pathPrefix` of its own), the gitops folder
 * when it holds what the controller applies (Argo CD Applications or an ApplicationSet, Flux
 * Kustomizations). The kustomize flavour points no controller anywhere: its output may go anywhere
 * the writer accepts.
 */
export function controllerReads(settings: GitopsConfig): { outputDir: boolean; gitopsDir: boolean } {
  if (settings.flavour === 'argocd') {
    const a = settings.argocd ?? {};
    return {
      outputDir: (a.source ?? 'path') === 'path' && a.pathPrefix === undefined,
      gitopsDir: Boolean(a.application || a.applicationSet),
    };
  }
  if (settings.flavour === 'flux') {
    const f = settings.flux ?? {};
    return {
      outputDir: !f.oci && (f.sourceRef?.kind ?? 'GitRepository') === 'GitRepository' && f.pathPrefix === undefined,
      gitopsDir: true,
    };
  }
  return { outputDir: false, gitopsDir: false };
}

export function runGitopsStage(input: GitopsStageInput): GitopsStageOutput {
  const result = applyGitopsFlavour(input.environment, stageOptions(input.settings, input.labels, input), {
    memo: input.memo,
    read: templateReader(input.repoRoot),
  });
  return { environment: result.environment, files: gitopsRelative(result.extraFiles), warnings: result.warnings };
}

/** One environment's effective gitops settings, for the fleet stage. */
export interface FleetMember {
  name: string;
  settings: GitopsConfig;
  /** The overlay.yaml its settings end in, for messages. */
  file?: string;
}

/**
 * The files that depend on every environment at once: the Argo CD ApplicationSet. Also refuses
 * Argo CD environments without a destination (when several get Applications) or sharing a cluster.
 */
export function runFleetStage(members: readonly FleetMember[], ctx: GitopsStageContext): Map<string, string> {
  const environments = members.map((m) => ({
    name: m.name,
    options: resolveGitopsOptions(stageOptions(m.settings, {}, ctx)),
    ...(m.file ? { file: m.file } : {}),
  }));
  const templatesDir = path.resolve(ctx.repoRoot, ctx.templatesDir);
  const templates = {
    userDir: existsSync(templatesDir) ? templatesDir : undefined,
    bundledDir: packagePath('bundled-templates'),
    read: templateReader(ctx.repoRoot),
  };
  return gitopsRelative(new Map(argocdFleetFiles(environments, templates)));
}

function gitopsRelative(extra: ReadonlyMap<string, string>): Map<string, string> {
  const files = new Map<string, string>();
  for (const [p, text] of extra) files.set(p.startsWith(EXTRA_PREFIX) ? p.slice(EXTRA_PREFIX.length) : p, text);
  return files;
}

/**
 * An environment's effective gitops settings for the fleet stage: from its composition when this
 * build composed it, else from its overlay files alone (environments not asked for still belong in
 * the ApplicationSet and in the destination checks).
 */
export async function fleetMember(
  entry: { name: string; overlayDir?: string },
  composed: ComposedEnvironment | undefined,
  base: GitopsConfig,
  ctx: ComposeContext,
): Promise<FleetMember> {
  if (composed)
    return {
      name: entry.name,
      settings: mergeGitopsConfig(base, composed.gitops),
      ...(composed.chain.length > 0 ? { file: composed.chain.at(-1)! } : {}),
    };
  if (!entry.overlayDir) return { name: entry.name, settings: base };
  const own = await composeGitopsSettings(entry.overlayDir, ctx);
  return { name: entry.name, settings: mergeGitopsConfig(base, own.gitops), file: own.file };
}
