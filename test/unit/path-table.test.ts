/**
 * output/path-table.ts and output/mark-interning.ts: the compact path tables behave as a Set and a
 * Map of whole paths would (same members, same sorted order, sizes through adds and deletes), and
 * interning gives one copy of equal names and marks.
 */
import { describe, expect, it } from 'vitest';
import { PathMap, PathNames, PathSet } from '../../src/output/path-table.js';
import { createInterning } from '../../src/output/mark-interning.js';
import type { FileMark } from '../../src/output/fingerprint-record.js';

/** Names whose order depends on how `/` compares with its neighbours ('.' below it, '0' above). */
const TRICKY = [
  'env-1/a.yaml',
  'env-1.x/a.yaml',
  'env-1',
  'env-10/a.yaml',
  'env-1/b/c.yaml',
  'env-1-/z.yaml',
  '.capi-render-owned',
  'kustomization.yaml',
  'env-2/a.yaml',
  'é/x.yaml',
  'Z/x.yaml',
  '/leading.yaml',
  'a/b/c/d.yaml',
];

describe('PathSet', () => {
  it('sorts exactly as Array.prototype.sort sorts the whole paths', () => {
    expect(new PathSet(TRICKY).sorted()).toEqual([...TRICKY].sort());
    // Every order of insertion gives the same list.
    expect(new PathSet([...TRICKY].reverse()).sorted()).toEqual([...TRICKY].sort());
  });

  it('has, adds, deletes and counts as a Set of the same paths', () => {
    const set = new PathSet(TRICKY);
    const plain = new Set(TRICKY);
    for (const [op, path] of [
      ['add', 'env-1/a.yaml'],
      ['add', 'env-3/new.yaml'],
      ['delete', 'env-1'],
      ['delete', 'absent/x.yaml'],
      ['delete', 'env-2/a.yaml'],
      ['add', 'env-2/a.yaml'],
    ] as const) {
      if (op === 'add') {
        set.add(path);
        plain.add(path);
      } else expect(set.delete(path)).toBe(plain.delete(path));
      expect(set.size).toBe(plain.size);
      expect(new Set(set)).toEqual(plain);
      for (const p of [...TRICKY, 'env-3/new.yaml', 'env-1/a', 'env-1/']) expect(set.has(p)).toBe(plain.has(p));
    }
  });

  it('gives a name cut from a larger text and the same name built anew one copy', () => {
    const names = new PathNames();
    const big = `${'x'.repeat(1000)}cert-manager/clusterrole-cert-manager-controller.yaml`;
    const cut = big.slice(1000);
    const kept = names.intern(cut);
    expect(kept).toBe(cut);
    expect(names.intern(`cert-manager/${'clusterrole-cert-manager-controller.yaml'}`)).toBe(kept);
  });
});

describe('PathMap', () => {
  it('gets what was set under the whole path and lists the entries of a Map', () => {
    const map = new PathMap<string>();
    const plain = new Map<string, string>();
    TRICKY.forEach((p, i) => {
      map.set(p, `v${i}`);
      plain.set(p, `v${i}`);
    });
    map.set('env-1/a.yaml', 'again');
    plain.set('env-1/a.yaml', 'again');
    expect(map.size).toBe(plain.size);
    expect(new Map(map.entries())).toEqual(plain);
    for (const p of TRICKY) expect(map.get(p)).toBe(plain.get(p));
    expect(map.get('env-1/zzz')).toBeUndefined();
  });
});

describe('mark interning', () => {
  it('gives equal marks one object and keeps different times or contents apart', () => {
    const interning = createInterning();
    const sha = 'a'.repeat(64);
    const first: FileMark = [10, 1.5, 2.5, sha, 7];
    expect(interning.mark([10, 1.5, 2.5, sha, 7])).toBe(interning.mark(first));
    expect(interning.mark([10, 1.5, 3.5, sha, 7])).not.toBe(interning.mark(first));
    expect(interning.mark([10, 1.5, 2.5, 'b'.repeat(64), 7])).not.toBe(interning.mark(first));
    expect(interning.mark([10, 1.5, 2.5, sha, 8])).not.toBe(interning.mark(first));
    expect(interning.name('env-0001/x')).toBe(interning.name(`env-0001/${'x'}`));
  });
});
