/**
 * The pull-request body of `upgrade --images --pr`: the template context built from the image
 * refresh — one row per environment and re-pinned image, then the same safety report and object diff
 * as a version upgrade — rendered through pr-body.ts's `pr-body-images.md.hbs`. The same size rule
 * as pr-content.ts: over GitHub's limit, the object changes are left out and the findings stay.
 */
import path from 'node:path';
import { reportFields, withinSizeLimit } from './pr-body-report.js';
import { renderImagePrBody, type ImagePrBodyContext } from './pr-body.js';
import type { ImageRefreshOutcome } from './refresh-images.js';
import { imageRowsByEnvironment } from './upgrade-naming.js';

/** What the body is made from. */
export interface ImagePrBodyInput {
  title: string;
  command: string;
  outcome: Pick<ImageRefreshOutcome, 'moved' | 'report'>;
  /** The repository: its `templates/` folder may override the bundled template. */
  repoRoot: string;
  /** The pull request's base branch and head branch, for the pointer to the HTML report. */
  branches: { base: string; head: string };
  /** The repository's web page (`https://github.com/o/r`), when known: the report's artifact is linked from there. */
  webUrl?: string;
}

/** The body markdown. */
export function buildImagePrBody(input: ImagePrBodyInput): string {
  const { outcome } = input;
  const findings = outcome.report.findings;
  const images = imageRowsByEnvironment(outcome.moved);
  const context = (report: string): ImagePrBodyContext => ({
    title: input.title,
    command: input.command,
    images,
    environments: [...new Set(images.map((r) => r.environment))],
    report,
    ...reportFields(findings, input),
  });
  const folders = { userDir: path.join(input.repoRoot, 'templates'), repoRoot: input.repoRoot };
  return withinSizeLimit((report) => renderImagePrBody(context(report), folders), outcome.report.changes, findings);
}
