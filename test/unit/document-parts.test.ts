/**
 * Parsing a substituted template part by part gives exactly what clusterctl's whole-text path gives:
 * the same resources with the same document numbers, the same errors; constant parts
 * are parsed once for every environment; and only parts no secret value reached are cached.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseManifests, type ParsedPart } from '../../src/manifest/parse.js';
import type { ParseCache } from '../../src/manifest/parse-cache.js';
import { compileTemplate } from '../../src/process/variables/index.js';
import { CACHED_PART_MIN_LENGTH, createDocumentParser } from '../../src/render/document-parser.js';
import { FIXTURES, fixtureText } from '../helpers/fixtures.js';

const SOURCE = 'test artifact';

/** Parses `text` substituted with `values` both ways; returns the part-wise result after checking it equals the whole-text one. */
function bothWays(text: string, values: Record<string, string> = {}, parser = createDocumentParser(undefined)) {
  const template = compileTemplate(text, SOURCE);
  const lookup = (name: string) => values[name];
  const whole = parseManifests(template.substitute(lookup).text, SOURCE);
  const { texts } = template.substituteParts(lookup);
  const parts = parser.parseParts(
    text,
    template.parts.map((p, i) => ({ text: texts[i]!, constant: p.constant !== undefined, secret: false })),
    SOURCE,
  );
  expect(parts).toEqual(whole);
  return { template, parts };
}

/** Every components file among the fixtures (gzip'd or not), relative to test/fixtures. */
function componentFixtures(): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(path.join(FIXTURES, dir), { withFileTypes: true })) {
      const rel = `${dir}/${e.name}`;
      if (e.isDirectory()) walk(rel);
      else if (/components[^/]*\.yaml(\.gz)?$/.test(e.name)) out.push(rel.replace(/\.gz$/, ''));
    }
  };
  for (const dir of ['repository', 'derived', 'repository-fakes']) walk(dir);
  return out.sort();
}

/** What `fn` throws — its class and diagnostics — or undefined. */
function errorOf(fn: () => unknown): { name: string; diagnostics: unknown } | undefined {
  try {
    fn();
  } catch (e) {
    return { name: (e as Error).name, diagnostics: (e as { diagnostics?: unknown }).diagnostics };
  }
  return undefined;
}

const doc = (kind: string, name: string, extra = '') =>
  `apiVersion: v1\nkind: ${kind}\nmetadata:\n  name: ${name}\n${extra}`;

