/**
 * The pull-request body of an upgrade: the template context built from the outcome, rendered
 * through pr-body.ts. It opens with the summary table `diff` prints (src/diff/summary-table.ts), with
 * where each version is set as its last column. GitHub refuses bodies over 65 536 characters; when
 * the full report would not fit, the object changes are left out (the findings always stay) with a
 * pointer to `capi-render diff`.
 */
import path from 'node:path';
import { formatCount } from '../count-phrase.js';
import { formatReportMarkdown } from '../diff/format-markdown.js';
import { buildSummaryRows, summaryTableMarkdown } from '../diff/summary-table.js';
import type { UpgradeOutcome } from './apply-upgrade.js';
import { renderPrBody, type PrBodyContext } from './pr-body.js';

/** GitHub's limit on a pull request body, with room to spare. */
export const MAX_BODY_CHARS = 60_000;

/** What the body is made from. */
export interface PrBodyInput {
  title: string;
  command: string;
  outcome: UpgradeOutcome;
  /** The repository: its `templates/` folder may override the bundled template. */
  repoRoot: string;
  /** The pull request's base branch and head branch, for the pointer to the HTML report. */
  branches: { base: string; head: string };
  /** The repository's web page (`https://github.com/o/r`), when known: the report's artifact is linked from there. */
  webUrl?: string;
}

/** The artifact name the CI workflow of `capi-render init` uploads the HTML report as. */
export const REPORT_ARTIFACT = 'capi-render-report';

/** The body markdown. */
export function buildPrBody(input: PrBodyInput): string {
  const { outcome } = input;
  const findings = outcome.report.findings;
  const sites = new Map(outcome.edited.flatMap((f) => f.edits.flatMap((e) => e.targets.map((t) => [`${t.environment}: ${t.provider}`, { file: f.file, line: e.line }] as const))));
  const count = (s: string) => findings.filter((f) => f.severity === s).length;
  const moves = outcome.targets.map((t) => ({ env: t.environment, component: t.label, from: t.from, to: t.to, fromContract: t.fromContract, toContract: t.toContract }));
  const rows = buildSummaryRows(findings, moves);
  const setIn = (environment: string, label: string): string => {
    const target = outcome.targets.find((t) => t.environment === environment && t.label === label);
    const site = target && sites.get(`${environment}: ${target.provider}`);
    return site ? `\`${site.file}:${site.line}\`` : '';
  };
  const context = (report: string): PrBodyContext => ({
    title: input.title,
    command: input.command,
    upgrades: outcome.targets.map((t) => ({
      environment: t.environment,
      provider: t.provider,
      label: t.label,
      from: t.from,
      to: t.to,
      fromContract: t.fromContract,
      toContract: t.toContract,
      contractChanged: t.fromContract !== t.toContract,
      file: sites.get(`${t.environment}: ${t.provider}`)?.file ?? '',
      line: sites.get(`${t.environment}: ${t.provider}`)?.line ?? 0,
    })),
    summary: rows.map((row) => ({ ...row, setIn: setIn(row.environment, row.provider) })),
    summaryTable: summaryTableMarkdown(rows, { title: 'Set in', cell: (row) => setIn(row.environment, row.provider) }).join('\n'),
    environments: [...new Set(outcome.targets.map((t) => t.environment))].sort(),
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
  const full = renderPrBody(context(formatReportMarkdown(outcome.report.changes, findings)), folders);
  if (full.length <= MAX_BODY_CHARS) return full;
  const short = `${formatReportMarkdown([], findings)}\n_${formatCount(outcome.report.changes.length, 'object change is', 'object changes are')} left out to fit GitHub's size limit; \`capi-render diff --base <base branch> --markdown\` prints them._\n`;
  return renderPrBody(context(short), folders);
}
