/**
 * The bounded memo: never more than its limit, an entry in use is kept, and what falls out is what
 * was not used for longest (by generation).
 */
import { describe, expect, it } from 'vitest';
import { BoundedMap } from '../../src/bounded-map.js';

describe('BoundedMap', () => {
  it('answers what was set, null values included, and nothing for what was not', () => {
    const m = new BoundedMap<string, number | null>(8);
    m.set('a', 1);
    m.set('b', null);
    expect(m.get('a')).toBe(1);
    expect(m.get('b')).toBeNull();
    expect(m.get('c')).toBeUndefined();
    m.set('a', 2);
    expect(m.get('a')).toBe(2);
  });

  it.each([2, 3, 8, 64, 1000])('never holds more than its limit (%i)', (limit) => {
    const m = new BoundedMap<number, number>(limit);
    for (let i = 0; i < limit * 10; i++) {
      m.set(i, i);
      if (i % 3 === 0) m.get(i - limit);
      expect(m.size).toBeLessThanOrEqual(limit);
    }
  });

  it('keeps an entry for limit / 2 insertions after its last use, however many pass', () => {
    const m = new BoundedMap<string, number>(16);
    m.set('hot', 42);
    for (let i = 0; i < 10_000; i++) {
      m.set(`cold-${i}`, i);
      if (i % 8 === 7) expect(m.get('hot')).toBe(42);
    }
    expect(m.get('cold-0')).toBeUndefined();
    expect(m.get('cold-9999')).toBe(9999);
  });

  it('refuses a limit under 2', () => {
    expect(() => new BoundedMap(1)).toThrow(RangeError);
  });

  it('setting a key again leaves one entry for it', () => {
    const m = new BoundedMap<string, number>(8);
    m.set('a', 1);
    m.set('b', 2);
    m.set('c', 3);
    m.set('a', 4);
    expect(m.get('a')).toBe(4);
    expect(m.size).toBe(3);
  });
});
