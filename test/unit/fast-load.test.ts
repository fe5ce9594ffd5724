/**
 * The fast YAML reader (src/manifest/fast-load.ts) against js-yaml, its authority: the same documents
 * (key order, types, -0 and NaN, prototypes), the same error, and, for each document it reads itself,
 * the value count measureExpansion would give. Each edge case also pins whether the reader read the
 * document or left it to js-yaml, so that its coverage cannot shrink unnoticed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { loadDocuments } from '../../src/manifest/fast-load.js';
import { yamlReaderProblem } from '../fuzz/parser-targets.js';
import { FIXTURES } from '../helpers/fixtures.js';

/**
 * How each document is read: one letter per document, `f` by the fast reader, `j` by js-yaml (a
 * document it bails on, or the whole text); `throws` when js-yaml refuses the text.
 */
type Via = string;

/** How loadDocuments read `text`, in the notation of {@link Via}. */
function via(text: string): Via {
  try {
    return loadDocuments(text)
      .values.map((v) => (v >= 0 ? 'f' : 'j'))
      .join('');
  } catch {
    return 'throws';
  }
}

const nest = (levels: number) =>
  Array.from({ length: levels }, (_, i) => `${' '.repeat(i)}k${i}:`).join('\n') + ' leaf\n';

const CASES: [name: string, text: string, expected: Via][] = [
  // Document markers and empty texts.
  ['empty text', '', ''],
  ['comments only', '# a\n# b\n', 'j'],
  ['blank lines only', '\n\n  \n', 'j'],
  ['implicit document', 'a: 1\n', 'f'],
  ['explicit document', '---\na: 1\n', 'f'],
  ['marker with trailing spaces', '---   \na: 1\n--- \nb: 2\n', 'ff'],
  ['comments before the first marker', '# header\n\n---\na: 1\n', 'f'],
  ['empty explicit documents', '---\n---\na: 1\n---\n', 'fff'],
  ['empty explicit document of comments', '---\n# nothing\n---\na: 1\n', 'ff'],
  ['document end marker', 'a: 1\n...\n---\nb: 2\n', 'jj'],
  ['YAML directive', '%YAML 1.2\n---\na: 1\n', 'j'],
  ['marker with content', '--- a\n', 'j'],
  ['marker with a comment', '--- # c\na: 1\n', 'j'],
  ['one document for js-yaml among others', 'a: 1\n---\nb: &x 2\nc: *x\n---\nd: 3\n', 'fjf'],
  ['the last document for js-yaml', 'a: 1\n---\nb: !!str 2\n', 'fj'],
  ['a tag with no content, then a marker', '!!str # c\n---\na: 1\n', 'jf'],
  ['a tag with no content at the end', 'a: 1\n---\n!!str\n', 'fj'],
  ['a tag with no content between documents', 'a: 1\n---\n!!str\n---   \nb: 2\n', 'fjf'],
  ['a js-yaml error in a later document', 'a: 1\n---\nb: "\\q"\n', 'throws'],
  ['top-level sequence', '- a\n- b\n', 'j'],
  ['top-level scalar', 'text\n', 'j'],
  // Block collections.
  ['nested mapping', 'a:\n  b:\n    c: 1\n  d: 2\ne: 3\n', 'f'],
  ['sequence under a key', 'a:\n  - 1\n  - 2\n', 'f'],
  ['same-indent sequence as a value', 'a:\n- 1\n- 2\nb: 3\n', 'f'],
  ['compact mapping in a sequence', 'a:\n- b: 1\n  c: 2\n- d: 3\n', 'f'],
  ['dash alone, block below', 'a:\n-\n  b: 1\n-\n  - 2\n', 'f'],
  ['dash alone, nothing below', 'a:\n-\n- 2\n', 'f'],
  ['nested sequences on one line', 'a:\n- - 1\n  - 2\n', 'j'],
  ['nested sequences below', 'a:\n  -\n    - 1\n    - 2\n  - 3\n', 'f'],
  ['empty last item, then a shallower item', 'a:\n-\n  -\n- b\n', 'j'],
  ['empty last item, then a shallower item (indented)', 'a:\n  -\n    -\n  - b\n', 'j'],
  ['empty last item, then a shallower key', 'a:\n  -\nb: 1\n', 'f'],
  ['empty last item of a compact mapping’s sequence', 'x:\n  - a:\n    - y\n    -\n  - b\n', 'j'],
  ['empty last item of a same-indent sequence', 'x:\n  y:\n  -\n- b\n', 'j'],
  ['empty last item, then the same column', 'x:\n  -\n  - b\n', 'f'],
  ['key with no value', 'a:\nb: 1\n', 'f'],
  ['key with no value at the end', 'a: 1\nb:', 'f'],
  ['over-indented entry', 'a: 1\n  b: 2\n', 'throws'],
  ['bad indentation', 'a:\n    b: 1\n  c: 2\n', 'throws'],
  ['sequence item after a mapping', 'a: 1\n- b\n', 'throws'],
  // Plain scalars of every core type.
  ['nulls', 'a: null\nb: ~\nc: Null\nd: NULL\ne:\n', 'f'],
  ['booleans', 'a: true\nb: True\nc: FALSE\nd: false\ne: yes\nf: tRUE\n', 'f'],
  ['integers', 'a: 0\nb: -12\nc: +12\nd: 0x1F\ne: 0o17\nf: 0b101\ng: 1_000\nh: 012\ni: 0x_1\n', 'f'],
  ['floats', 'a: 1.5\nb: 1e3\nc: -1.5E-3\nd: .inf\ne: -.Inf\nf: +.INF\ng: .nan\nh: .NaN\ni: 1_0.5\n', 'f'],
  ['negative zero', 'a: -0\nb: -0.0\nc: +0\n', 'f'],
  ['strings that look typed', 'a: 1.2.3\nb: 0x\nc: 1e\nd: nul\ne: .in\nf: 0b2\n', 'f'],
  ['URL and inner colons', 'a: http://x/y:z\nb: a:b\n', 'f'],
  ['scalars with indicators inside', 'a: x#y\nb: x-y\nc: -x\nd: ?x\ne: :x\n', 'f'],
  ['indicator first', 'a: @x\n', 'throws'],
  ['dash alone as a value', 'a: -\n', 'throws'],
  ['trailing colon in a value', 'a: b:\n', 'throws'],
  // Keys.
  ['keys that resolve', 'true: 1\nnull: 2\n1e3: 3\n0x10: 4\n.inf: 5\n.5: 6\n', 'f'],
  ['key starting with a dash', '-0.0: 1\n', 'j'],
  ['keys that resolve in order', 'b: 1\n10: 2\na: 3\n2: 4\n', 'f'],
  ['duplicate key', 'a: 1\na: 2\n', 'throws'],
  ['duplicate key through resolution (null)', 'null: 1\n~: 2\n', 'throws'],
  ['duplicate key through resolution (bool)', 'true: 1\nTrue: 2\n', 'throws'],
  ['duplicate key through resolution (int)', '16: 1\n0x10: 2\n', 'throws'],
  ['quoted keys', '"a": 1\n\'b\': 2\n"": 3\n\'1\': 4\n', 'f'],
  ['quoted and plain keys that collide', '"1": 1\n1: 2\n', 'throws'],
  ['quoted key with an escape', '"a\\tb": 1\n', 'j'],
  ['single-quoted key with a quote', "'it''s': 1\n", 'j'],
  ['keys with inner colons', 'f:metadata:\n  f:name: {}\na:b:c: 1\n', 'f'],
  ['key with a double colon', 'a::b: 1\n', 'j'],
  ['__proto__ key', '__proto__: 1\nb: 2\n', 'j'],
  ['__proto__ key nested', 'a:\n  __proto__:\n    polluted: true\n', 'j'],
  ['quoted __proto__ key', '"__proto__": 1\n', 'j'],
  ['key with a space', 'a b: 1\n', 'j'],
  ['complex key', '? a\n: 1\n', 'j'],
  // Multi-line plain scalars.
  ['continuation lines', 'a: one\n  two\n  three\nb: 4\n', 'f'],
  ['blank lines between', 'a: one\n\n  two\n\n\n  three\n', 'f'],
  ['deeper continuation', 'a: one\n      two\n   three\n', 'f'],
  ['continuation in a sequence', 'a:\n- one\n  two\n', 'f'],
  ['continuation of a compact mapping value', 'a:\n- b: one\n   two\n', 'f'],
  ['continuation with indicators', 'a: x\n  - y\n  [z\n  ? w\n  ---\n', 'f'],
  ['continuation with ": "', 'a: one\n  two: three\n', 'throws'],
  ['continuation with " #"', 'a: one\n  two # c\n', 'j'],
  ['comment line below a scalar', 'a: one\n  # c\nb: 2\n', 'j'],
  ['comment line at column 0 below a scalar', 'a: one\n# c\nb: 2\n', 'f'],
  ['continuation that resolves', 'a: 1\n  2\n', 'f'],
  // Single-quoted scalars.
  ['single-quoted', "a: 'x'\nb: 'it''s'\nc: ''\nd: ''''\n", 'f'],
  ['single-quoted over lines', "a: 'one\n  two\n\n  three'\n", 'f'],
  ['single-quoted with spaces at the breaks', "a: 'one  \n    two'\n", 'f'],
  ['single-quoted continued at the key column', "a: 'one\ntwo'\n", 'j'],
  ['single-quoted, then text', "a: 'x' y\n", 'throws'],
  ['single-quoted, unterminated', "a: 'x\n", 'throws'],
  // Double-quoted scalars.
  [
    'double-quoted escapes',
    'a: "\\0\\a\\b\\t\\n\\v\\f\\r\\e\\ \\"\\/\\\\\\N\\_\\L\\P"\nb: "\\x41\\u00e9\\uD83D\\uDE00"\n',
    'f',
  ],
  ['double-quoted 32-bit escape', 'a: "\\U0001F600"\n', 'j'],
  ['double-quoted escaped line break', 'a: "one \\\n    two\\\n\n  three"\n', 'f'],
  ['double-quoted over lines', 'a: "one\n  two\n\n\n  three"\n', 'f'],
  ['unknown escape', 'a: "\\q"\n', 'throws'],
  ['short hex escape', 'a: "\\x4"\n', 'throws'],
  ['double-quoted, unterminated', 'a: "x\n', 'throws'],
  ['double-quoted with a comment after it', 'a: "x" # c\n', 'j'],
  // Literal block scalars.
  ['literal', 'a: |\n  one\n   two\n\n  three\nb: 1\n', 'f'],
  ['literal, strip', 'a: |-\n  one\n\n\nb: 1\n', 'f'],
  ['literal, keep', 'a: |+\n  one\n\n\nb: 1\n', 'f'],
  ['literal, leading blank lines', 'a: |\n\n\n  one\n', 'f'],
  ['literal, whitespace-only lines longer than its indentation', 'a: |\n  one\n     \n  two\n', 'f'],
  ['literal, whitespace-only lines shorter than its indentation', 'a: |\n    one\n  \n    two\n', 'f'],
  ['literal, leading whitespace-only line longer than its indentation', 'a: |\n     \n  one\n', 'throws'],
  ['literal, trailing blank lines', 'a: |\n  one\n\n\n', 'f'],
  ['literal, keep at the end without a final newline', 'a: |+\n  one\n\n  ', 'f'],
  ['literal at the end without a final newline', 'a: |\n  one', 'f'],
  ['literal, strip at the end', 'a: |-\n  one\n', 'f'],
  ['literal, empty', 'a: |\nb: 1\n', 'f'],
  ['literal in a sequence', 'a:\n- |\n  one\n- |-\n  two\n', 'f'],
  ['literal in a compact mapping', 'a:\n- b: |\n    one\n  c: 1\n', 'f'],
  ['literal with an indentation indicator', 'a: |2\n   one\n', 'j'],
  ['literal with a comment', 'a: | # c\n  one\n', 'j'],
  ['literal, then text on the header', 'a: |x\n', 'throws'],
  ['folded', 'a: >\n  one\n  two\n', 'j'],
  // Flow collections.
  ['empty flow collections', 'a: []\nb: {}\nc: { }\nd: [ ]\n', 'f'],
  ['flow sequence of scalars', 'a: [x, 1, true, null, .5, "q", \'s\']\n', 'f'],
  ['flow sequence with ~', 'a: [~]\n', 'j'],
  ['flow sequence of quoted commas', 'a: ["x, y", \'[z]\']\n', 'f'],
  ['flow sequence with a trailing comma', 'a: [x, ]\n', 'j'],
  ['flow sequence over lines', 'a: [x,\n  y]\n', 'j'],
  ['flow mapping', 'a: {b: 1}\n', 'j'],
  ['nested flow sequence', 'a: [[x]]\n', 'j'],
  ['flow sequence, then text', 'a: [x] y\n', 'throws'],
  ['flow sequence, unterminated', 'a: [x\n', 'throws'],
  // Comments, whitespace, characters.
  ['comment lines everywhere', '# c\na:\n  # c\n  b: 1\n# c\n  c: 2\n', 'f'],
  ['trailing comment', 'a: 1 # c\n', 'j'],
  ['trailing comment after a key', 'a: # c\n  b: 1\n', 'j'],
  ['trailing spaces', 'a: 1   \nb:   \n  c: x  \n', 'f'],
  ['tab', 'a:\tb\n', 'j'],
  ['tab indentation', 'a:\n\tb: 1\n', 'throws'],
  ['CRLF', 'a: 1\r\nb: 2\r\n', 'j'],
  ['BOM', '\uFEFFa: 1\n', 'j'],
  ['non-printable character', 'a: \u0001\n', 'throws'],
  ['non-ASCII', 'a: é名\n"ключ": 😀\n', 'f'],
  ['anchor and alias', 'a: &x 1\nb: *x\n', 'j'],
  ['tag', 'a: !!str 1\n', 'j'],
  ['alias to its own anchor (a cycle)', 'a: &x\n  b: *x\n', 'j'],
  ['merge key', 'a: &x {b: 1}\nc:\n  <<: *x\n', 'j'],
  // Depth.
  ['60 levels', nest(60), 'f'],
  ['70 levels', nest(70), 'j'],
  ['64 levels', nest(64), 'f'],
  ['65 levels', nest(65), 'j'],
  ['100 levels', nest(100), 'throws'],
  ['101 levels', nest(101), 'throws'],
];

