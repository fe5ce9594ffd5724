/**
 * Pieces the text and markdown reports share: value rendering, counts and grouping. Kept apart
 * from both formatters so they print the same facts in the same order.
 */
import { formatCount } from '../count-phrase.js';
import type { FieldChange, Finding, FindingSeverity, ObjectChange } from './types.js';

/** Severities in report order. */
export const SEVERITIES: readonly FindingSeverity[] = ['danger', 'warning', 'info'];

/** The placeholders summarizeValue puts in place of big lists and maps. */
const PLACEHOLDER = /^(\[\d+ items?\]|\{\d+ keys?\})$/;

/** A summarised value as one line of JSON, placeholders such as `[42 items]` bare; `(none)` for an absent one. */
export function showValue(value: unknown): string {
  if (value === undefined) return '(none)';
  return typeof value === 'string' && PLACEHOLDER.test(value) ? value : JSON.stringify(value);
}

/**
 * What a field change says after its path: `"a" → "b"`, the added/removed value, a schema
 * summary, or `order changed: [...] → [...]`. `value` and `text` wrap values and prose (the
 * markdown report puts values in code spans and escapes prose); both default to no change.
 */
export function describeField(
  field: FieldChange,
  value: (s: string) => string = same,
  text: (s: string) => string = same,
): string {
  if (field.properties !== undefined) return text(field.summary ?? 'schema changed');
  const change =
    field.kind === 'added'
      ? value(showValue(field.after))
      : field.kind === 'removed'
        ? value(showValue(field.before))
        : `${value(showValue(field.before))} → ${value(showValue(field.after))}`;
  return field.summary === undefined ? change : `${text(field.summary)}: ${change}`;
}

function same(s: string): string {
  return s;
}

/** One line under a CRD schema change: `added` + a property path, or `… N more added`. */
export interface SchemaLine {
  text: string;
  path?: string;
}

/** The lines under a CRD schema change: added paths, then removed ones, each with its `… N more`. */
export function schemaLines(field: FieldChange): SchemaLine[] {
  const p = field.properties;
  if (p === undefined) return [];
  return [
    ...p.added.map((path) => ({ text: 'added', path })),
    ...(p.moreAdded > 0 ? [{ text: `… ${p.moreAdded} more added` }] : []),
    ...p.removed.map((path) => ({ text: 'removed', path })),
    ...(p.moreRemoved > 0 ? [{ text: `… ${p.moreRemoved} more removed` }] : []),
  ];
}

/** `1 danger, 2 warnings, 0 info` (info is a mass noun: no plural). */
export function countFindings(findings: readonly Finding[]): string {
  return SEVERITIES.map((s) =>
    formatCount(findings.filter((f) => f.severity === s).length, s, s === 'info' ? s : undefined),
  ).join(', ');
}

/** `1 added, 0 removed, 3 changed`. */
export function countChanges(changes: readonly ObjectChange[]): string {
  return (['added', 'removed', 'changed'] as const)
    .map((c) => `${changes.filter((x) => x.change === c).length} ${c}`)
    .join(', ');
}

/** Changes grouped by `env/component`, keeping their (sorted) order. */
export function groupChanges(changes: readonly ObjectChange[]): [string, ObjectChange[]][] {
  const groups = new Map<string, ObjectChange[]>();
  for (const change of changes) {
    const key = `${change.env}/${change.component}`;
    groups.set(key, [...(groups.get(key) ?? []), change]);
  }
  return [...groups];
}

/** Where a finding is: `env/component` and, when set, the object. */
export function placeOf(finding: Finding): string {
  return `${finding.env}/${finding.component}`;
}
