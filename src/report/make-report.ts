/**
 * `capi-render report` as a library call, in the order the page needs: render and plan every
 * environment (the `plan` command's work, which validates the inputs), read each one's gitops
 * settings (for where it is delivered), compare the working tree's
 * rendered output with `base` when asked (the `diff` command's work), build the model, and render
 * the template. Nothing is written; the caller decides where the HTML goes.
 */
import path from 'node:path';
import type { Diagnostic } from '../errors.js';
import { packagePath } from '../package-files.js';
import type { RenderOptions } from '../render/render-options.js';
import { templateReader, type ReadTextFile } from '../template-files.js';
import { compareWithRevision } from '../upgrade/compare-revision.js';
import { planRepository } from '../upgrade/plan-repository.js';
import { buildReportModel } from './build-report-model.js';
import { readDeliverySettings } from './delivery.js';
import type { ReportModel } from './report-model.js';
import { renderReportHtml } from './render-report-html.js';

export interface MakeReportOptions {
  render: RenderOptions;
  /** A git revision to review the working tree's rendered output against. Default: no review. */
  base?: string;
  /** The environment git runs with. Default: empty. */
  processEnv?: Readonly<Record<string, string | undefined>>;
  /** Template file reader, for tests. Default: node:fs. */
  read?: ReadTextFile;
}

export interface MadeReport {
  html: string;
  model: ReportModel;
  /** Render warnings (the same `build` prints). */
  warnings: Diagnostic[];
}

/** Makes the report of the repository `options.render.repoRoot`. */
export async function makeReport(options: MakeReportOptions): Promise<MadeReport> {
  const planned = await planRepository(options.render);
  const selected = options.render.environments ?? [];
  const comparison =
    options.base === undefined
      ? undefined
      : await compareWithRevision({
          repoRoot: options.render.repoRoot,
          base: options.base,
          environments: selected,
          processEnv: options.processEnv ?? {},
        });
  const config = planned.current.config;
  const delivery = await readDeliverySettings(
    options.render.repoRoot,
    config,
    planned.current.environments.map((e) => e.environment.name),
  );
  const model = buildReportModel({
    environments: planned.current.environments,
    plans: planned.plans,
    selected,
    delivery,
    ...(comparison ? { comparison } : {}),
  });
  const html = renderReportHtml(model, {
    userDir: path.resolve(options.render.repoRoot, config.templatesDir),
    bundledDir: packagePath('bundled-templates'),
    read: options.read ?? templateReader(options.render.repoRoot),
  });
  return { html, model, warnings: planned.current.warnings };
}
