import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { JsonObject } from 'capi-render';
import {
  ADDITIONAL_MANIFESTS_DEVIATIONS,
  appendAdditionalManifests,
} from '../../src/customize/additional-manifests.js';
import { deepFreeze } from '../helpers/core-components.js';

const PROVIDER = 'CoreProvider/capi-system/cluster-api';
const configMap = (extra: JsonObject): JsonObject =>
  deepFreeze({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'additional-manifests', namespace: 'capi-system' },
    ...extra,
  });

describe('appendAdditionalManifests', () => {
  it.each([
    {
      name: 'joins with a newline, ---, newline (as the operator does)',
      components: 'kind: A\n',
      manifests: 'kind: B\n',
      expected: 'kind: A\n\n---\nkind: B\n',
    },
    {
      name: 'keeps the text exactly when it has no trailing newline',
      components: 'kind: A',
      manifests: 'kind: B',
      expected: 'kind: A\n---\nkind: B',
    },
    {
      name: 'several documents in the ConfigMap',
      components: 'kind: A\n',
      manifests: '---\nkind: B\n---\nkind: C\n',
      expected: 'kind: A\n\n---\n---\nkind: B\n---\nkind: C\n',
    },
    { name: 'an empty data.manifests appends nothing', components: 'kind: A\n', manifests: '', expected: 'kind: A\n' },
  ])('$name', ({ components, manifests, expected }) => {
    expect(appendAdditionalManifests(components, configMap({ data: { manifests } }), PROVIDER)).toBe(expected);
  });

  it.each([
    { name: 'no data', cm: configMap({}) },
    { name: 'data without manifests (a misspelt key)', cm: configMap({ data: { manifest: 'kind: B\n' } }) },
    { name: 'manifests under binaryData', cm: configMap({ binaryData: { manifests: 'a2luZDogQgo=' } }) },
    { name: 'manifests not a string', cm: configMap({ data: { manifests: 5 } }) },
    {
      name: 'not a ConfigMap',
      cm: deepFreeze({
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'x' },
        data: { manifests: 'kind: B' },
      }),
    },
  ])('$name is an additional-manifests error', ({ cm }) => {
    let caught: unknown;
    try {
      appendAdditionalManifests('kind: A\n', cm, PROVIDER);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SpecError);
    expect((caught as SpecError).code).toBe('additional-manifests');
    expect((caught as SpecError).diagnostics[0]).toMatchObject({ object: PROVIDER, field: 'spec.additionalManifests' });
    expect((caught as SpecError).diagnostics[0]?.hint).toBeTruthy();
  });

  it('lists its deviation', () => {
    expect(ADDITIONAL_MANIFESTS_DEVIATIONS.map((d) => d.field)).toEqual(['spec.additionalManifests']);
  });
});
