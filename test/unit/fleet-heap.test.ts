/**
 * cli/fleet-heap.ts: the heap is held closer to what is live once, when a build has rendered a
 * fleet's worth of environments, and never for a small build.
 */
import { describe, expect, it } from 'vitest';
import { fleetHeapTuner } from '../../src/cli/fleet-heap.js';

describe('the heap of a fleet build', () => {
  it.each([
    [1, []],
    [199, []],
    [200, ['--heap-growing-percent=30']],
    [10_000, ['--heap-growing-percent=30']],
  ])('after %i environments, V8 was given %j', (environments, expected) => {
    const given: string[] = [];
    const rendered = fleetHeapTuner((flags) => given.push(flags));
    for (let i = 0; i < environments; i++) rendered();
    expect(given).toEqual(expected);
  });
});
