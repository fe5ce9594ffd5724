/**
 * The drift of a check as errors, one per file and one for a stale lock; the last carries the fix.
 * The CLI prints them and exits 1; a library caller gets the same words.
 */
import { error, type Diagnostic } from '../errors.js';
import type { FileDrift } from './compare-output.js';

export function driftReport(
  drift: readonly FileDrift[],
  lockChanges: readonly string[],
  lockLine?: number,
): Diagnostic[] {
  const diagnostics: Diagnostic[] = drift.map((d) =>
    error(
      'drift',
      `${d.kind === 'edited' ? 'differs from what the inputs render (edited by hand, or inputs changed without a rebuild)' : d.kind === 'missing' ? 'missing (the inputs render it)' : 'stale (the inputs no longer render it)'}${d.details.length ? `:\n    ${d.details.join('\n    ')}` : ''}`,
      {
        file: d.file,
      },
    ),
  );
  if (lockChanges.length > 0) {
    diagnostics.push(
      error('drift', `capi-render.lock is stale:\n    ${lockChanges.join('\n    ')}`, {
        file: 'capi-render.lock',
        ...(lockLine ? { line: lockLine, col: 1 } : {}),
      }),
    );
  }
  return diagnostics.map((d, i) =>
    i === diagnostics.length - 1
      ? {
          ...d,
          hint: 'run `capi-render build` and commit the result; hand edits belong in providers/ or overlays/',
        }
      : d,
  );
}