describe('loadDocuments: edge cases against js-yaml', () => {
  it.each(CASES)('%s', (_name, text, expected) => {
    expect(yamlReaderProblem(text)).toBeUndefined();
    expect(via(text)).toBe(expected);
  });
});

/** Every YAML file under test/fixtures, gunzipped. */
function fixtureTexts(dir = FIXTURES): [string, string][] {
  const out: [string, string][] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...fixtureTexts(file));
    else if (entry.name.endsWith('.yaml')) out.push([file, readFileSync(file, 'utf8')]);
    else if (entry.name.endsWith('.yaml.gz')) out.push([file, gunzipSync(readFileSync(file)).toString('utf8')]);
  }
  return out;
}

const BENCH = [
  'repository/cluster-api/v1.12.0/core-components.yaml.gz',
  'repository/bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml.gz',
  'repository/control-plane-kubeadm/v1.12.0/control-plane-components.yaml.gz',
  'repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml.gz',
  'repository/cert-manager/v1.19.4/cert-manager.yaml.gz',
];

describe('loadDocuments: fixtures', () => {
  it('gives js-yaml’s documents for every YAML file under test/fixtures', () => {
    const texts = fixtureTexts();
    expect(texts.length).toBeGreaterThan(100);
    for (const [file, text] of texts) expect(yamlReaderProblem(text), path.relative(FIXTURES, file)).toBeUndefined();
  });

  it.each(BENCH)('reads %s itself, every document', (file) => {
    const text = gunzipSync(readFileSync(path.join(FIXTURES, file))).toString('utf8');
    const { documents, values } = loadDocuments(text);
    expect(documents.length).toBeGreaterThan(10);
    expect(values.filter((v) => v < 0)).toEqual([]);
    // Value counts equal to measureExpansion's are checked by yamlReaderProblem.
    expect(yamlReaderProblem(text)).toBeUndefined();
  });
});
