import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { SpecError } from '../../src/errors.js';
import { parseManifests } from '../../src/manifest/parse.js';
import {
  inspectVariables,
  MissingVariablesError,
  substituteVariables,
  type VariableUse,
} from '../../src/process/variables/index.js';
import { thrownBy } from '../helpers/errors.js';

type Vars = Record<string, string | undefined>;

const lookupIn = (vars: Vars) => (name: string) => (Object.hasOwn(vars, name) ? vars[name] : undefined);
const run = (input: string, vars: Vars = {}) => substituteVariables(input, lookupIn(vars), 'test.yaml');

function fixture(path: string): string {
  const bytes = readFileSync(new URL(`../fixtures/${path}`, import.meta.url));
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

interface Case {
  name: string;
  input: string;
  vars?: Vars;
  expected: string;
}

const cases: Case[] = [
  // plain references and defaults
  { name: 'plain reference', input: 'a: ${A}', vars: { A: 'x' }, expected: 'a: x' },
  { name: 'set-but-empty plain reference', input: '[${A}]', vars: { A: '' }, expected: '[]' },
  { name: '= uses the value', input: '${A=d}', vars: { A: 'v' }, expected: 'v' },
  { name: '= uses the default when unset', input: '${A=d}', expected: 'd' },
  { name: '= uses the default when empty', input: '${A=d}', vars: { A: '' }, expected: 'd' },
  { name: ':= uses the default when unset', input: '${A:=d}', expected: 'd' },
  { name: ':= uses the default when empty', input: '${A:=d}', vars: { A: '' }, expected: 'd' },
  { name: ':- uses the default when empty', input: '${A:-d}', vars: { A: '' }, expected: 'd' },
  { name: ':- uses the value', input: '${A:-d}', vars: { A: 'v' }, expected: 'v' },
  { name: 'default may start with a colon', input: '--addr=${ADDR:=:8443}', expected: '--addr=:8443' },
  { name: 'default ="" is the two characters ""', input: 'v: ${E=""}', expected: 'v: ""' },
  { name: 'default is taken verbatim: no $$ escape there', input: '${A:=a$$b}', expected: 'a$$b' },
  { name: 'default with a bare $ and a colon', input: '${A:=$x:y}', expected: '$x:y' },
  { name: '== gives a default starting with =', input: '${A==x}', expected: '=x' },
  { name: 'nested default', input: '${A:=x${B}y}', vars: { B: '1' }, expected: 'x1y' },
  { name: 'nested default, inner unset', input: '${A:=x${B}y}', expected: 'xy' },
  { name: 'nested default with a function inside', input: '${A=${B^^}-s}', vars: { B: 'ab' }, expected: 'AB-s' },
  { name: 'nested default not used when set', input: '${A:=${B}}', vars: { A: 'a', B: 'b' }, expected: 'a' },
  // :? and :+ are parsed as defaults, never errors or alternates
  { name: ':? uses its word as a default', input: '${A:?must be set}', expected: 'must be set' },
  { name: ':? keeps a set value', input: '${A:?msg}', vars: { A: 'v' }, expected: 'v' },
  { name: ':+ uses its word when unset (not bash)', input: '${A:+alt}', expected: 'alt' },
  { name: ':+ keeps a set value (not bash)', input: '${A:+alt}', vars: { A: 'v' }, expected: 'v' },
  // length and case
  { name: 'length', input: '${#A}', vars: { A: 'hello' }, expected: '5' },
  { name: 'length counts UTF-8 bytes', input: '${#A}', vars: { A: 'é€' }, expected: '5' },
  { name: 'length of empty', input: '${#A}', vars: { A: '' }, expected: '0' },
  { name: 'upper first', input: '${A^}', vars: { A: 'abc' }, expected: 'Abc' },
  { name: 'upper all', input: '${A^^}', vars: { A: 'abC1' }, expected: 'ABC1' },
  { name: 'lower first', input: '${A,}', vars: { A: 'ABC' }, expected: 'aBC' },
  { name: 'lower all', input: '${A,,}', vars: { A: 'ABC1' }, expected: 'abc1' },
  { name: 'upper first of empty', input: '[${A^}]', vars: { A: '' }, expected: '[]' },
  { name: 'upper keeps ß (Go simple mapping, not SS)', input: '${A^^}', vars: { A: 'straße' }, expected: 'STRAßE' },
  { name: 'upper of ᾳ is the title-case ᾼ', input: '${A^^}', vars: { A: 'ᾳ' }, expected: 'ᾼ' },
  { name: 'lower of İ is plain i', input: '${A,,}', vars: { A: 'İX' }, expected: 'ix' },
  { name: 'lower of a final Σ is σ (no context)', input: '${A,,}', vars: { A: 'ΑΣ' }, expected: 'ασ' },
  { name: 'mixed casing ,^ falls back to the value', input: '${A,^}', vars: { A: 'aB' }, expected: 'aB' },
  // substrings
  { name: 'substring from offset', input: '${A:2}', vars: { A: 'abcdef' }, expected: 'cdef' },
  { name: 'substring with length', input: '${A:1:3}', vars: { A: 'abcdef' }, expected: 'bcd' },
  { name: 'substring length past the end', input: '${A:2:100}', vars: { A: 'abcdef' }, expected: 'cdef' },
  { name: 'substring offset past the end', input: '[${A:10}]', vars: { A: 'abcdef' }, expected: '[]' },
  { name: 'substring offset past the end, with length', input: '[${A:9:1}]', vars: { A: 'abcdef' }, expected: '[]' },
  { name: 'substring zero length', input: '[${A:1:0}]', vars: { A: 'abcdef' }, expected: '[]' },
  { name: 'substring with unparsable offset gives the value', input: '${A:x}', vars: { A: 'abc' }, expected: 'abc' },
  { name: 'substring offset with a space is unparsable', input: '${A: -2}', vars: { A: 'abc' }, expected: 'abc' },
  { name: 'substring with unparsable length gives the value', input: '${A:1:y}', vars: { A: 'abc' }, expected: 'abc' },
  {
    name: 'substring offset out of int64 range gives the value',
    input: '${A:99999999999999999999}',
    vars: { A: 'abc' },
    expected: 'abc',
  },
  { name: 'negative offset from a nested value', input: '${A:${N}}', vars: { A: 'abcdef', N: '-2' }, expected: 'ef' },
  {
    name: 'negative offset beyond the start is clamped',
    input: '${A:${N}:2}',
    vars: { A: 'abcdef', N: '-10' },
    expected: 'ab',
  },
  { name: 'a run of colons separates offset and length', input: '${A:1::2}', vars: { A: 'abcdef' }, expected: 'bc' },
  { name: 'substring works on bytes', input: '${A:2}', vars: { A: 'éab' }, expected: 'ab' },
  { name: 'substring cutting a character yields U+FFFD', input: '${A:1}', vars: { A: 'éa' }, expected: '\ufffda' },
  { name: 'substring of an unset variable', input: '[${A:1}]', expected: '[]' },
  // pattern trims (globs)
  { name: '# shortest prefix', input: '${F#*.}', vars: { F: 'bash.string.txt' }, expected: 'string.txt' },
  { name: '## longest prefix', input: '${F##*.}', vars: { F: 'bash.string.txt' }, expected: 'txt' },
  { name: '% shortest suffix', input: '${F%.*}', vars: { F: 'bash.string.txt' }, expected: 'bash.string' },
  { name: '%% longest suffix', input: '${F%%.*}', vars: { F: 'bash.string.txt' }, expected: 'bash' },
  { name: '* matches slashes', input: '${F#*/}', vars: { F: 'path/to/file' }, expected: 'to/file' },
  { name: '## with * across slashes', input: '${F##*/}', vars: { F: '/path/to/file' }, expected: 'file' },
  { name: '? matches one character', input: '${F#?}', vars: { F: 'abc' }, expected: 'bc' },
  { name: 'character class', input: '${F#[a-c]}', vars: { F: 'bash' }, expected: 'ash' },
  { name: 'negated class', input: '${F#[^a-c]}', vars: { F: 'xbc' }, expected: 'bc' },
  { name: 'no match leaves the value', input: '${F#x*}', vars: { F: 'abc' }, expected: 'abc' },
  { name: 'literal pattern', input: '${F#v}', vars: { F: 'v1.2.3' }, expected: '1.2.3' },
  { name: 'suffix literal', input: '${F%-dev}', vars: { F: 'v1-dev' }, expected: 'v1' },
  { name: 'escaped * in a prefix pattern', input: '${F#\\*}', vars: { F: '*x' }, expected: 'x' },
  {
    name: 'escaped * in a suffix pattern is reversed and breaks',
    input: '${F%\\*}',
    vars: { F: 'x*' },
    expected: 'x*',
  },
  { name: 'malformed class leaves the value', input: '${F#a[}', vars: { F: 'abc' }, expected: 'abc' },
  { name: 'pattern may hold $ and {', input: '${F#$%:*{}', vars: { F: '$%:ab{c' }, expected: 'c' },
  { name: 'pattern from a nested variable', input: '${F#${P}}', vars: { F: 'v1.2', P: 'v' }, expected: '1.2' },
  { name: '? takes one byte of a cut character', input: '${F#?}', vars: { F: 'éa' }, expected: '\ufffda' },
  { name: 'shortest prefix up to a digit class', input: '${F#*[0-9]}', vars: { F: 'ab1c2d' }, expected: 'c2d' },
  { name: 'longest prefix up to a digit class', input: '${F##*[0-9]}', vars: { F: 'ab1c2d' }, expected: 'd' },
  { name: 'trailing * after a literal, shortest', input: '${F#a*}', vars: { F: 'abc' }, expected: 'bc' },
  { name: 'trailing * after a literal, longest', input: '[${F##a*}]', vars: { F: 'abc' }, expected: '[]' },
  { name: 'shortest suffix from a slash', input: '${F%/*}', vars: { F: 'a/b/c' }, expected: 'a/b' },
  { name: 'longest suffix from a slash', input: '${F%%/*}', vars: { F: 'a/b/c' }, expected: 'a' },
  { name: 'a class may not start with ] (Go, not POSIX)', input: '${F#[]a]}', vars: { F: ']x' }, expected: ']x' },
  { name: 'trim of an unset variable', input: '[${F#x}]', expected: '[]' },
  // replacement (literal patterns)
  { name: '/ first', input: '${V/a/X}', vars: { V: 'banana' }, expected: 'bXnana' },
  { name: '// all', input: '${V//a/X}', vars: { V: 'banana' }, expected: 'bXnXnX' },
  { name: '/# prefix', input: '${V/#b/X}', vars: { V: 'banana' }, expected: 'Xanana' },
  { name: '/# prefix, no match', input: '${V/#a/X}', vars: { V: 'banana' }, expected: 'banana' },
  { name: '/% suffix', input: '${V/%a/X}', vars: { V: 'banana' }, expected: 'bananX' },
  { name: '/ with empty replacement deletes', input: '${V/a/}', vars: { V: 'banana' }, expected: 'bnana' },
  { name: '// with empty replacement deletes all', input: '${V//a/}', vars: { V: 'banana' }, expected: 'bnn' },
  { name: '/# with empty replacement changes nothing', input: '${V/#b/}', vars: { V: 'banana' }, expected: 'banana' },
  { name: '/% with empty replacement changes nothing', input: '${V/%a/}', vars: { V: 'banana' }, expected: 'banana' },
  { name: 'patterns are not globs', input: '${V/a*/X}', vars: { V: 'a*b' }, expected: 'Xb' },
  { name: 'escaped slash in the pattern', input: '${V/\\//-}', vars: { V: 'a/b/c' }, expected: 'a-b/c' },
  { name: 'escaped slash, all', input: '${V//\\//-}', vars: { V: 'a/b/c' }, expected: 'a-b-c' },
  { name: 'escaped backslash in the pattern', input: '${V/\\\\/x}', vars: { V: 'a\\b' }, expected: 'axb' },
  { name: 'escaped slash in the replacement', input: '${V/-/\\/}', vars: { V: 'a-b' }, expected: 'a/b' },
  { name: '$$ in a replacement is one $', input: '${V/a/$$}', vars: { V: 'banana' }, expected: 'b$nana' },
  { name: 'other backslashes stay', input: '${V/a/\\n}', vars: { V: 'ab' }, expected: '\\nb' },
  {
    name: 'replacement may contain slashes',
    input: '${V/#arn/x/y: arn}',
    vars: { V: 'arn:1' },
    expected: 'x/y: arn:1',
  },
  { name: 'the pattern runs past a }', input: '${V/a}b/c}', vars: { V: 'xa}by' }, expected: 'xcy' },
  {
    name: 'empty nested pattern inserts everywhere',
    input: '${V//${E}/-}',
    vars: { V: 'ab', E: '' },
    expected: '-a-b-',
  },
  { name: 'empty nested pattern, first only', input: '${V/${E}/-}', vars: { V: 'ab', E: '' }, expected: '-ab' },
  { name: 'nested replacement', input: '${V/a/${R}}', vars: { V: 'ab', R: 'z' }, expected: 'zb' },
  // escapes and literal text
  { name: '$${ is a literal ${', input: 'x: $${A}', vars: { A: 'v' }, expected: 'x: ${A}' },
  { name: '$$ before text is one $', input: 'x: $$A', expected: 'x: $A' },
  { name: '$$$${ gives $${', input: '$$$${A}', vars: { A: 'v' }, expected: '$${A}' },
  { name: '$$${ gives $ then the value', input: '$$${A}', vars: { A: 'v' }, expected: '$v' },
  { name: 'bare $VAR is literal', input: 'a: $A and $B_C', vars: { A: 'v' }, expected: 'a: $A and $B_C' },
  { name: 'lone and trailing $', input: 'x$ $ $', expected: 'x$ $ $' },
  {
    name: 'backslashes outside a substitution stay',
    input: '\\\\.\\pipe ${A}',
    vars: { A: 'v' },
    expected: '\\\\.\\pipe v',
  },
  { name: 'a lone } and $( stay', input: '} $(X) ${A} }', vars: { A: 'v' }, expected: '} $(X) v }' },
  { name: 'value with $ and regex characters', input: '${A}', vars: { A: 'ba$r${X}' }, expected: 'ba$r${X}' },
  { name: 'envsubst mixture', input: 'some ${A}$${v$${A}$A${A}', vars: { A: 'x' }, expected: 'some x${v${A}$Ax' },
  // clusterctl's legacy spacing
  { name: 'legacy ${ A }', input: '${ A }', vars: { A: 'v' }, expected: 'v' },
  { name: 'legacy ${A }', input: '${A }', vars: { A: 'v' }, expected: 'v' },
  { name: 'legacy ${ A}', input: '${ A}', vars: { A: 'v' }, expected: 'v' },
  { name: 'legacy spacing with tabs and newlines', input: '${\t\nA\r }', vars: { A: 'v' }, expected: 'v' },
  { name: 'legacy spacing inside $$ still normalised', input: '$${ A }', expected: '${A}' },
  { name: 'Unicode variable names', input: '${Ä_1}', vars: { Ä_1: 'v' }, expected: 'v' },
  { name: 'names may start with a digit', input: '${1A}', vars: { '1A': 'v' }, expected: 'v' },
];

describe('substituteVariables: envsubst forms', () => {
  it.each(cases)('$name', ({ input, vars, expected }) => {
    expect(run(input, vars).text).toBe(expected);
  });
});

describe('inspectVariables', () => {
  it.each([
    {
      name: 'sorted and unique',
      input: '${C} ${B}\n${A} ${A} ${B}',
      expected: [
        ['A', false],
        ['B', false],
        ['C', false],
      ],
    },
    {
      name: 'legacy spacing',
      input: 'yaml ${A} ${ B} ${ C} ${ D }',
      expected: [
        ['A', false],
        ['B', false],
        ['C', false],
        ['D', false],
      ],
    },
    {
      name: 'defaults',
      input: '${C:=default}\n${B}\n${A=foobar}\n${E=""}\n${D:=${A}}',
      expected: [
        ['A', true],
        ['B', false],
        ['C', true],
        ['D', true],
        ['E', true],
      ],
    },
    { name: 'first use without default, later with: required', input: '${A} ${A:=x}', expected: [['A', false]] },
    { name: 'first use with default, later without: defaulted', input: '${A:=x} ${A}', expected: [['A', true]] },
    {
      name: 'any function with arguments has a default',
      input: '${A:1} ${B/x/y} ${C#x} ${D%%y} ${E//x/} ${F:?m} ${G:+m}',
      expected: ['A', 'B', 'C', 'D', 'E', 'F', 'G'].map((n) => [n, true]),
    },
    {
      name: 'functions without arguments do not',
      input: '${#A} ${B^^} ${C,} ${D:=} ${E:-} ${F=}',
      expected: ['A', 'B', 'C', 'D', 'E', 'F'].map((n) => [n, false]),
    },
    {
      name: 'variables only inside arguments are not listed',
      input: '${A:=${B}} ${C/${D}/${E}}',
      expected: [
        ['A', true],
        ['C', true],
      ],
    },
    { name: 'escaped and bare references are not variables', input: '$${A} $B ${C}', expected: [['C', false]] },
    {
      name: 'Go byte order, not UTF-16 order',
      input: '${\u{10000}} ${\uFF21} ${Z}',
      expected: [
        ['Z', false],
        ['\uFF21', false],
        ['\u{10000}', false],
      ],
    },
  ])('$name', ({ input, expected }) => {
    const want: VariableUse[] = expected.map(([name, hasDefault]) => ({
      name: name as string,
      hasDefault: hasDefault as boolean,
    }));
    expect(inspectVariables(input, 'test.yaml')).toEqual(want);
  });
});

describe('substituteVariables: missing variables', () => {
  it.each([
    {
      name: 'all missing names, sorted, in one error',
      input: 'foo ${ C} ${A} ${B:=x} ${D} ${A}',
      vars: { X: '1' },
      missing: ['A', 'C', 'D'],
    },
    { name: 'first use without default makes it required', input: '${A} ${A:=x}', vars: {}, missing: ['A'] },
    { name: 'an empty default is no default', input: '${A:=} ${B:-}', vars: {}, missing: ['A', 'B'] },
    { name: 'length and case functions need a value', input: '${#A} ${B^^}', vars: {}, missing: ['A', 'B'] },
    { name: 'set values are not missing', input: '${A} ${B} ${C}', vars: { B: 'b' }, missing: ['A', 'C'] },
  ])('$name', ({ input, vars, missing }) => {
    const e = thrownBy(Error, () => run(input, vars));
    expect(e).toBeInstanceOf(MissingVariablesError);
    expect(e).toBeInstanceOf(SpecError);
    const err = e as MissingVariablesError;
    expect(err.code).toBe('variables-missing');
    expect(err.missing).toEqual(missing);
    expect(err.diagnostics).toHaveLength(1);
    expect(err.diagnostics[0]).toMatchObject({ severity: 'error', code: 'variables-missing', file: 'test.yaml' });
    expect(err.diagnostics[0]!.hint).toBeTruthy();
  });

  it.each([
    { name: 'a set-but-empty value counts as set', input: '[${A}]', vars: { A: '' }, expected: '[]' },
    {
      name: 'a later default is ignored, but the value is set',
      input: '${A} ${A:=x}',
      vars: { A: '' },
      expected: ' x',
    },
    {
      name: 'a defaulted variable used again without default evaluates to ""',
      input: '${A:=x} [${A}]',
      vars: {},
      expected: 'x []',
    },
    { name: 'a function with arguments never errors', input: '[${A:1}${B/x/y}${C#x}]', vars: {}, expected: '[]' },
    { name: 'a variable inside a default is never missing', input: '[${A:=${B}}]', vars: {}, expected: '[]' },
  ])('no error: $name', ({ input, vars, expected }) => {
    expect(run(input, vars).text).toBe(expected);
  });
});

describe('substituteVariables: result fields', () => {
  it.each([
    {
      name: 'used lists names that had a value, "" included',
      input: '${A} ${B:=x} ${C:=y}',
      vars: { A: 'a', C: '' },
      used: ['A', 'C'],
    },
    {
      name: 'used includes names evaluated inside defaults',
      input: '${A:=${B}} ${D:=${C}}',
      vars: { A: 'a', B: 'b' },
      used: ['A', 'B'],
    },
    { name: 'nothing used', input: 'no variables', vars: { A: 'a' }, used: [] },
  ])('$name', ({ input, vars, used }) => {
    const result = run(input, vars);
    expect(result.used).toEqual(used);
    expect(result.variables).toEqual(inspectVariables(input, 'test.yaml'));
  });

  it('asks lookup once per name', () => {
    const calls: string[] = [];
    substituteVariables('${A} ${A} ${B:=${A}} ${A:1}', (name) => (calls.push(name), 'v'), 'test.yaml');
    expect(calls.sort()).toEqual(['A', 'B']);
  });
});

describe('substituteVariables: syntax errors', () => {
  it.each([
    { name: 'metacharacter in a name', input: 'foo ${BA$R} ${FOO}', line: 1, col: 5 },
    { name: '- without colon is not supported', input: '${A-x}', line: 1, col: 1 },
    { name: '+ without colon is not supported', input: '${A+x}', line: 1, col: 1 },
    { name: '? without colon is not supported', input: '${A?x}', line: 1, col: 1 },
    { name: 'unterminated', input: 'a\nb: ${A', line: 2, col: 4 },
    { name: 'unterminated default', input: '${A:=abc', line: 1, col: 1 },
    { name: 'empty braces', input: '${}', line: 1, col: 1 },
    { name: 'empty length', input: '${#}', line: 1, col: 1 },
    { name: 'length with extra', input: '${#A:1}', line: 1, col: 1 },
    { name: 'empty substring', input: '${A:}', line: 1, col: 1 },
    { name: 'double colon substring', input: '${A::2}', line: 1, col: 1 },
    { name: 'text then ${ in an offset', input: '${A:1${B}}', line: 1, col: 1 },
    { name: 'non-ASCII after a colon', input: '${A:é}', line: 1, col: 1 },
    { name: 'empty trim pattern', input: '${A#}', line: 1, col: 1 },
    { name: 'text then ${ in a trim pattern', input: '${A#x${B}}', line: 1, col: 1 },
    { name: 'replace without a second slash', input: '${A/x}', line: 1, col: 1 },
    { name: 'triple casing', input: '${A^^^}', line: 1, col: 1 },
    { name: 'vertical tab is not legacy spacing', input: '${\vA}', line: 1, col: 1 },
    { name: 'error inside a nested default points at the inner ${', input: 'x: ${A:=${B-1}}', line: 1, col: 9 },
    { name: 'lines counted in the original text', input: 'a: ${\n  A\n}\nb: ${B-x}', line: 4, col: 4 },
    { name: 'NUL character', input: 'a: 1\n\0b', line: 2, col: 1 },
  ])('$name', ({ input, line, col }) => {
    for (const call of [() => run(input), () => inspectVariables(input, 'test.yaml')]) {
      const e = thrownBy(Error, call);
      expect(e).toBeInstanceOf(SpecError);
      expect((e as SpecError).code).toBe('variables-syntax');
      expect((e as SpecError).diagnostics[0]).toMatchObject({ code: 'variables-syntax', file: 'test.yaml', line, col });
    }
  });

  it('a negative substring length fails where envsubst would crash', () => {
    const e = thrownBy(Error, () => run('x\n${A:0:${N}}', { A: 'abc', N: '-1' }));
    expect(e).toBeInstanceOf(SpecError);
    expect((e as SpecError).diagnostics[0]).toMatchObject({ code: 'variables-syntax', line: 2, col: 1 });
  });

  it('deep nesting is refused instead of overflowing the stack', () => {
    const input = '${A:='.repeat(100_000) + '}'.repeat(100_000);
    expect((thrownBy(Error, () => run(input)) as SpecError).code).toBe('variables-syntax');
  });
});

describe('substituteVariables: real components files', () => {
  const aws = fixture('derived/tanzu-framework/infrastructure-aws/v2.0.2/infrastructure-components.yaml.gz');
  const awsRequired = [
    'AWS_B64ENCODED_CREDENTIALS',
    'CAPA_CONTROLLER_IMAGE_TAG',
    'TKG_HTTPS_PROXY',
    'TKG_HTTP_PROXY',
    'TKG_NO_PROXY',
  ];
  const awsValues: Vars = Object.fromEntries(awsRequired.map((name) => [name, `value-of-${name.toLowerCase()}`]));
  const roleArn = 'arn:aws:iam::123456789012:role/controllers.cluster-api-provider-aws.sigs.k8s.io';

  it('CAPA: variables and defaults as test/fixtures/PROVENANCE.md lists them', () => {
    const defaulted = [
      'AUTO_CONTROLLER_IDENTITY_CREATOR',
      'AWS_CONTROLLER_IAM_ROLE',
      'CAPA_EKS',
      'CAPA_EKS_ADD_ROLES',
      'CAPA_EKS_IAM',
      'CAPA_LOGLEVEL',
      'EVENT_BRIDGE_INSTANCE_STATE',
      'EXP_BOOTSTRAP_FORMAT_IGNITION',
      'EXP_EKS_FARGATE',
      'EXP_EXTERNAL_RESOURCE_GC',
      'EXP_MACHINE_POOL',
      'K8S_CP_LABEL',
    ];
    const variables = inspectVariables(aws, 'aws.yaml');
    expect(variables.filter((v) => !v.hasDefault).map((v) => v.name)).toEqual(awsRequired);
    expect(variables.filter((v) => v.hasDefault).map((v) => v.name)).toEqual(defaulted);
  });

  it('CAPA: one error names every required variable', () => {
    const e = thrownBy(Error, () => substituteVariables(aws, () => undefined, 'aws.yaml')) as MissingVariablesError;
    expect(e.code).toBe('variables-missing');
    expect(e.missing).toEqual(awsRequired);
    expect(e.diagnostics[0]?.file).toBe('aws.yaml');
  });

  it('CAPA: the /#arn/ pattern used as a YAML key becomes the role annotation', () => {
    const result = substituteVariables(aws, lookupIn({ ...awsValues, AWS_CONTROLLER_IAM_ROLE: roleArn }), 'aws.yaml');
    expect(result.text).toContain(`  annotations:\n    eks.amazonaws.com/role-arn: ${roleArn}\n  labels:`);
    expect(result.used).toEqual([...awsRequired, 'AWS_CONTROLLER_IAM_ROLE'].sort());
    const objects = parseManifests(result.text, 'aws.yaml').map((r) => r.object);
    const sa = objects.find(
      (o) => o.kind === 'ServiceAccount' && (o.metadata as { name?: string }).name === 'capa-controller-manager',
    );
    expect((sa?.metadata as { annotations?: unknown }).annotations).toEqual({ 'eks.amazonaws.com/role-arn': roleArn });
    const deployment = objects.find((o) => o.kind === 'Deployment') as unknown as {
      spec: { template: { metadata: { annotations: Record<string, string> } } };
    };
    expect(deployment.spec.template.metadata.annotations['iam.amazonaws.com/role']).toBe(roleArn);
    // envsubst also reduces `$$` in CRD descriptions, as clusterctl does to this file.
    expect(result.text).toContain('Double $ are reduced to a single $');
    expect(result.text).not.toContain('$$');
    expect(result.text).not.toContain('${');
  });

  it('CAPA: without a role the annotation line is blank and annotations is null', () => {
    const result = substituteVariables(aws, lookupIn(awsValues), 'aws.yaml');
    expect(result.text).toContain('  annotations:\n    \n  labels:');
    const docs = jsYaml.loadAll(result.text) as { kind: string; metadata: { name: string; annotations?: unknown } }[];
    const sa = docs.find((d) => d.kind === 'ServiceAccount' && d.metadata.name === 'capa-controller-manager');
    expect(sa?.metadata.annotations).toBeNull();
    expect(result.text).toContain(`iam.amazonaws.com/role: ""`);
  });

  const capd = fixture('repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml.gz');

  it('CAPD: bare $IPv6 text stays, defaults apply, no ${ is left', () => {
    const result = substituteVariables(capd, () => undefined, 'capd.yaml');
    expect(result.text).toContain('$IPv6 (bool) indicates if the cluster is IPv6, $FrontendControlPlanePort (string)');
    expect(result.text).toContain(
      '$BackendControlPlanePort (string) indicates the backend control plane port, $BackendServers',
    );
    expect(result.text).toContain('          value: ""\n');
    expect(result.text).not.toContain('${');
    expect(result.used).toEqual([]);
    expect(result.variables).toEqual(
      [
        'CAPD_DOCKER_HOST',
        'CAPI_DIAGNOSTICS_ADDRESS',
        'CAPI_INSECURE_DIAGNOSTICS',
        'CLUSTER_TOPOLOGY',
        'EXP_MACHINE_POOL',
        'EXP_PRIORITY_QUEUE',
        'EXP_RECONCILER_RATE_LIMITING',
      ].map((name) => ({ name, hasDefault: true })),
    );
    // Everything outside the `${...}` is untouched (the file has no `$$`).
    expect(result.text).toBe(capd.replace(/\$\{([A-Z_]+):=([^}]*)\}/g, '$2'));
  });

  const core = fixture('repository/cluster-api/v1.12.0/core-components.yaml.gz');

  it('core v1.12.0: variables as test/fixtures/PROVENANCE.md lists them, all defaulted', () => {
    expect(inspectVariables(core, 'core.yaml')).toEqual(
      [
        'CAPI_DIAGNOSTICS_ADDRESS',
        'CAPI_INSECURE_DIAGNOSTICS',
        'CLUSTER_TOPOLOGY',
        'EXP_IN_PLACE_UPDATES',
        'EXP_MACHINE_POOL',
        'EXP_MACHINE_SET_PREFLIGHT_CHECKS',
        'EXP_MACHINE_TAINT_PROPAGATION',
        'EXP_MACHINE_WAITFORVOLUMEDETACH_CONSIDER_VOLUMEATTACHMENTS',
        'EXP_PRIORITY_QUEUE',
        'EXP_RECONCILER_RATE_LIMITING',
        'EXP_RUNTIME_SDK',
      ].map((name) => ({ name, hasDefault: true })),
    );
  });

  it('core v1.12.0: defaults and values substitute', () => {
    const result = substituteVariables(
      core,
      lookupIn({ EXP_MACHINE_POOL: 'false', CLUSTER_TOPOLOGY: '' }),
      'core.yaml',
    );
    expect(result.text).toContain('- --diagnostics-address=:8443\n');
    expect(result.text).toContain('--feature-gates=MachinePool=false,ClusterTopology=false,RuntimeSDK=false,');
    expect(result.used).toEqual(['CLUSTER_TOPOLOGY', 'EXP_MACHINE_POOL']);
    expect(result.text).not.toContain('${');
  });
});
