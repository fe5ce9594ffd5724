/**
 * The pull-request body of an upgrade: the template context built from the outcome, rendered
 * through pr-body.ts. It opens with the summary table `diff` prints (src/diff/summary-table.ts), with
 * where each version is set as its last column. GitHub refuses bodies over 65 536 characters; when
 * the full report would not fit, the object changes are left out (the findings always stay) with a
 * pointer to `capi-render diff`.
 */
import path from 'node:path';
import { buildSummaryRows, summaryTableMarkdown } from '../diff/summary-table.js';
import type { UpgradeOutcome } from './apply-upgrade.js';
import { renderPrBody, type PrBodyContext } from './pr-body.js';
import { reportFields, withinSizeLimit } from './pr-body-report.js';

export { MAX_BODY_CHARS, REPORT_ARTIFACT } from './pr-body-report.js';

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

/** The body markdown. */
export function buildPrBody(input: PrBodyInput): string {
  const { outcome } = input;
  const findings = outcome.report.findings;
  const sites = new Map(
    outcome.edited.flatMap((f) =>
      f.edits.flatMap((e) =>
        e.targets.map((t) => [`${t.environment}: ${t.provider}`, { file: f.file, line: e.line }] as const),
      ),
    ),
  );
  const moves = outcome.targets.map((t) => ({
    env: t.environment,
    component: t.label,
    from: t.from,
    to: t.to,
    fromContract: t.fromContract,
    toContract: t.toContract,
  }));
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
    summaryTable: summaryTableMarkdown(rows, {
      title: 'Set in',
      cell: (row) => setIn(row.environment, row.provider),
    }).join('\n'),
    environments: [...new Set(outcome.targets.map((t) => t.environment))].sort(),
    report,
    ...reportFields(findings, input),
  });
  const folders = { userDir: path.join(input.repoRoot, 'templates'), repoRoot: input.repoRoot };
  return withinSizeLimit((report) => renderPrBody(context(report), folders), outcome.report.changes, findings);
}
