/**
 * A dictionary-driven text mutator as a fast-check arbitrary: a seed text (valid input of the
 * parser under test) and a few edits — insert a token of the parser's own vocabulary, delete or
 * duplicate a range, replace a character, or splice in random characters. Edits are positions
 * taken modulo the text's length, so they shrink toward the seed itself.
 */
import fc from 'fast-check';

type Edit =
  | { op: 'insert'; at: number; token: number }
  | { op: 'delete'; at: number; length: number }
  | { op: 'duplicate'; at: number; length: number }
  | { op: 'replace'; at: number; char: string }
  | { op: 'splice'; at: number; text: string };

/** Characters that break parsers: controls, quotes, separators, unicode oddities. */
const HOSTILE = [
  '\u0000',
  '\t',
  '\r',
  '\n',
  '\r\n',
  '\ufeff',
  '\u202e',
  '\ud800',
  '\u00e9',
  '名',
  '"',
  "'",
  '\\',
  '%',
  '%00',
  '%2F',
  '#',
  '&',
  '*',
  '!',
  '|',
  '>',
  '{',
  '}',
  '[',
  ']',
  ':',
  ',',
  '@',
  '/',
  '?',
  '=',
  ' ',
  '  ',
  '-',
  '.',
  '..',
  '$',
  '${',
  '}',
];

export function mutatedText(seeds: readonly string[], vocabulary: readonly string[]): fc.Arbitrary<string> {
  const tokens = [...vocabulary, ...HOSTILE];
  const edit: fc.Arbitrary<Edit> = fc.oneof(
    fc.record({ op: fc.constant('insert' as const), at: fc.nat(), token: fc.nat(tokens.length - 1) }),
    fc.record({ op: fc.constant('delete' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 16 }) }),
    fc.record({ op: fc.constant('duplicate' as const), at: fc.nat(), length: fc.integer({ min: 1, max: 64 }) }),
    fc.record({
      op: fc.constant('replace' as const),
      at: fc.nat(),
      char: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    }),
    fc.record({
      op: fc.constant('splice' as const),
      at: fc.nat(),
      text: fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
    }),
  );
  return fc
    .record({ seed: fc.constantFrom(...seeds), edits: fc.array(edit, { maxLength: 6 }) })
    .map(({ seed, edits }) => edits.reduce((text, e) => applyEdit(text, e, tokens), seed));
}

function applyEdit(text: string, e: Edit, tokens: readonly string[]): string {
  const at = text.length === 0 ? 0 : e.at % (text.length + 1);
  switch (e.op) {
    case 'insert':
      return text.slice(0, at) + tokens[e.token] + text.slice(at);
    case 'delete':
      return text.slice(0, at) + text.slice(at + e.length);
    case 'duplicate':
      return text.slice(0, at + e.length) + text.slice(at, at + e.length) + text.slice(at + e.length);
    case 'replace':
      return text.slice(0, at) + e.char + text.slice(at + 1);
    case 'splice':
      return text.slice(0, at) + e.text + text.slice(at);
  }
}

/** Seeds plus their mutations plus free strings over an alphabet: the usual input of a parser target. */
export function parserInput(
  seeds: readonly string[],
  vocabulary: readonly string[],
  maxLength = 80,
): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 6, arbitrary: mutatedText(seeds, vocabulary) },
    {
      weight: 2,
      arbitrary: fc.array(fc.constantFrom(...vocabulary, ...HOSTILE), { maxLength: 12 }).map((parts) => parts.join('')),
    },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength }) },
  );
}
