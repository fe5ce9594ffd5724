/**
 * The compact terminal form of a diff and its findings: findings first (danger, warning, info),
 * then the object changes per environment/component with one line per field.
 */
import type { Finding, ObjectChange } from './types.js';
import {
  countChanges,
  countFindings,
  describeField,
  groupChanges,
  placeOf,
  schemaLines,
  SEVERITIES,
} from './util-format.js';

/** Options of {@link formatDiffText}. */
export interface DiffTextOptions {
  /** ANSI colours (red danger/removed, yellow warning/changed, green added, cyan info). Default: false. */
  color?: boolean;
}

/** Wraps text in an ANSI colour, or not (see {@link DiffTextOptions.color}). */
export type Paint = (code: number, text: string) => string;

/** The terminal labels of the severities, padded to one width. */
export const LABEL = { danger: 'DANGER ', warning: 'WARNING', info: 'INFO   ' } as const;
/** Their ANSI colours. */
export const SEVERITY_COLOR = { danger: 31, warning: 33, info: 36 } as const;
const CHANGE = { added: ['+', 32], removed: ['-', 31], changed: ['~', 33] } as const;

/** A painter for `color` (see {@link DiffTextOptions.color}). */
export function painter(color: boolean | undefined): Paint {
  return (code, text) => (color === true ? `\u001b[${code}m${text}\u001b[0m` : text);
}

/**
 * The report as plain text, ending in a newline. Input order is kept (both inputs come sorted
 * from diffRendered/safetyFindings); `No changes.` when both are empty.
 */
export function formatDiffText(
  changes: readonly ObjectChange[],
  findings: readonly Finding[],
  options: DiffTextOptions = {},
): string {
  const paint = painter(options.color);
  if (changes.length === 0 && findings.length === 0) return 'No changes.\n';
  const lines: string[] = [];
  if (findings.length > 0) {
    lines.push(`Findings: ${countFindings(findings)}`);
    for (const severity of SEVERITIES) {
      for (const f of findings.filter((x) => x.severity === severity)) {
        lines.push(
          `${paint(SEVERITY_COLOR[severity], LABEL[severity])} ${placeOf(f)}${f.object === undefined ? '' : ` ${f.object}`} [${f.code}]`,
        );
        lines.push(`        ${f.message}`);
        for (const detail of f.details ?? []) lines.push(`          - ${detail}`);
      }
    }
  }
  if (changes.length > 0) {
    if (lines.length > 0) lines.push('');
    lines.push(`Objects: ${countChanges(changes)}`, ...objectChangeLines(changes, paint, true));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * The object changes per `env/component`, one line per object with each field change under it (and a
 * CRD schema change's property paths under the field). With `fields` false, a CustomResourceDefinition
 * gets its count of field changes after its id instead: its schema can run to hundreds of lines, and
 * what matters in it (versions added, removed, unserved) the crd findings already say.
 */
export function objectChangeLines(changes: readonly ObjectChange[], paint: Paint, fields: boolean): string[] {
  const lines: string[] = [];
  for (const [place, group] of groupChanges(changes)) {
    lines.push(place);
    for (const change of group) {
      const [mark, code] = CHANGE[change.change];
      const count = change.fields?.length ?? 0;
      const brief = !fields && change.id.startsWith('CustomResourceDefinition.') && count > 0;
      lines.push(
        `  ${paint(code, mark)} ${change.id}${brief ? ` (${count} ${count === 1 ? 'field' : 'fields'})` : ''}`,
      );
      if (brief) continue;
      for (const field of change.fields ?? []) {
        const [fieldMark, fieldCode] = CHANGE[field.kind];
        lines.push(`      ${paint(fieldCode, fieldMark)} ${field.path}: ${describeField(field)}`);
        for (const line of schemaLines(field))
          lines.push(`          ${line.text}${line.path === undefined ? '' : ` ${line.path}`}`);
      }
    }
  }
  return lines;
}
