/**
 * Secret references with no value, piece by piece: the lookup's precedence and stand-in, the
 * operators that transform a value, and where the guard says a stand-in needs the real value.
 */
import { describe, expect, it } from 'vitest';
import type { InputObject } from '../../src/declarations/inputs.js';
import type { KubeObject, ProviderCR } from 'capi-render';
import { variableLookup } from '../../src/process/variable-values/precedence.js';
import { unsetValuesOutside } from '../../src/secrets/secret-guard.js';
import type { SecretMode } from '../../src/secrets/secrets-config.js';
import { holdsUnsetMarker, unsetMarker } from '../../src/secrets/unset-marker.js';
import { compileTemplate } from '../../src/process/variables/index.js';

const cr = (configSecret = false): ProviderCR => ({
  kind: 'InfrastructureProvider',
  name: 'w',
  namespace: 'w-system',
  spec: configSecret ? { configSecret: { name: 'vars' } } : {},
  file: 'providers/w.yaml',
  line: 1,
});
const secret = (stringData: Record<string, unknown>, references: Record<string, string | undefined>): InputObject => ({
  object: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'vars', namespace: 'w-system' },
    stringData,
  } as InputObject['object'],
  file: 'providers/vars.yaml',
  locate: () => ({ line: 7, col: 3 }),
  references: new Map(Object.entries(references)),
});

describe('variable lookup with unset secret references', () => {
  it.each([
    {
      name: 'set fromEnv',
      env: { E: 'value' },
      expected: { value: 'value', unset: undefined, reference: 'environment variable E' },
    },
    {
      name: 'unset fromEnv, a configSecret literal below: the literal',
      env: {},
      secretLiteral: 'literal',
      expected: { value: 'literal', unset: undefined, reference: undefined },
    },
    {
      name: 'unset fromEnv, nothing below: the stand-in, for the overlay reference',
      env: {},
      expected: { value: unsetMarker('V'), unset: true, reference: 'environment variable E' },
    },
    { name: 'unset fromEnv listed in notSecret: unset', env: {}, notSecret: ['V'], expected: undefined },
    {
      name: 'empty counts as set',
      env: { E: '' },
      expected: { value: '', unset: undefined, reference: 'environment variable E' },
    },
  ])('$name', ({ env, secretLiteral, notSecret, expected }) => {
    const inputs = secretLiteral ? [secret({ V: secretLiteral }, {})] : [];
    const lookup = variableLookup(cr(secretLiteral !== undefined), {
      overlay: { V: { fromEnv: 'E' } },
      overlayFile: 'overlays/dev/overlay.yaml',
      config: {},
      secrets: inputs,
      env,
      notSecret,
    });
    const v = lookup('V');
    expect(v === undefined ? undefined : { value: v.value, unset: v.unset, reference: v.reference }).toEqual(expected);
  });

  it('a configSecret reference with no value falls through to capi-render.yaml, else is the stand-in with its site', () => {
    const inputs = [secret({ V: { fromFile: '/run/v' }, W: { fromFile: '/run/w' } }, { V: undefined, W: undefined })];
    const lookup = variableLookup(cr(true), { overlay: {}, config: { V: 'from-config' }, secrets: inputs, env: {} });
    expect(lookup('V')).toMatchObject({ value: 'from-config', secret: false });
    expect(lookup('W')).toMatchObject({
      value: unsetMarker('W'),
      unset: true,
      secret: true,
      reference: 'file /run/w',
      via: 'Secret/w-system/vars stringData.W',
      site: { file: 'providers/vars.yaml', line: 7, field: 'stringData.W' },
    });
  });

  it('the stand-in: deterministic, distinct per variable, plain lower-case text', () => {
    expect(unsetMarker('A')).toBe(unsetMarker('A'));
    expect(unsetMarker('A')).not.toBe(unsetMarker('B'));
    expect(unsetMarker('A')).toMatch(/^[a-z0-9]{40,}$/);
    expect(holdsUnsetMarker(`x ${unsetMarker('A')} y`)).toBe(true);
  });
});

describe('operators that transform a value', () => {
  it.each([
    ['${V}', []],
    ['${V:=d} ${V=d} ${V:-d}', []],
    ['${A:=${V}}', []],
    ['${V,,}', ['V']],
    ['${V^^}', ['V']],
    ['${#V}', ['V']],
    ['${V:0:3}', ['V']],
    ['${V/a/b}', ['V']],
    ['${V#x} ${A%%y}', ['A', 'V']],
    ['${A:=${V,}}', ['V']],
  ])('%s → %j', (text, transformed) => {
    expect(compileTemplate(text, 't').transformed).toEqual(transformed);
  });
});

describe('where a stand-in needs the real value', () => {
  const m = unsetMarker('V');
  const secretObj: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'n' },
    stringData: { k: m },
  };
  const secretAnnotated: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'n', annotations: { a: m } },
    data: { k: m },
  };
  const deployment: KubeObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', namespace: 'n' },
    spec: { args: [`--x=${m}`] },
  };
  const values = [{ variable: 'V', value: m, from: 'environment variable E' }];
  it.each<[string, KubeObject, SecretMode, string | undefined]>([
    ['Secret stringData, omit', secretObj, 'omit', undefined],
    ['Secret stringData, external-secrets', secretObj, 'external-secrets', undefined],
    ['Secret stringData, fail', secretObj, 'fail', 'Secret/n/s stringData.k'],
    ['Secret stringData, plaintext', secretObj, 'plaintext', 'Secret/n/s stringData.k'],
    ['Secret data and an annotation, omit', secretAnnotated, 'omit', 'Secret/n/s metadata.annotations.a'],
    ['Deployment argument, omit', deployment, 'omit', 'Deployment/n/d spec.args[0]'],
    ['a key of Secret stringData, omit', { ...secretObj, stringData: { [m]: 'x' } }, 'omit', 'Secret/n/s'],
  ])('%s', (_name, obj, mode, where) => {
    const needed = unsetValuesOutside('infrastructure-w', [obj], values, { mode });
    expect(needed.map((n) => n.where)).toEqual(where ? [where] : []);
  });
});
