import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject } from 'capi-render';
import { checkStringMaps } from '../../src/process/string-maps.js';

const ctx = { providerRef: 'InfrastructureProvider/capm3-system/metal3', file: 'providers/metal3.yaml', line: 1 };
const configMap = (data: JsonObject): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'fast-track', namespace: 'capm3-system' },
  data,
});

describe('checkStringMaps', () => {
  it('passes strings and nulls (null decodes to "")', () => {
    expect(
      checkStringMaps(
        [
          configMap({ A: 'false', B: null }),
          { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', labels: { a: 'b' } }, stringData: { k: 'v' } },
        ],
        ctx,
      ),
    ).toEqual([]);
  });

  it.each([
    {
      name: 'a boolean in ConfigMap data',
      object: configMap({ CAPM3_FAST_TRACK: true }),
      field: 'data.CAPM3_FAST_TRACK',
      type: 'a boolean',
    },
    {
      name: 'a number in an annotation',
      object: {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: 'm', namespace: 'n', annotations: { 'prometheus.io/port': 8080 } },
      },
      field: 'metadata.annotations.prometheus.io/port',
      type: 'a number',
    },
    {
      name: 'a map in a label',
      object: { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', labels: { a: { b: 'c' } } } },
      field: 'metadata.labels.a',
      type: 'a map',
    },
    {
      name: 'a list in Secret stringData',
      object: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, stringData: { k: ['v'] } },
      field: 'stringData.k',
      type: 'a list',
    },
  ])('reports $name, naming the object and the field but not the value', ({ object, field, type }) => {
    const [d, ...rest] = checkStringMaps([object as KubeObject], ctx);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({
      code: 'components-invalid',
      severity: 'error',
      field,
      file: 'providers/metal3.yaml',
      line: 1,
    });
    expect(d!.message).toContain(`${field} is ${type}, not a string`);
    expect(d!.message).not.toMatch(/true|8080|"c"|\["v"\]/);
  });

  it('reports every bad value at once; data of kinds other than core ConfigMap and Secret is not a string map', () => {
    const other = { apiVersion: 'example.com/v1', kind: 'ConfigMap', metadata: { name: 'x' }, data: { n: 1 } };
    expect(checkStringMaps([configMap({ A: true, B: 2 }), other], ctx).map((d) => d.field)).toEqual([
      'data.A',
      'data.B',
    ]);
  });
});
