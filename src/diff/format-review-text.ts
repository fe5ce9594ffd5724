/**
 * The terminal review `capi-render diff` prints: the summary table first (the answer: what moves
 * and how many findings of each severity), then the findings grouped by cause, then the objects that
 * change. Compact by default — findings that need no action are only counted, a changed CRD gets one
 * line — and complete with `verbose`.
 */
import { objectChangeLines, LABEL, painter, SEVERITY_COLOR, type Paint } from './format-text.js';
import { countMembers, groupFindings, noActionTally, type FindingGroup } from './group-findings.js';
import { summaryTableText, type SummaryRow } from './summary-table.js';
import type { Finding, ObjectChange } from './types.js';
import { countChanges, countFindings } from './util-format.js';

/** What a review is made of: the summary rows (see buildSummaryRows), the object changes and the findings, both sorted. */
export interface Review {
  rows: readonly SummaryRow[];
  changes: readonly ObjectChange[];
  findings: readonly Finding[];
}

/** Options of {@link formatReviewText}. */
export interface ReviewTextOptions {
  /** ANSI colours, as formatDiffText. Default: false. */
  color?: boolean;
  /** List the findings that need no action and every field of changed CRDs too. Default: false. */
  verbose?: boolean;
  /** Only the summary table. Default: false. */
  stat?: boolean;
}

/**
 * The review as text ending in a newline; `No changes.` when there is nothing to review. With `stat`,
 * the table alone, or one line counting the objects when nothing moves and nothing is found.
 */
export function formatReviewText(review: Review, options: ReviewTextOptions = {}): string {
  const { rows, changes, findings } = review;
  if (rows.length === 0 && changes.length === 0 && findings.length === 0) return 'No changes.\n';
  // Rows come from version moves and findings; without either only objects change (an overlay edit).
  if (options.stat === true && rows.length === 0)
    return `No version changes and no findings; objects: ${countChanges(changes)}\n`;
  const paint = painter(options.color);
  const verbose = options.verbose === true;
  const sections: string[][] = [summaryTableText(rows)];
  if (options.stat !== true) {
    if (findings.length > 0) sections.push(findingLines(findings, paint, verbose));
    if (changes.length > 0)
      sections.push([
        `Objects: ${countChanges(changes)}${verbose || !changes.some(isBriefCrd) ? '' : '; --verbose lists the fields of CRDs'}`,
        ...objectChangeLines(changes, paint, verbose),
      ]);
  }
  return `${sections
    .filter((s) => s.length > 0)
    .map((s) => s.join('\n'))
    .join('\n\n')}\n`;
}

/** A changed CRD: compact output gives it one line (see objectChangeLines). */
function isBriefCrd(change: ObjectChange): boolean {
  return change.change === 'changed' && change.id.startsWith('CustomResourceDefinition.');
}

function findingLines(findings: readonly Finding[], paint: Paint, verbose: boolean): string[] {
  const lines = [`Findings: ${countFindings(findings)}`];
  const quiet = noActionTally(findings);
  if (quiet.total > 0) {
    const codes = quiet.codes.map((c) => `${c.code} ${c.count}`).join(', ');
    lines.push(
      `${quiet.total} info ${quiet.total === 1 ? 'finding needs' : 'findings need'} no action (${codes})${verbose ? '' : '; --verbose lists them'}`,
    );
  }
  for (const group of groupFindings(findings)) {
    if (group.needsAction || verbose) lines.push(...groupLines(group, paint));
  }
  return lines;
}

/**
 * A group of one as formatDiffText prints a finding (place, object and code, its message, its
 * details); a larger group as its count and code, the shared message and details once, then one
 * line per object (with its own message when the members say different things).
 */
function groupLines(group: FindingGroup, paint: Paint): string[] {
  const label = paint(SEVERITY_COLOR[group.severity], LABEL[group.severity]);
  const details = group.details.map((d) => `          - ${d}`);
  const where = (m: FindingGroup['members'][number]) =>
    `${m.env}/${m.component}${m.object === undefined ? '' : ` ${m.object}`}`;
  if (group.members.length === 1) {
    const only = group.members[0]!;
    return [`${label} ${where(only)} [${group.code}]`, `        ${only.message}`, ...details];
  }
  const head = `${label} ${countMembers(group)} [${group.code}]`;
  if (group.message !== undefined)
    return [head, `        ${group.message}`, ...details, ...group.members.map((m) => `        ${where(m)}`)];
  return [head, ...details, ...group.members.map((m) => `        ${where(m)}: ${m.message}`)];
}
