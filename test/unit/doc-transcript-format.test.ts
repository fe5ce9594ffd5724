/**
 * The transcript convention's moving parts (docs/README.md "Transcripts: the manual is tested"):
 * parsing console blocks, splitting one shell's output per command, the normalisation, and `…`
 * elisions — which must hide lines only where everything around them matches.
 */
import { describe, expect, it } from 'vitest';
import { fencedBlocks } from '../helpers/markdown.js';
import {
  alignElisions,
  MARK,
  normalise,
  parseTranscripts,
  splitOutputs,
  transcriptScript,
} from '../helpers/transcript.js';

const doc = [
  'Intro',
  '```console',
  '$ capi-render check',
  'check: ok',
  "$ printf 'a\\n' \\",
  '  >> f',
  '```',
  '```text',
  '$ not run',
  '```',
  '',
].join('\n');

describe('transcripts', () => {
  it('parses console blocks only: commands, continuation lines and expected output with their lines', () => {
    const [t, ...rest] = parseTranscripts('x.md', fencedBlocks(doc));
    expect(rest).toEqual([]);
    expect(t).toEqual({
      where: 'x.md:2',
      commands: [
        { where: 'x.md:3', command: 'capi-render check', expected: ['check: ok'] },
        { where: 'x.md:5', command: "printf 'a\\n' \\\n  >> f", expected: [] },
      ],
    });
  });

  it('refuses a console block that starts with output', () => {
    expect(() => parseTranscripts('x.md', fencedBlocks('```console\nout\n```\n'))).toThrow(
      /x\.md:2: a console block starts with output/,
    );
  });

  it('splits the output of one shell per command, keeping empty outputs', () => {
    const out = `one\ntwo\n\n${MARK}\n\n${MARK}\nno newline\n${MARK}\n`;
    expect(splitOutputs(out, 3)).toEqual([['one', 'two'], [], ['no newline']]);
    expect(transcriptScript([{ where: 'x', commands: [{ where: 'x', command: 'false', expected: [] }] }])).toContain(
      '(exit $__rc)\nfalse\n__rc=$?',
    );
  });

  it.each([
    ['the copy path', '/tmp/capi-render-doc-X/example/rendered: error', '/work/example/rendered: error'],
    ['a duration in seconds', 'waiting for api.github.com (12s)', 'waiting for api.github.com (Ns)'],
    ['a duration with a space and a fraction', 'took 1.25 s', 'took N s'],
    ['milliseconds', 'in 340ms', 'in Nms'],
    ['a version is not a duration', 'cluster-api v1.12.0, 3 providers', 'cluster-api v1.12.0, 3 providers'],
    ['a size is not a duration', 'wrote r.html (58 KiB)', 'wrote r.html (58 KiB)'],
  ])('normalises %s and nothing else', (_name, line, want) => {
    expect(normalise(line, '/tmp/capi-render-doc-X/example')).toBe(want);
  });

  it.each<[string, string[], string[], string[]]>([
    ['no elision: unchanged', ['a', 'b'], ['a', 'x'], ['a', 'x']],
    ['a middle run', ['a', '…', 'd'], ['a', 'b', 'c', 'd'], ['a', '…', 'd']],
    ['a trailing run, with a remark', ['a', '…   (the rest)'], ['a', 'b', 'c'], ['a', '…   (the rest)']],
    ['two runs', ['a', '…', 'c', '…', 'e'], ['a', 'b', 'c', 'd', 'e'], ['a', '…', 'c', '…', 'e']],
    ['an elision must cover a line', ['a', '…', 'b'], ['a', 'b'], ['a', 'b']],
    ['a mismatch before the run is shown as it is', ['a', '…', 'd'], ['z', 'b', 'c', 'd'], ['z', 'b', 'c', 'd']],
    ['a mismatch after the run is shown as it is', ['a', '…', 'd'], ['a', 'b', 'c', 'x'], ['a', 'b', 'c', 'x']],
  ])('elisions: %s', (_name, expected, actual, shown) => {
    expect(alignElisions(expected, actual)).toEqual(shown);
  });
});
