/**
 * manifest/shared-objects.ts: exactly equal objects become one object; anything that would
 * serialise or compare differently (key order, -0, another value) stays apart.
 */
import { describe, expect, it } from 'vitest';
import { createSharedObjects } from '../../src/manifest/shared-objects.js';
import type { KubeObject } from '../../src/manifest/object.js';

const cm = (data: Record<string, unknown>, name = 'a'): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'x' }, data }) as KubeObject;

describe('shared objects', () => {
  it('gives an equal object built separately the first one, and keeps a different one', () => {
    const shared = createSharedObjects();
    const [first] = shared.share([cm({ k: 'v' })]);
    const [again, other] = shared.share([cm({ k: 'v' }), cm({ k: 'w' })]);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(other!.data).toEqual({ k: 'w' });
  });

  it('keeps apart objects whose keys differ in order, or whose numbers differ in sign', () => {
    const shared = createSharedObjects();
    const [a] = shared.share([cm({ x: '1', y: '2' })]);
    const [b] = shared.share([cm({ y: '2', x: '1' })]);
    expect(b).not.toBe(a);
    const [zero] = shared.share([cm({ n: 0 })]);
    const [negative] = shared.share([cm({ n: -0 })]);
    expect(negative).not.toBe(zero);
  });

  it('never merges objects of different names, and forgets old variants beyond its bound', () => {
    const shared = createSharedObjects();
    const [a] = shared.share([cm({ k: 'v' }, 'a')]);
    const [b] = shared.share([cm({ k: 'v' }, 'b')]);
    expect(b).not.toBe(a);
    for (let i = 0; i < 10; i++) shared.share([cm({ k: String(i) }, 'a')]);
    const [later] = shared.share([cm({ k: 'v' }, 'a')]);
    expect(later).not.toBe(a);
    expect(later).toEqual(a);
  });
});
