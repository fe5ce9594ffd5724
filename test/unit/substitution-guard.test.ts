/**
 * findSubstitutionLiteral: a `${` in a string or a map key is found, at the first path in key
 * order, however deep; a `$` and a `{` that only meet across a key and its value, two list items or
 * two fields are not a marker.
 */
import { describe, expect, it } from 'vitest';
import { findSubstitutionLiteral } from '../../src/gitops/substitution-guard.js';
import type { JsonValue } from '../../src/manifest/object.js';

describe('findSubstitutionLiteral', () => {
  it.each<[string, JsonValue, (string | number)[] | undefined]>([
    ['a plain object', { a: 'b', n: 1, t: true, z: null, l: [1, 'x', { y: [] }] }, undefined],
    ['a string holding it', { a: 'echo ${HOME}' }, ['a']],
    ['a whole string', '${X}', []],
    ['a key holding it', { metadata: { annotations: { 'x/${a}': 'b' } } }, ['metadata', 'annotations', 'x/${a}']],
    ['a key ending in $ before an object value', { a$: { b: 1 } }, undefined],
    ['a key ending in $ before a value starting with {', { a$: '{b}' }, undefined],
    ['a value ending in $ before the next key', { a: 'x$', '{b': 1 }, undefined],
    ['list items that meet across the comma', ['x$', '{y'], undefined],
    ['a $ before a nested list', { a: ['$', ['{']] }, undefined],
    ['deep in nested lists', { a: [[1, [null, 'ok', ['--b=${B}']]]] }, ['a', 0, 1, 2, 0]],
    ['the first in key order', { a: [{ b: 'no', c: '${one}' }], d: '${two}' }, ['a', 0, 'c']],
    ['brace-less forms', { a: 'use $IPv6 or $(VAR) or $$(X) or $ {x} or {$x}' }, undefined],
    ['beside unicode and escapes', { ключ: 'é\n"\\\t😀${Ω}' }, ['ключ']],
    ['a lone surrogate before it', { a: '\ud800${x}' }, ['a']],
    ['numbers and booleans only', { a: 1.5e300, b: [-0, false] }, undefined],
    ['empty containers', { a: {}, b: [], c: '' }, undefined],
  ])('%s', (_name, value, path) => {
    expect(findSubstitutionLiteral(value)).toEqual(path);
  });
});
