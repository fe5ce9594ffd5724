/**
 * What every upgrade pull request body carries the same way, whether a version or an image digest
 * moved: the finding counts, the pointer to the HTML report CI uploads, and GitHub's size rule —
 * over the limit, the object changes are left out and the findings stay, with a pointer to `diff`.
 */
import { formatCount } from '../count-phrase.js';
import { formatReportMarkdown } from '../diff/format-markdown.js';
import type { Finding, ObjectChange } from '../diff/types.js';

/** GitHub's limit on a pull request body, with room to spare. */
export const MAX_BODY_CHARS = 60_000;

/** The artifact name the CI workflow of `capi-render init` uploads the HTML report as. */
export const REPORT_ARTIFACT = 'capi-render-report';

/** Where the pull request comes from: its branches and the repository's web page, when known. */
export interface PrPlace {
  branches: { base: string; head: string };
  webUrl?: string;
}

/** The template fields about the findings and the HTML report, shared by both bodies. */
export function reportFields(findings: readonly Finding[], place: PrPlace) {
  const count = (s: Finding['severity']) => findings.filter((f) => f.severity === s).length;
  return {
    findings: { danger: count('danger'), warning: count('warning'), info: count('info') },
    hasDanger: count('danger') > 0,
    htmlReport: {
      command: `capi-render report --base ${place.branches.base} --out ${REPORT_ARTIFACT}.html`,
      artifact: REPORT_ARTIFACT,
      runsUrl: place.webUrl
        ? `${place.webUrl}/actions?query=${encodeURIComponent(`branch:${place.branches.head}`)}`
        : '',
    },
  };
}

/** The body `render` makes with the whole report, or, over the limit, with the findings alone and a note. */
export function withinSizeLimit(
  render: (report: string) => string,
  changes: readonly ObjectChange[],
  findings: readonly Finding[],
): string {
  const full = render(formatReportMarkdown(changes, findings));
  if (full.length <= MAX_BODY_CHARS) return full;
  return render(
    `${formatReportMarkdown([], findings)}\n_${formatCount(changes.length, 'object change is', 'object changes are')} left out to fit GitHub's size limit; \`capi-render diff --base <base branch> --markdown\` prints them._\n`,
  );
}
