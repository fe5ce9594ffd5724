import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from 'capi-render';
import { applyJsonPatch, JsonPatchError, type JsonPatchOperation } from '../../src/customize/patches/json-patch.js';
import { applyMergePatch } from '../../src/customize/patches/merge-patch.js';
import { readJsonPatchOperations } from '../../src/customize/patches/patch-document.js';
import { deepFreeze } from '../helpers/core-components.js';

const site = { providerRef: 'CoreProvider/ns/p', field: 'spec.patches[0].patch' };
const ops = (items: JsonValue[]): JsonPatchOperation[] => readJsonPatchOperations(deepFreeze(items), site);

// The worked examples of RFC 6902 appendix A, as our own table (plus evanphx's negative indices).
const jsonPatchCases: { name: string; doc: JsonValue; patch: JsonValue[]; expected: JsonValue | 'error' }[] = [
  {
    name: 'add an object member',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux' }],
    expected: { foo: 'bar', baz: 'qux' },
  },
  {
    name: 'add an array element',
    doc: { foo: ['bar', 'baz'] },
    patch: [{ op: 'add', path: '/foo/1', value: 'qux' }],
    expected: { foo: ['bar', 'qux', 'baz'] },
  },
  {
    name: 'remove a member',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'remove', path: '/baz' }],
    expected: { foo: 'bar' },
  },
  {
    name: 'remove an array element',
    doc: { foo: ['bar', 'qux', 'baz'] },
    patch: [{ op: 'remove', path: '/foo/1' }],
    expected: { foo: ['bar', 'baz'] },
  },
  {
    name: 'replace a value',
    doc: { baz: 'qux', foo: 'bar' },
    patch: [{ op: 'replace', path: '/baz', value: 'boo' }],
    expected: { baz: 'boo', foo: 'bar' },
  },
  {
    name: 'move a value',
    doc: { foo: { bar: 'baz', waldo: 'fred' }, qux: { corge: 'grault' } },
    patch: [{ op: 'move', from: '/foo/waldo', path: '/qux/thud' }],
    expected: { foo: { bar: 'baz' }, qux: { corge: 'grault', thud: 'fred' } },
  },
  {
    name: 'move an array element',
    doc: { foo: ['all', 'grass', 'cows', 'eat'] },
    patch: [{ op: 'move', from: '/foo/1', path: '/foo/3' }],
    expected: { foo: ['all', 'cows', 'eat', 'grass'] },
  },
  {
    name: 'test success',
    doc: { baz: 'qux', foo: ['a', 2, 'c'] },
    patch: [
      { op: 'test', path: '/baz', value: 'qux' },
      { op: 'test', path: '/foo/1', value: 2 },
    ],
    expected: { baz: 'qux', foo: ['a', 2, 'c'] },
  },
  { name: 'test failure', doc: { baz: 'qux' }, patch: [{ op: 'test', path: '/baz', value: 'bar' }], expected: 'error' },
  {
    name: 'add a nested member object',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/child', value: { grandchild: {} } }],
    expected: { foo: 'bar', child: { grandchild: {} } },
  },
  {
    name: 'unrecognised members are ignored',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz', value: 'qux', xyz: 123 }],
    expected: { foo: 'bar', baz: 'qux' },
  },
  {
    name: 'add to a nonexistent target',
    doc: { foo: 'bar' },
    patch: [{ op: 'add', path: '/baz/bat', value: 'qux' }],
    expected: 'error',
  },
  {
    name: '~1 and ~0 escapes',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: 10 }],
    expected: { '/': 9, '~1': 10 },
  },
  {
    name: 'a string is not a number',
    doc: { '/': 9, '~1': 10 },
    patch: [{ op: 'test', path: '/~01', value: '10' }],
    expected: 'error',
  },
  {
    name: 'add an array value',
    doc: { foo: ['bar'] },
    patch: [{ op: 'add', path: '/foo/-', value: ['abc', 'def'] }],
    expected: { foo: ['bar', ['abc', 'def']] },
  },
  {
    name: 'a failing later operation leaves nothing applied',
    doc: { a: 1 },
    patch: [
      { op: 'add', path: '/b', value: 2 },
      { op: 'remove', path: '/c' },
    ],
    expected: 'error',
  },
  {
    name: 'add at -1 appends (evanphx)',
    doc: { a: [1, 2] },
    patch: [{ op: 'add', path: '/a/-1', value: 3 }],
    expected: { a: [1, 2, 3] },
  },
  {
    name: 'remove -1 removes the last (evanphx)',
    doc: { a: [1, 2] },
    patch: [{ op: 'remove', path: '/a/-1' }],
    expected: { a: [1] },
  },
  {
    name: 'test: an existing null passes a test for null',
    doc: { a: null },
    patch: [{ op: 'test', path: '/a', value: null }],
    expected: { a: null },
  },
  {
    name: 'test: a whole-document comparison',
    doc: { a: [1] },
    patch: [{ op: 'test', path: '', value: { a: [1] } }],
    expected: { a: [1] },
  },
  {
    name: 'copy the whole document into itself',
    doc: { a: 1 },
    patch: [{ op: 'copy', from: '', path: '/b' }],
    expected: { a: 1, b: { a: 1 } },
  },
  {
    name: 'move from a path onto itself is a no-op',
    doc: { a: 1 },
    patch: [{ op: 'move', from: '/a', path: '/a' }],
    expected: { a: 1 },
  },
];

