/**
 * Runs the GitOps flavour stage for one environment with its effective settings (capi-render.yaml,
 * then its overlays). Consumer files (Argo CD Applications, Flux Kustomizations) come back with
 * paths relative to the gitops folder, never inside rendered/.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { GitopsConfig } from '../config/config-types.js';
import { applyGitopsFlavour, type GitopsMemo } from '../gitops/apply-gitops-flavour.js';
import type { Diagnostic } from '../errors.js';
import type { RenderedEnvironment } from '../output/plan.js';

const EXTRA_PREFIX = '../gitops/';

export interface GitopsStageInput {
  environment: RenderedEnvironment;
  settings: GitopsConfig;
  labels: Record<string, string>;
  repoRoot: string;
  /** Repository-relative output folder: the default path prefix Argo CD and Flux point at. */
  outputDir: string;
  templatesDir: string;
  memo: GitopsMemo;
}

export interface GitopsStageOutput {
  environment: RenderedEnvironment;
  /** Paths relative to the gitops folder. */
  files: Map<string, string>;
  warnings: Diagnostic[];
}

export function runGitopsStage(input: GitopsStageInput): GitopsStageOutput {
  const { settings } = input;
  const templates = path.resolve(input.repoRoot, input.templatesDir);
  const result = applyGitopsFlavour(
    input.environment,
    {
      flavour: settings.flavour ?? 'kustomize',
      ...(settings.protect ? { protect: settings.protect } : {}),
      argocd: { pathPrefix: input.outputDir, ...settings.argocd },
      flux: { pathPrefix: input.outputDir, ...settings.flux },
      ...(existsSync(templates) ? { templatesDir: templates } : {}),
      labels: input.labels,
    },
    { memo: input.memo },
  );
  const files = new Map<string, string>();
  for (const [p, text] of result.extraFiles) files.set(p.startsWith(EXTRA_PREFIX) ? p.slice(EXTRA_PREFIX.length) : p, text);
  return { environment: result.environment, files, warnings: result.warnings };
}

/** Whether an existing gitops file belongs to environment `env` (replaced when only some environments are built). */
export function isGitopsFileOf(relative: string, env: string): boolean {
  return (
    relative === `argocd/applications/${env}.yaml` ||
    relative.startsWith(`flux/${env}/`) ||
    relative === 'argocd/applicationset.yaml' ||
    relative === `secrets/${env}.required.yaml`
  );
}
