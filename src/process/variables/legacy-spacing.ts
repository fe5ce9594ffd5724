/**
 * clusterctl's "legacy variable" clean-up (yamlprocessor/simple_processor.go convertLegacyVars):
 * before parsing, `${ VAR }`, `${ VAR}` and `${VAR }` become `${VAR}`. Only names made of
 * `[A-Za-z0-9_$]` qualify, and "space" is Go's RE2 `\s`: tab, newline, form feed, carriage return
 * and space (no vertical tab, no Unicode spaces).
 */

// Matches every `${ name }` form clusterctl's three alternatives match, plus the unspaced `${name}`,
// which the rewrite leaves unchanged, so the result is identical.
const LEGACY = /\$\{([\t\n\f\r ]*)([A-Za-z0-9_$]+)([\t\n\f\r ]*)\}/g;

/** One rewritten span: where it sits in the new text and where it came from. */
interface Edit {
  readonly newStart: number;
  readonly newEnd: number;
  readonly oldStart: number;
  readonly oldEnd: number;
}

/** The rewritten text and a way back to offsets in the original. */
export interface NormalisedText {
  readonly text: string;
  /** Maps an offset in `text` to the offset of the same character in the original text. */
  toOriginal(offset: number): number;
}

/** Removes the spacing inside legacy `${ VAR }` references. Pure; returns the input when nothing changes. */
export function normaliseLegacySpacing(original: string): NormalisedText {
  const edits: Edit[] = [];
  const parts: string[] = [];
  let last = 0;
  let shift = 0;
  for (const match of original.matchAll(LEGACY)) {
    const before = match[1]!;
    const after = match[3]!;
    if (before.length === 0 && after.length === 0) continue;
    const oldStart = match.index;
    const oldEnd = oldStart + match[0].length;
    const replacement = `\${${match[2]!}}`;
    parts.push(original.slice(last, oldStart), replacement);
    const newStart = oldStart - shift;
    edits.push({ newStart, newEnd: newStart + replacement.length, oldStart, oldEnd });
    shift += match[0].length - replacement.length;
    last = oldEnd;
  }
  if (edits.length === 0) return { text: original, toOriginal: (offset) => offset };
  parts.push(original.slice(last));
  return { text: parts.join(''), toOriginal: (offset) => mapBack(edits, offset) };
}

function mapBack(edits: readonly Edit[], offset: number): number {
  // Binary search for the last edit starting at or before the offset.
  let lo = 0;
  let hi = edits.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (edits[mid]!.newStart <= offset) {
      found = mid;
      lo = mid + 1;
    } else {
      hi = mid - 1;
    }
  }
  if (found < 0) return offset;
  const edit = edits[found]!;
  // Inside a rewritten reference, point at its `${`; after it, shift by the spaces removed so far.
  if (offset < edit.newEnd) return edit.oldStart;
  return edit.oldEnd + (offset - edit.newEnd);
}
