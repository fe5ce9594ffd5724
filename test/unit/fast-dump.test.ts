/**
 * The fast emitter writes exactly what js-yaml writes, byte for byte, on every object of every
 * fixture artifact (CRDs with long descriptions, Deployments, RBAC, webhooks, cert-manager) and on
 * scalars chosen to exercise quoting and block styles.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { OUTPUT_DUMP_OPTIONS, compareKeys } from '../../src/manifest/serialize.js';
import { createFastDumper } from '../../src/manifest/fast-dump.js';
import { FIXTURES, fixtureText } from '../helpers/fixtures.js';

const fast = createFastDumper({ dumpOptions: OUTPUT_DUMP_OPTIONS, compareKeys: compareKeys });
const files = (dir: string): string[] =>
  readdirSync(dir).flatMap((f) =>
    statSync(path.join(dir, f)).isDirectory() ? files(path.join(dir, f)) : [path.join(dir, f)],
  );

describe('createFastDumper', () => {
  const artifacts = [
    ...files(`${FIXTURES}repository`),
    ...files(`${FIXTURES}derived`),
    ...files(`${FIXTURES}configmaps`),
  ].filter((f) => /\.ya?ml(\.gz)?$/.test(f));
  it.each(artifacts.map((f) => path.relative(FIXTURES, f)))('matches js-yaml on every object of %s', (rel) => {
    // Every artifact holds objects: a case that compared none would pass on nothing.
    const docs = jsYaml
      .loadAll(fixtureText(rel), undefined, { schema: jsYaml.CORE_SCHEMA })
      .filter((d) => d !== null && d !== undefined);
    expect(docs.length).toBeGreaterThan(0);
    for (const doc of docs) expect(fast.dump(doc)).toBe(jsYaml.dump(doc, OUTPUT_DUMP_OPTIONS));
  });

  it.each([
    [
      {
        a: 'on',
        b: 'y',
        c: '0775',
        d: '1.10',
        e: '2024-01-01',
        f: '12:30',
        g: '',
        h: ' lead',
        i: 'trail ',
        j: 'a: b',
        k: '#x',
        l: '- x',
        m: 'é',
        n: '\t',
        o: 'x\ty',
      },
    ],
    [
      {
        multi: 'line one\nline two\n',
        keep: 'a\n\n',
        strip: 'a\nb',
        indented: '  x\ny\n',
        trailing: 'x \ny\n',
        crlf: 'a\r\nb',
      },
    ],
    [
      {
        nums: [0, -1, 1.5, 1e21, -0, 2 ** 53],
        bools: [true, false, null],
        empty: { o: {}, a: [] },
        nested: [[1, [2]], [{ a: 1, b: [3] }]],
      },
    ],
    [{ 'key with: colon': 1, y: 2, '': 3, 'multi\nline key': 4, '-dash': 5 }],
    [[{ name: 'x', args: ['--a', '--b=c'] }, 'plain', ['nested']]],
    // Where a value starts on the next line is decided from the value, not read from its text.
    [
      {
        gone: { a: undefined },
        list: [{}, [], { a: undefined }, [[]], [[{ b: [{ c: 'x\ny\n' }] }]]],
        deep: { a: { b: { c: [{ d: {} }] } } },
      },
    ],
    [[[['x', { y: [] }]], { z: 'multi\nline\n' }, 'a\nb']],
  ])('matches js-yaml on %j', (value) => {
    expect(fast.dump(value)).toBe(jsYaml.dump(value, OUTPUT_DUMP_OPTIONS));
  });

  // Strings the emitter writes without asking js-yaml (a letter first, plain-safe characters) sit
  // next to ones that differ from them by one character: both kinds must come out as js-yaml's.
  it('matches js-yaml on strings near the plain-scalar rules, as values and as keys', () => {
    const pieces = [
      ...'aZy'.split(''),
      '0',
      '9',
      ' ',
      '  ',
      ':',
      ': ',
      '#',
      ' #',
      ',',
      '[',
      ']',
      '{',
      '}',
      '-',
      '.',
      '/',
      '_',
      "'",
      '"',
      '!',
      '&',
      '*',
      '|',
      '>',
      '%',
      '@',
      '`',
      '~',
      '?',
      '=',
      '\\',
      'é',
      '\t',
      '\n',
      '\n\n',
      'a\n',
      '\n ',
      '\r',
      'é\n',
      'true',
      'null',
      'no',
      'On',
      'yes',
      'Y',
      '.inf',
      '0x1F',
      '1e3',
      '12:30',
      '2024-01-01',
      '<<',
    ];
    const text = fc.array(fc.constantFrom(...pieces), { minLength: 1, maxLength: 10 }).map((p) => p.join(''));
    fc.assert(
      fc.property(text, (s) => {
        expect(fast.dump(s)).toBe(jsYaml.dump(s, OUTPUT_DUMP_OPTIONS));
        expect(fast.dump({ [s]: s, list: [s] })).toBe(jsYaml.dump({ [s]: s, list: [s] }, OUTPUT_DUMP_OPTIONS));
      }),
      { numRuns: 20_000, seed: 20_261_207 },
    );
  });
});
