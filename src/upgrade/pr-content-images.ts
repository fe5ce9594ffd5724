/**
 * The pull-request body of `upgrade --images --pr`: the template context built from the image
 * refresh — one row per environment and re-pinned image, then the same safety report and object diff
 * as a version upgrade — rendered through pr-body.ts's `pr-body-images.md.hbs`. The same size rule
 * as pr-content.ts: over GitHub's limit, the object changes are left out and the findings stay.
 */
import path from 'node:path';
import { formatReportMarkdown } from '../diff/format-markdown.js';
import { MAX_BODY_CHARS, REPORT_ARTIFACT } from './pr-content.js';
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
  const count = (s: string) => findings.filter((f) => f.severity === s).length;
  const images = imageRowsByEnvironment(outcome.moved);
  const context = (report: string): ImagePrBodyContext => ({
    title: input.title,
    command: input.command,
    images,
    environments: [...new Set(images.map((r) => r.environment))],
    findings: { danger: count('danger'), warning: count('warning'), info: count('info') },
    hasDanger: count('danger') > 0,
    report,
    htmlReport: {
      command: `capi-render report --base ${input.branches.base} --out ${REPORT_ARTIFACT}.html`,
      artifact: REPORT_ARTIFACT,
      runsUrl: input.webUrl ? `${input.webUrl}/actions?query=${encodeURIComponent(`branch:${input.branches.head}`)}` : '',
    },
  });
  const folders = { userDir: path.join(input.repoRoot, 'templates'), repoRoot: input.repoRoot };
  const full = renderImagePrBody(context(formatReportMarkdown(outcome.report.changes, findings)), folders);
  if (full.length <= MAX_BODY_CHARS) return full;
  const short = `${formatReportMarkdown([], findings)}\n_${outcome.report.changes.length} object changes are left out to fit GitHub's size limit; \`capi-render diff --base <base branch> --markdown\` prints them._\n`;
  return renderImagePrBody(context(short), folders);
}