describe('applyJsonPatch (RFC 6902 appendix A and evanphx extensions)', () => {
  it.each(jsonPatchCases)('$name', ({ doc, patch, expected }) => {
    const frozen = deepFreeze(doc);
    if (expected === 'error') expect(() => applyJsonPatch(frozen, ops(patch))).toThrow(JsonPatchError);
    else expect(applyJsonPatch(frozen, ops(patch))).toEqual(expected);
  });

  it('reports the index of the failing operation', () => {
    try {
      applyJsonPatch(
        { a: 1 },
        ops([
          { op: 'add', path: '/b', value: 2 },
          { op: 'remove', path: '/c' },
        ]),
      );
    } catch (e) {
      expect(e).toBeInstanceOf(JsonPatchError);
      expect((e as JsonPatchError).opIndex).toBe(1);
      expect((e as JsonPatchError).operation.path).toBe('/c');
      return;
    }
    throw new Error('expected a JsonPatchError');
  });
});

// The examples of RFC 7396 appendix A whose target and patch are objects, plus the evanphx
// null-pruning detail.
const mergeCases: { name: string; target: JsonObject; patch: JsonObject; expected: JsonObject }[] = [
  { name: 'replace a member', target: { a: 'b' }, patch: { a: 'c' }, expected: { a: 'c' } },
  { name: 'add a member', target: { a: 'b' }, patch: { b: 'c' }, expected: { a: 'b', b: 'c' } },
  { name: 'null removes', target: { a: 'b' }, patch: { a: null }, expected: {} },
  { name: 'null removes only that member', target: { a: 'b', b: 'c' }, patch: { a: null }, expected: { b: 'c' } },
  { name: 'a scalar replaces a list', target: { a: ['b'] }, patch: { a: 'c' }, expected: { a: 'c' } },
  { name: 'a list replaces a scalar', target: { a: 'c' }, patch: { a: ['b'] }, expected: { a: ['b'] } },
  {
    name: 'nested merge with a delete',
    target: { a: { b: 'c' } },
    patch: { a: { b: 'd', c: null } },
    expected: { a: { b: 'd' } },
  },
  { name: 'a list replaces a list of objects', target: { a: [{ b: 'c' }] }, patch: { a: [1] }, expected: { a: [1] } },
  { name: 'existing nulls stay', target: { e: null }, patch: { a: 1 }, expected: { e: null, a: 1 } },
  {
    name: 'nulls inside a new object are dropped',
    target: {},
    patch: { a: { bb: { ccc: null } } },
    expected: { a: { bb: {} } },
  },
  {
    name: 'evanphx: nulls in objects inside a list are dropped when replacing a list',
    target: { a: [1] },
    patch: { a: [{ k: null, v: 1 }, null] },
    expected: { a: [{ v: 1 }, null] },
  },
  {
    name: 'evanphx: a list replacing an object is written as given',
    target: { a: { x: 1 } },
    patch: { a: [{ k: null }] },
    expected: { a: [{ k: null }] },
  },
];

describe('applyMergePatch (RFC 7396 appendix A)', () => {
  it.each(mergeCases)('$name', ({ target, patch, expected }) => {
    expect(applyMergePatch(deepFreeze(target), deepFreeze(patch))).toEqual(expected);
  });

  it('returns the same object when nothing changes', () => {
    const target = deepFreeze({ a: { b: [1, 2] }, c: 'd' });
    expect(applyMergePatch(target, deepFreeze({ a: { b: [1, 2] }, c: 'd', gone: null }))).toBe(target);
  });
});
