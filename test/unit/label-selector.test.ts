import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { parseLabelSelector } from '../../src/customize/patches/label-selector.js';

// Cases follow apimachinery's labels.Parse / Requirement.Matches behaviour (k8s.io/apimachinery
// v0.34 pkg/labels/selector.go), written as our own table.
const matchCases: { name: string; selector: string; labels: Record<string, string>; expected: boolean }[] = [
  { name: 'empty selector matches everything', selector: '', labels: {}, expected: true },
  { name: 'whitespace-only selector matches everything', selector: '  \t', labels: { a: 'b' }, expected: true },
  { name: '= equal', selector: 'a=b', labels: { a: 'b' }, expected: true },
  { name: '= different', selector: 'a=b', labels: { a: 'c' }, expected: false },
  { name: '= missing', selector: 'a=b', labels: {}, expected: false },
  { name: '== equal', selector: 'a==b', labels: { a: 'b' }, expected: true },
  { name: '!= different', selector: 'a!=b', labels: { a: 'c' }, expected: true },
  { name: '!= missing matches', selector: 'a!=b', labels: {}, expected: true },
  { name: '!= equal', selector: 'a!=b', labels: { a: 'b' }, expected: false },
  { name: 'in: member', selector: 'env in (prod,staging)', labels: { env: 'staging' }, expected: true },
  { name: 'in: not a member', selector: 'env in (prod,staging)', labels: { env: 'dev' }, expected: false },
  { name: 'in: missing', selector: 'env in (prod)', labels: {}, expected: false },
  { name: 'notin: member', selector: 'env notin (prod)', labels: { env: 'prod' }, expected: false },
  { name: 'notin: missing matches', selector: 'env notin (prod)', labels: {}, expected: true },
  { name: 'exists', selector: 'a', labels: { a: '' }, expected: true },
  { name: 'exists: missing', selector: 'a', labels: { b: 'x' }, expected: false },
  { name: '!key: missing', selector: '!a', labels: { b: 'x' }, expected: true },
  { name: '!key: present', selector: '!a', labels: { a: 'x' }, expected: false },
  { name: 'in () holds only the empty value', selector: 'a in ()', labels: { a: '' }, expected: true },
  { name: 'in () does not hold others', selector: 'a in ()', labels: { a: 'x' }, expected: false },
  { name: 'an empty value between commas', selector: 'a in (x,,y)', labels: { a: '' }, expected: true },
  { name: 'a = with no value means the empty value', selector: 'a=', labels: { a: '' }, expected: true },
  { name: 'a = with no value before a comma', selector: 'a=,b', labels: { a: '', b: '1' }, expected: true },
  { name: 'all requirements must hold', selector: 'a=1,b=2', labels: { a: '1', b: '3' }, expected: false },
  {
    name: 'spaces around operators and commas',
    selector: ' a = 1 , b in ( 2 , 3 ) ',
    labels: { a: '1', b: '3' },
    expected: true,
  },
  {
    name: 'prefixed key',
    selector: 'cluster.x-k8s.io/provider=cluster-api',
    labels: { 'cluster.x-k8s.io/provider': 'cluster-api' },
    expected: true,
  },
  { name: '> integer', selector: 'n>5', labels: { n: '6' }, expected: true },
  { name: '> equal is false', selector: 'n>5', labels: { n: '5' }, expected: false },
  {
    name: '< integer (leading zeros parse, as Go ParseInt does)',
    selector: 'n<5',
    labels: { n: '04' },
    expected: true,
  },
  { name: '> a non-integer label is false', selector: 'n>5', labels: { n: 'six' }, expected: false },
  { name: '> missing is false', selector: 'n>5', labels: {}, expected: false },
  {
    name: 'keywords are values in value position',
    selector: 'in in (in,notin)',
    labels: { in: 'notin' },
    expected: true,
  },
  { name: 'a keyword as an = value', selector: 'a=in', labels: { a: 'in' }, expected: true },
];

describe('parseLabelSelector matching', () => {
  it.each(matchCases)('$name: $selector', ({ selector, labels, expected }) => {
    expect(parseLabelSelector(selector).matches(labels)).toBe(expected);
  });
});

describe('parseLabelSelector requirements', () => {
  it('sorts requirements by key and values, dropping duplicate values', () => {
    expect(parseLabelSelector('z=1,!b,a in (y,x,y),m').requirements).toEqual([
      { key: 'a', operator: 'in', values: ['x', 'y'] },
      { key: 'b', operator: '!', values: [] },
      { key: 'm', operator: 'exists', values: [] },
      { key: 'z', operator: '=', values: ['1'] },
    ]);
  });

  it('keeps the text', () => {
    expect(parseLabelSelector('a=b').text).toBe('a=b');
  });
});

const errorCases: { name: string; selector: string }[] = [
  { name: 'in without parentheses', selector: 'a in b' },
  { name: 'unclosed value list', selector: 'a in (x' },
  { name: 'two values without a comma', selector: 'a in (x y)' },
  { name: 'trailing comma', selector: 'a=b,' },
  { name: 'leading comma', selector: ',a=b' },
  { name: 'two words', selector: 'a b' },
  { name: '!key with an operator', selector: '!a=b' },
  { name: '!! twice', selector: '!!a' },
  { name: 'a second =', selector: 'a=b=c' },
  { name: 'operator first', selector: '=a' },
  { name: 'unknown operator', selector: 'a<>b' },
  { name: '> needs an integer', selector: 'n>x' },
  { name: '> with no value', selector: 'n>' },
  { name: '> with a sign is not a label value', selector: 'n>-1' },
  { name: 'key with two slashes', selector: 'a/b/c=d' },
  { name: 'key with an upper-case prefix', selector: 'Example.com/a=b' },
  { name: 'key with an empty prefix', selector: '/a=b' },
  { name: 'key name too long', selector: `${'k'.repeat(64)}=v` },
  { name: 'key name ends with a dash', selector: 'a-=b' },
  { name: 'value too long', selector: `a=${'v'.repeat(64)}` },
  { name: 'value with a bad character', selector: 'a=b@c' },
  { name: 'value in a list with a bad character', selector: 'a in (ok,no!)' },
];

describe('parseLabelSelector errors', () => {
  it.each(errorCases)('$name: $selector', ({ selector }) => {
    let caught: unknown;
    try {
      parseLabelSelector(selector, { object: 'CoreProvider/ns/p', field: 'spec.patches[0].target.labelSelector' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SpecError);
    expect((caught as SpecError).code).toBe('patch');
    expect((caught as SpecError).diagnostics[0]).toMatchObject({
      object: 'CoreProvider/ns/p',
      field: 'spec.patches[0].target.labelSelector',
    });
  });

  it('accepts the longest valid key and value', () => {
    const key = `${'p'.repeat(253)}/${'k'.repeat(63)}`;
    expect(parseLabelSelector(`${key}=${'v'.repeat(63)}`).matches({ [key]: 'v'.repeat(63) })).toBe(true);
  });
});
