/**
 * The markdown form of a diff and its findings, for the body of an upgrade pull request. Plain
 * CommonMark (headings, lists, code spans; no HTML), so a template can wrap it and any forge
 * renders it. Text from objects is escaped or put in code spans, never interpreted.
 */
import type { Finding, FindingSeverity, ObjectChange } from './types.js';
import { countChanges, countFindings, describeField, groupChanges, placeOf, schemaLines, SEVERITIES } from './util-format.js';

const HEADING: Record<FindingSeverity, string> = {
  danger: 'Danger: needs a decision before merging',
  warning: 'Warnings',
  info: 'Info',
};

/**
 * The report as markdown, ending in a newline: a summary line, findings per severity (with their
 * details as sub-items), then the object changes per environment/component.
 */
export function formatReportMarkdown(changes: readonly ObjectChange[], findings: readonly Finding[]): string {
  const lines: string[] = ['## Upgrade safety report', '', `Findings: ${countFindings(findings)}. Objects: ${countChanges(changes)}.`];
  for (const severity of SEVERITIES) {
    const list = findings.filter((f) => f.severity === severity);
    if (list.length === 0) continue;
    lines.push('', `### ${HEADING[severity]}`, '');
    for (const f of list) {
      const object = f.object === undefined ? '' : ` ${code(f.object)}`;
      lines.push(`- **${escape(placeOf(f))}**${object}: ${escape(f.message)} (${code(f.code)})`);
      for (const detail of f.details ?? []) lines.push(`  - ${escape(detail)}`);
    }
  }
  if (changes.length > 0) lines.push('', '### Object changes');
  for (const [place, group] of groupChanges(changes)) {
    lines.push('', `#### ${escape(place)}`, '');
    for (const change of group) {
      lines.push(`- ${change.change} ${code(change.id)}`);
      for (const field of change.fields ?? []) {
        lines.push(`  - ${field.kind} ${code(field.path)}: ${describeField(field, code, escape)}`);
        for (const line of schemaLines(field)) lines.push(`    - ${escape(line.text)}${line.path === undefined ? '' : ` ${code(line.path)}`}`);
      }
    }
  }
  return `${lines.join('\n')}\n`;
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
