/**
 * Terminal text for diagnostics and errors: `file:line:col: error[code]: message`, then the field or
 * object and a hint on indented lines. No stack traces unless --debug.
 */
import type { Diagnostic } from '../errors.js';

export interface FormatOptions {
  color: boolean;
}

const RED = '\u001b[31m';
const YELLOW = '\u001b[33m';
const DIM = '\u001b[2m';
const RESET = '\u001b[0m';

/** One diagnostic as one main line plus optional detail lines. */
export function formatDiagnostic(d: Diagnostic, options: FormatOptions): string {
  const where = d.file ? `${d.file}${d.line ? `:${d.line}${d.col ? `:${d.col}` : ''}` : ''}: ` : '';
  const label = `${d.severity}[${d.code}]`;
  const paint = (color: string, text: string) => (options.color ? `${color}${text}${RESET}` : text);
  const lines = [`${where}${paint(d.severity === 'error' ? RED : YELLOW, label)}: ${d.message}`];
  const context = [
    d.field && !d.message.includes(d.field) ? `field ${d.field}` : '',
    d.object && !d.message.includes(d.object) ? `object ${d.object}` : '',
  ]
    .filter(Boolean)
    .join(', ');
  if (context) lines.push(paint(DIM, `  at ${context}`));
  if (d.hint) lines.push(`  hint: ${d.hint}`);
  return lines.join('\n') + '\n';
}

export function formatDiagnostics(list: readonly Diagnostic[], options: FormatOptions): string {
  return list.map((d) => formatDiagnostic(d, options)).join('');
}
