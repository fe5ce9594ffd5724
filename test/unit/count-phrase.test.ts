/**
 * Count phrases: the helper every summary and tally words its counts with, and the tallies of the
 * diff and the report built on it, for the counts where English changes number (0, 1, 2).
 */
import { describe, expect, it } from 'vitest';
import { chooseByCount, formatCount } from '../../src/count-phrase.js';
import type { Finding } from 'capi-render';
import { countFindings } from '../../src/diff/util-format.js';

describe('formatCount', () => {
  const cases: { n: number; noun: string; plural?: string; expected: string }[] = [
    { n: 0, noun: 'environment', expected: '0 environments' },
    { n: 1, noun: 'environment', expected: '1 environment' },
    { n: 2, noun: 'environment', expected: '2 environments' },
    { n: 1, noun: 'info finding', expected: '1 info finding' },
    { n: 20, noun: 'info finding', expected: '20 info findings' },
    { n: 1, noun: 'object change is', plural: 'object changes are', expected: '1 object change is' },
    { n: 3, noun: 'object change is', plural: 'object changes are', expected: '3 object changes are' },
    { n: 0, noun: 'object change is', plural: 'object changes are', expected: '0 object changes are' },
  ];
  it.each(cases)('$n $noun → $expected', ({ n, noun, plural, expected }) => {
    expect(formatCount(n, noun, plural)).toBe(expected);
  });
});

describe('chooseByCount', () => {
  it.each([
    [0, 'their'],
    [1, 'its'],
    [2, 'their'],
    [100, 'their'],
  ] as const)('%i → %s', (n, expected) => {
    expect(chooseByCount(n, 'its', 'their')).toBe(expected);
  });
});

describe('countFindings: the tally of the diff, the pull request and the commit message', () => {
  const finding = (severity: Finding['severity']): Finding => ({
    severity,
    code: 'image-changed',
    env: 'prod',
    component: 'cluster-api',
    message: 'm',
  });
  it.each([
    { severities: [] as Finding['severity'][], expected: '0 dangers, 0 warnings, 0 info' },
    { severities: ['danger', 'warning', 'info'] as Finding['severity'][], expected: '1 danger, 1 warning, 1 info' },
    {
      severities: ['danger', 'danger', 'warning', 'warning', 'info', 'info'] as Finding['severity'][],
      expected: '2 dangers, 2 warnings, 2 info',
    },
  ])('$expected', ({ severities, expected }) => {
    expect(countFindings(severities.map(finding))).toBe(expected);
  });
});
