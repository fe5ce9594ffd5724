/**
 * Reads a recorded kubectl session (test/fixtures/live/real/*.transcript.txt): blocks separated by
 * blank lines, each a command line followed by what it printed. Tables are split on runs of
 * spaces, as kubectl aligns them; a column never holds a space in the tables these files record.
 */
import { fixtureText } from './fixtures.js';

/** One command and the lines it printed. */
export interface TranscriptBlock {
  command: string;
  output: string[];
}

/** The blocks of a transcript fixture, in order. */
export function transcriptBlocks(relative: string): TranscriptBlock[] {
  return fixtureText(relative)
    .split(/\n\s*\n/)
    .map((chunk) => chunk.split('\n').filter((line) => line.trim() !== ''))
    .filter((lines) => lines.length > 0)
    .map(([command, ...output]) => ({ command: command!.trim(), output }));
}

/** The output of the one block whose command starts with `prefix`; throws when there is none or several. */
export function outputOf(blocks: readonly TranscriptBlock[], prefix: string): string[] {
  const found = blocks.filter((b) => b.command.startsWith(prefix));
  if (found.length !== 1) throw new Error(`${found.length} transcript blocks start with ${JSON.stringify(prefix)}`);
  return found[0]!.output;
}

/** The cells of a kubectl table's rows; `header` rows (their first cell) are skipped. */
export function tableRows(lines: readonly string[], ...headers: string[]): string[][] {
  return lines.map((line) => line.trim().split(/\s+/)).filter((cells) => !headers.includes(cells[0]!));
}
