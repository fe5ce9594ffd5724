/**
 * The upgrade review of the report: the safety findings ranked (danger, warning, info), each merged
 * across the environments it occurs in and with its one-line "why this matters", the locked
 * versions that change, and the object diff grouped by environment and component, one expandable
 * entry per object. Pure: made from the same comparison `capi-render diff` prints.
 */
import { formatCount } from '../count-phrase.js';
import { FINDING_WHY } from '../diff/finding-why.js';
import { buildSummaryRows } from '../diff/summary-table.js';
import type { FieldChange, Finding, ObjectChange } from '../diff/types.js';
import { countChanges, describeField, groupChanges, schemaLines, SEVERITIES } from '../diff/util-format.js';
import type { RevisionComparison } from '../upgrade/compare-revision.js';
import { lockedVersions, versionChanges } from '../upgrade/upgrade-report.js';
import type { FindingModel, ObjectDiffModel, ReviewModel } from './report-model.js';
import { toRichText } from './util-report.js';

const MARK = { added: '+', removed: '−', changed: '~' } as const;

/** The review of `comparison`, limited to `environments` (default all). */
export function buildUpgradeReview(comparison: RevisionComparison, environments: readonly string[]): ReviewModel {
  const { report } = comparison;
  const count = (s: Finding['severity']) => report.findings.filter((f) => f.severity === s).length;
  const changed = new Set([...report.changes.map((c) => c.env), ...report.findings.map((f) => f.env)]);
  const moves = versionChanges(comparison.before, comparison.after, environments);
  return {
    base: comparison.base,
    commit: comparison.commit,
    // The rows `capi-render diff` and the upgrade pull request open with.
    summaryRows: buildSummaryRows(report.findings, lockedVersions(comparison.before, comparison.after, environments)),
    counts: { danger: count('danger'), warning: count('warning'), info: count('info') },
    changedEnvironments: [...changed].sort(),
    versionChanges: moves.map((v) => ({
      environment: v.env,
      component: v.component,
      from: v.from ?? '(not installed)',
      to: v.to ?? '(removed)',
      contract:
        v.fromContract === v.toContract ? (v.toContract ?? '') : `${v.fromContract ?? '-'} → ${v.toContract ?? '-'}`,
    })),
    findings: mergeFindings(report.findings),
    objectCounts: countChanges(report.changes),
    places: groupChanges(report.changes).map(([place, changes]) => ({ place, objects: changes.map(objectDiff) })),
  };
}

/**
 * One entry per finding that is the same apart from its environment (an upgrade of four
 * environments to one release says the same thing four times), in severity order, listing where.
 */
function mergeFindings(findings: readonly Finding[]): FindingModel[] {
  const merged = new Map<string, { finding: Finding; envs: string[] }>();
  for (const severity of SEVERITIES) {
    for (const f of findings.filter((x) => x.severity === severity)) {
      const key = JSON.stringify([f.severity, f.code, f.component, f.object ?? '', f.message, f.details ?? []]);
      const entry = merged.get(key);
      if (entry) entry.envs.push(f.env);
      else merged.set(key, { finding: f, envs: [f.env] });
    }
  }
  return [...merged.values()].map(({ finding: f, envs }) => ({
    severity: f.severity,
    code: f.code,
    why: FINDING_WHY[f.code],
    component: f.component,
    object: f.object ?? '',
    message: toRichText(f.message),
    details: (f.details ?? []).map(toRichText),
    environments: [...new Set(envs)].sort().join(', '),
    open: f.severity !== 'info',
  }));
}

function objectDiff(change: ObjectChange): ObjectDiffModel {
  const fields = (change.fields ?? []).map((field: FieldChange) => {
    const text = describeField(field);
    const lines = schemaLines(field);
    return {
      change: field.kind,
      mark: MARK[field.kind],
      path: field.path,
      pathParts: pathParts(field.path),
      text,
      textParts: textParts(text),
      lines: lines.map((l) => (l.path === undefined ? l.text : `${l.text} ${l.path}`)),
      properties: lines.map((l) => ({ text: l.text, pathParts: l.path === undefined ? [] : pathParts(l.path) })),
    };
  });
  const note =
    change.change === 'added'
      ? 'new object'
      : change.change === 'removed'
        ? 'no longer rendered'
        : formatCount(fields.length, 'field');
  return { change: change.change, mark: MARK[change.change], id: change.id, note, fields };
}

/**
 * A field path cut before every `.` and `[` (`spec`, `.template`, …, `[name=manager]`, `.args`): the
 * template lays the parts out so that a line breaks between them (inside one only when it is wider
 * than its cell), so a long path wraps at its boundaries instead of one character per line.
 */
export function pathParts(path: string): string[] {
  return path.split(/(?=[.[])/).filter((p) => p !== '');
}

/** A field's text cut after every comma not followed by a space (items of a JSON list, a flag's `a=1,b=2`), likewise. */
export function textParts(text: string): string[] {
  return text.split(/(?<=,)(?=\S)/);
}
