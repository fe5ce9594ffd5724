/**
 * The markdown form of a diff and its findings, for the body of an upgrade pull request. Plain
 * CommonMark (headings, lists, code spans; no HTML), so a template can wrap it and any forge
 * renders it. Text from objects is escaped or put in code spans, never interpreted.
 */
import { countMembers, groupFindings, noActionTally, type FindingGroup } from './group-findings.js';
import { summaryTableMarkdown, type SummaryRow } from './summary-table.js';
import type { Finding, FindingSeverity, ObjectChange } from './types.js';
import { countChanges, countFindings, describeField, groupChanges, schemaLines, SEVERITIES } from './util-format.js';

/** Options of {@link formatReportMarkdown}. */
export interface ReportMarkdownOptions {
  /** The summary table's rows (see buildSummaryRows): the report opens with the table. Default: no table (the pull request template prints its own). */
  rows?: readonly SummaryRow[];
  /** List the info findings that need no action too. Default: false (they are counted in one line). */
  verbose?: boolean;
}

const HEADING: Record<FindingSeverity, string> = {
  danger: 'Danger: needs a decision before merging',
  warning: 'Warnings',
  info: 'Info',
};

/**
 * The report as markdown, ending in a newline: the summary table (with `rows`), a summary line,
 * findings per severity grouped by cause (a cause shared by several objects once, listing them; the
 * details as sub-items), then the object changes per environment/component.
 */
export function formatReportMarkdown(
  changes: readonly ObjectChange[],
  findings: readonly Finding[],
  options: ReportMarkdownOptions = {},
): string {
  const table = summaryTableMarkdown(options.rows ?? []);
  const lines: string[] = [
    '## Upgrade safety report',
    '',
    ...(table.length > 0 ? [...table, ''] : []),
    `Findings: ${countFindings(findings)}. Objects: ${countChanges(changes)}.`,
  ];
  const quiet = noActionTally(findings);
  if (quiet.total > 0) {
    const codes = quiet.codes.map((c) => `${code(c.code)} ${c.count}`).join(', ');
    lines.push(
      '',
      `${quiet.total} info ${quiet.total === 1 ? 'finding needs' : 'findings need'} no action (${codes})${options.verbose === true ? '.' : `; ${code('capi-render diff --verbose')} lists them.`}`,
    );
  }
  const groups = groupFindings(findings).filter((g) => g.needsAction || options.verbose === true);
  for (const severity of SEVERITIES) {
    const list = groups.filter((g) => g.severity === severity);
    if (list.length === 0) continue;
    lines.push('', `### ${HEADING[severity]}`, '');
    for (const group of list) lines.push(...groupLines(group));
  }
  if (changes.length > 0) lines.push('', '### Object changes');
  for (const [place, group] of groupChanges(changes)) {
    lines.push('', `#### ${escape(place)}`, '');
    for (const change of group) {
      lines.push(`- ${change.change} ${code(change.id)}`);
      for (const field of change.fields ?? []) {
        lines.push(`  - ${field.kind} ${code(field.path)}: ${describeField(field, code, escape)}`);
        for (const line of schemaLines(field))
          lines.push(`    - ${escape(line.text)}${line.path === undefined ? '' : ` ${code(line.path)}`}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
}

/**
 * One list item per group: a group of one as `**env/component** object: message (code)` with its
 * details; a larger one as its count and code with the shared message and details, then its objects
 * (each with its own message when they differ) as sub-items.
 */
function groupLines(group: FindingGroup): string[] {
  const where = (m: FindingGroup['members'][number]) =>
    `**${escape(`${m.env}/${m.component}`)}**${m.object === undefined ? '' : ` ${code(m.object)}`}`;
  const details = group.details.map((d) => `  - ${escape(d)}`);
  if (group.members.length === 1) {
    const only = group.members[0]!;
    return [`- ${where(only)}: ${escape(only.message)} (${code(group.code)})`, ...details];
  }
  const head = `- ${countMembers(group)} (${code(group.code)})${group.message === undefined ? '' : `: ${escape(group.message)}`}`;
  const members = group.members.map(
    (m) => `  - ${where(m)}${group.message === undefined ? `: ${escape(m.message)}` : ''}`,
  );
  return [head, ...details, ...members];
}

/** A code span that survives backticks in the text (CommonMark: a longer fence, padded). */
function code(text: string): string {
  const longest = Math.max(0, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  const pad = longest > 0 || text.startsWith(' ') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

/**
 * Backslash-escapes the characters CommonMark could read as markup in running text; `code spans`
 * (single backticks, as findings write commands) are kept as they are.
 */
function escape(text: string): string {
  return text
    .split(/(`[^`]*`)/)
    .map((part, i) => (i % 2 === 1 ? part : part.replace(/[\\`*_[\]<>|#~]/g, (c) => `\\${c}`)))
    .join('');
}
