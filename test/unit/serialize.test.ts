import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { serializeObject } from '../../src/manifest/serialize.js';

describe('serializeObject', () => {
  it.each([
    ['on'],
    ['off'],
    ['yes'],
    ['no'],
    ['y'],
    ['n'],
    ['Y'],
    ['NO'],
    ['True'],
    ['~'],
    ['null'],
    ['0775'],
    ['1.10'],
    ['1e3'],
    ['2024-01-01'],
    ['12:30'],
    ['='],
    [''],
    ['0x1F'],
    ['.inf'],
  ])('quotes %j so a YAML 1.1 reader keeps it a string', (value) => {
    const text = serializeObject({ v: value });
    expect(text).not.toBe(`v: ${value}\n`);
    expect(jsYaml.load(text)).toEqual({ v: value });
  });

  it('puts apiVersion, kind, metadata first and sorts the rest', () => {
    const text = serializeObject({
      spec: { b: 1, a: [{ z: 1, x: 2 }] },
      metadata: { name: 'obj', labels: { b: '1', a: '2' } },
      kind: 'K',
      apiVersion: 'v1',
    });
    expect(text).toBe(
      "apiVersion: v1\nkind: K\nmetadata:\n  labels:\n    a: '2'\n    b: '1'\n  name: obj\nspec:\n  a:\n  - x: 2\n    z: 1\n  b: 1\n",
    );
  });

  it('never folds long lines and writes multi-line strings as block scalars', () => {
    const long = 'word '.repeat(100).trim();
    const text = serializeObject({ d: long, m: 'line one\nline two\n' });
    expect(text).toBe(`d: ${long}\nm: |\n  line one\n  line two\n`);
  });

  it('writes shared sub-objects in full instead of anchors', () => {
    const shared = { a: 1 };
    expect(serializeObject({ x: shared, y: shared })).toBe("x:\n  a: 1\n'y':\n  a: 1\n");
  });
});
