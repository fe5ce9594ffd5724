/**
 * The manual's transcripts (docs/README.md "Transcripts: the manual is tested"): `console` blocks
 * whose `$ ` lines are commands and whose other lines are the expected output. Parsing, the one
 * bash script a document runs as, the documented normalisation, and comparison with `…` elisions.
 */
import type { FencedBlock } from './markdown.js';

/** One command of a transcript and the output the manual shows for it. */
export interface TranscriptCommand {
  /** The document and 1-based line of its `$ ` line, for messages. */
  where: string;
  command: string;
  expected: string[];
}

/** A `console` block of a document. */
export interface Transcript {
  where: string;
  commands: TranscriptCommand[];
}

/** A line that stands for one or more lines left out: `…`, optionally with a remark in parentheses. */
export const ELISION = /^…(\s+\(.*\))?\s*$/;

/** The transcripts of one document's `console` blocks, in order. */
export function parseTranscripts(file: string, blocks: FencedBlock[]): Transcript[] {
  return blocks
    .filter((b) => b.lang === 'console')
    .map((b) => {
      const commands: TranscriptCommand[] = [];
      for (let i = 0; i < b.lines.length; i++) {
        const line = b.lines[i]!;
        if (!line.startsWith('$ ')) {
          if (!commands.length)
            throw new Error(`${file}:${b.line + 1 + i}: a console block starts with output, not a "$ " command`);
          commands.at(-1)!.expected.push(line);
          continue;
        }
        const where = `${file}:${b.line + 1 + i}`;
        let command = line.slice(2);
        // bash reads a backslash before the newline as a continuation, so both stay in the command.
        while (command.endsWith('\\') && i + 1 < b.lines.length) command = `${command}\n${b.lines[++i]}`;
        commands.push({ where, command, expected: [] });
      }
      return { where: `${file}:${b.line}`, commands };
    });
}

/** The separator the script prints after each command: a byte no transcript contains. */
export const MARK = '\u001e';

/**
 * One bash script running every command of a document in order in one shell (so files, the
 * working folder and `$?` carry over), printing MARK after each command's combined output.
 */
export function transcriptScript(transcripts: Transcript[]): string {
  const lines = ['exec 2>&1', '__rc=0'];
  for (const t of transcripts) {
    for (const c of t.commands) {
      // Restore the previous command's status first, so `echo $?` sees it and not the marker's.
      lines.push(`(exit $__rc)`, c.command, `__rc=$?`, `printf '\\n${MARK}\\n'`);
    }
  }
  return `${lines.join('\n')}\n`;
}

/** Splits the script's output into each command's output lines (a final newline dropped). */
export function splitOutputs(output: string, count: number): string[][] {
  const parts = output.split(`\n${MARK}\n`);
  return Array.from({ length: count }, (_, i) => {
    const text = parts[i] ?? '';
    return text === '' ? [] : text.replace(/\n$/, '').split('\n');
  });
}

/**
 * The documented normalisation, and nothing else: the copy's absolute path becomes /work/example,
 * and the number of a duration (`1.2 s`, `12ms`, `0.45s`, `(3s)`) becomes N.
 */
export function normalise(line: string, repo: string): string {
  return line
    .split(repo)
    .join('/work/example')
    .replace(/\b\d+(\.\d+)?( ?)(ms|s)\b/g, 'N$2$3');
}

/**
 * The actual lines written as the manual would show them: where the expected lines elide a run of
 * lines with `…` and everything around it matches in order, that run becomes the `…` line, so the
 * two compare equal exactly when the manual is right (and a mismatch shows as a readable diff).
 */
export function alignElisions(expected: string[], actual: string[]): string[] {
  const segments: string[][] = [[]];
  const elisions: string[] = [];
  for (const line of expected) {
    if (ELISION.test(line)) {
      elisions.push(line);
      segments.push([]);
    } else segments.at(-1)!.push(line);
  }
  if (!elisions.length) return actual;
  const starts = (at: number, seg: string[]) => seg.every((l, k) => actual[at + k] === l);
  const first = segments[0]!;
  const last = segments.at(-1)!;
  if (
    !starts(0, first) ||
    actual.length < first.length + last.length + elisions.length ||
    !starts(actual.length - last.length, last)
  )
    return actual;
  const out = [...first];
  let at = first.length;
  const end = actual.length - last.length;
  for (let s = 1; s < segments.length; s++) {
    const seg = segments[s]!;
    // Each elision covers at least one line; the next segment is the earliest match after it.
    let found = -1;
    const limit = s === segments.length - 1 ? end : end - seg.length;
    for (let j = at + 1; j <= limit; j++) {
      if (s === segments.length - 1 ? j === end : starts(j, seg)) {
        found = j;
        break;
      }
    }
    if (found < 0) return actual;
    out.push(elisions[s - 1]!, ...seg);
    at = found + seg.length;
  }
  return out;
}