describe('cutting a template into document parts', () => {
  it.each([
    {
      name: 'plain documents',
      text: `${doc('A', 'a')}---\n${doc('B', 'b')}---\n${doc('C', 'c')}`,
      parts: 3,
      constant: [true, true, true],
    },
    {
      name: 'a document with a variable',
      text: `${doc('A', 'a')}---\n${doc('B', 'b', 'data:\n  x: ${X:=1}\n')}---\n${doc('C', 'c')}`,
      parts: 3,
      constant: [true, false, true],
    },
    {
      name: 'comments before the first separator join the first document',
      text: `# header\n---\n${doc('A', 'a')}---\n${doc('B', 'b')}`,
      parts: 2,
      constant: [true, true],
    },
    {
      name: 'a leading separator',
      text: `---\n${doc('A', 'a')}---\n${doc('B', 'b')}`,
      parts: 2,
      constant: [true, true],
    },
    {
      name: 'CRLF line ends',
      text: `${doc('A', 'a').replace(/\n/g, '\r\n')}---\r\n${doc('B', 'b').replace(/\n/g, '\r\n')}`,
      parts: 2,
      constant: [true, true],
    },
    {
      name: 'a directive: not cut',
      text: `%YAML 1.2\n---\n${doc('A', 'a')}---\n${doc('B', 'b')}`,
      parts: 1,
      constant: [true],
    },
    {
      name: 'a document-end marker: not cut',
      text: `${doc('A', 'a')}...\n---\n${doc('B', 'b')}`,
      parts: 1,
      constant: [true],
    },
    {
      name: 'a separator inside a default is not a cut',
      text: `${doc('B', 'b')}---\n${doc('A', 'a', 'data:\n  x: ${X:=1\n---\napiVersion: v1\nkind: D\nmetadata:\n  name: d}\n')}`,
      parts: 2,
      constant: [true, false],
    },
    {
      name: 'an escaped reference is literal text',
      text: `${doc('A', 'a', 'data:\n  x: $${X}\n')}---\n${doc('B', 'b')}`,
      parts: 2,
      constant: [true, true],
    },
    {
      name: 'empty documents keep their numbers',
      text: `${doc('A', 'a')}---\n---\n${doc('B', 'b', 'data:\n  x: ${X:=1}\n')}---\n`,
      parts: 4,
      constant: [true, true, false, true],
    },
  ])('$name', ({ text, parts, constant }) => {
    const { template } = bothWays(text);
    expect(template.parts).toHaveLength(parts);
    expect(template.parts.map((p) => p.constant !== undefined)).toEqual(constant);
  });

  it.each([
    ['a value that adds a document', { X: '1\n---\napiVersion: v1\nkind: Extra\nmetadata:\n  name: extra' }],
    [
      'a value that adds a directive',
      { X: '1\n%YAML 1.2\n---\napiVersion: v1\nkind: Extra\nmetadata:\n  name: extra' },
    ],
    ['a value that ends the document', { X: '1\n...' }],
    ['a value that opens a flow mapping', { X: '{a: 1,' }],
  ])('%s: the same objects, or the same error, as the whole text', (_name, values) => {
    const text = `${doc('A', 'a')}---\n${doc('B', 'b', 'data:\n  x: ${X}\n')}---\n${doc('C', 'c')}`;
    const template = compileTemplate(text, SOURCE);
    const lookup = (name: string) => (values as Record<string, string>)[name];
    const run = (parts: boolean) => () =>
      parts
        ? createDocumentParser(undefined).parseParts(
            text,
            template.parts.map((p, i) => ({
              text: template.substituteParts(lookup).texts[i]!,
              constant: p.constant !== undefined,
              secret: false,
            })),
            SOURCE,
          )
        : parseManifests(template.substitute(lookup).text, SOURCE);
    const whole = errorOf(run(false));
    if (whole) expect(errorOf(run(true))).toEqual(whole);
    else expect(run(true)()).toEqual(run(false)());
  });

  it.each([
    ['a syntax error in a later document', `${doc('A', 'a')}---\napiVersion: v1\nkind: B\nmetadata: {name: b\n`],
    ['a document that is not an object', `${doc('A', 'a')}---\n- a list\n`],
    ['an object without a name', `${doc('A', 'a')}---\napiVersion: v1\nkind: B\n`],
  ])('%s: the error of the whole text (document number and line)', (_name, text) => {
    const template = compileTemplate(text, SOURCE);
    const parts = () =>
      createDocumentParser(undefined).parseParts(
        text,
        template.parts.map((p) => ({ text: p.constant!, constant: true, secret: false })),
        SOURCE,
      );
    expect(errorOf(parts)).toEqual(errorOf(() => parseManifests(text, SOURCE)));
    expect(errorOf(parts)).toBeDefined();
  });

  it('every components file among the fixtures parses to the same objects part by part', () => {
    const files = componentFixtures();
    expect(files.length).toBeGreaterThan(25);
    for (const file of files) {
      const text = fixtureText(file);
      // Every variable set: the parts with variables
      // are parsed after substitution, the others as published.
      const values = Object.fromEntries(compileTemplate(text, file).names.map((n) => [n, `v-${n.toLowerCase()}`]));
      const { template } = bothWays(text, values);
      // The CRDs (most of the bytes) reference no variable: they are the parts every environment shares.
      if (text.includes('\nkind: CustomResourceDefinition'))
        expect(
          template.parts.some((p) => p.constant?.includes('kind: CustomResourceDefinition')),
          file,
        ).toBe(true);
    }
  });

  it('constant parts are parsed once for every environment: the same objects, whatever the values', () => {
    const text = fixtureText('repository/cluster-api/v1.12.0/core-components.yaml');
    const parser = createDocumentParser(undefined);
    const a = bothWays(text, { CAPI_DIAGNOSTICS_ADDRESS: ':8001' }, parser).parts;
    const b = bothWays(text, { CAPI_DIAGNOSTICS_ADDRESS: ':8002' }, parser).parts;
    const crd = (list: typeof a) => list.find((r) => r.object.kind === 'CustomResourceDefinition')!.object;
    const deployment = (list: typeof a) => list.find((r) => r.object.kind === 'Deployment')!.object;
    expect(crd(a)).toBe(crd(b));
    expect(deployment(a)).not.toBe(deployment(b));
  });
});

describe('what the parse cache gets', () => {
  function recordingCache() {
    const events: string[] = [];
    const cache: ParseCache = {
      get: () => undefined,
      put: () => void events.push('put text'),
      delete: () => void events.push('delete text'),
      getParts: () => undefined,
      putParts: (_key: string, parts: readonly (ParsedPart | null)[]) =>
        void events.push(`put constant parts ${parts.filter(Boolean).length}`),
      getPart: () => undefined,
      putPart: () => void events.push('put part'),
      deletePart: () => void events.push('delete part'),
    };
    return { cache, events };
  }

  const big = 'p'.repeat(CACHED_PART_MIN_LENGTH);
  const text = `${doc('A', 'a')}---\n${doc('Secret', 'b', `stringData:\n  token: \${TOKEN}\n  padding: ${big}\n`)}---\n${doc('C', 'c', 'data:\n  small: ${SMALL}\n')}`;

  it.each([
    { secret: false, expected: ['put constant parts 1', 'put part'] },
    { secret: true, expected: ['put constant parts 1', 'delete part'] },
  ])('a large part with a secret value: $secret', ({ secret, expected }) => {
    const { cache, events } = recordingCache();
    const template = compileTemplate(text, SOURCE);
    const { texts } = template.substituteParts((n) => (n === 'TOKEN' ? 'SECRET-VALUE' : 'small'));
    createDocumentParser(cache).parseParts(
      text,
      template.parts.map((p, i) => ({
        text: texts[i]!,
        constant: p.constant !== undefined,
        secret: secret && p.names.includes('TOKEN'),
      })),
      SOURCE,
    );
    // The small substituted part is cheaper to parse than to read back: never cached.
    expect(events).toEqual(expected);
  });
});
