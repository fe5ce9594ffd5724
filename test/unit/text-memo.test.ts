/**
 * The serializer's memory: texts are exactly what the emitter makes, the JSON text is computed only
 * once an object of the same signature has been seen (so one environment computes none), and an
 * equal object of a later environment still reuses the text.
 */
import { describe, expect, it } from 'vitest';
import { createTextMemo } from '../../src/manifest/text-memo.js';
import { createCachedSerializer, serializeObject } from '../../src/manifest/serialize.js';
import { CERT_MANAGER, CORE_COMPONENTS, fixtureObjects } from '../helpers/fixtures.js';

/** A memo whose texts are JSON with a tag, counting what it makes and what it keys by content. */
function countingMemo() {
  const counts = { made: 0, json: 0 };
  const memo = createTextMemo({
    make: (value) => {
      counts.made++;
      return `text ${JSON.stringify(value)}`;
    },
    json: (value) => {
      counts.json++;
      return JSON.stringify(value);
    },
  });
  return { memo, counts };
}

/** An environment's objects, as fresh objects each time (a render of its own). */
function environment(replicas: number): object[] {
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'capi-system' } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'manager', namespace: 'capi-system' } },
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'manager', namespace: 'capi-system' },
      spec: { replicas },
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'manager', namespace: 'other' }, data: { a: 'b' } },
    // No identity of a Kubernetes object: these share one signature.
    { note: 'no kind' },
    [1, 2],
  ];
}

describe('createTextMemo', () => {
  it('computes no JSON for one environment, whose objects all differ', () => {
    const { memo, counts } = countingMemo();
    for (const value of environment(1)) expect(memo.textOf(value)).toBe(`text ${JSON.stringify(value)}`);
    // The two objects without identity share a signature: the second is the one content lookup.
    expect(counts).toEqual({ made: 6, json: 2 });
  });

  it('reuses the text of an equal object of a later environment, by identity first', () => {
    const { memo, counts } = countingMemo();
    const first = environment(1);
    first.forEach((value) => memo.textOf(value));
    const made = counts.made;
    first.forEach((value) => memo.textOf(value));
    expect(counts.made).toBe(made);

    const second = environment(2);
    const texts = second.map((value) => memo.textOf(value));
    expect(texts).toEqual(second.map((value) => `text ${JSON.stringify(value)}`));
    // Only the Deployment differs (its replicas); every other object's text was reused.
    expect(counts.made).toBe(made + 1);

    const third = environment(2);
    third.forEach((value) => memo.textOf(value));
    expect(counts.made).toBe(made + 1);
  });

  it('keeps a first object long enough for the next environment of a large fleet', () => {
    const { memo, counts } = countingMemo();
    const objects = (env: number) =>
      Array.from({ length: 600 }, (_, i) => ({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `cm-${i}`, namespace: 'ns' },
        data: { env: i % 100 === 0 ? String(env) : 'same' },
      }));
    for (const value of objects(0)) memo.textOf(value);
    expect(counts).toEqual({ made: 600, json: 0 });
    for (const value of objects(1)) memo.textOf(value);
    expect(counts.made).toBe(606);
  });
});

describe('createCachedSerializer', () => {
  it('writes exactly serializeObject, for new, repeated and equal objects', () => {
    const docs = [...fixtureObjects(CORE_COMPONENTS), ...fixtureObjects(CERT_MANAGER)];
    expect(docs.length).toBeGreaterThan(10);
    const serializer = createCachedSerializer();
    const copies = docs.map((d) => structuredClone(d));
    for (const doc of [...docs, ...docs, ...copies]) expect(serializer.serialize(doc)).toBe(serializeObject(doc));
  });
});
