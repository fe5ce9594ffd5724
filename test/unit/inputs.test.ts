import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { parseConfig } from '../../src/config/load-config.js';
import { classifyInputs } from '../../src/declarations/inputs.js';
import { parseSourceDocuments } from '../../src/declarations/yaml-document.js';

function codesOf(fn: () => unknown): { code: string; line?: number; col?: number; field?: string }[] {
  try {
    fn();
  } catch (e) {
    if (e instanceof SpecError) return e.diagnostics.map(({ code, line, col, field }) => ({ code, line, col, field }));
    throw e;
  }
  return [];
}

describe('parseSourceDocuments', () => {
  it('locates fields by path, keys and values', () => {
    const [doc] = parseSourceDocuments('a: 1\nspec:\n  list:\n    - x: 1\n    - y: two\n', 'f.yaml');
    expect(doc!.locate(['spec', 'list', 1, 'y'])).toEqual({ line: 5, col: 10 });
    expect(doc!.locate(['spec', 'list', 1, 'y'], 'key')).toEqual({ line: 5, col: 7 });
    // A missing field points at its nearest existing ancestor.
    expect(doc!.locate(['spec', 'nope', 'deeper'])).toEqual({ line: 3, col: 3 });
  });

  it.each([
    { name: 'malformed YAML', text: 'a: [1, 2\n', code: 'yaml-syntax', line: 2 },
    { name: 'a duplicate key', text: 'a: 1\nb: 2\na: 3\n', code: 'yaml-duplicate-key', line: 3 },
    {
      name: 'an alias bomb',
      text: `a: &a [x, x, x, x, x, x, x, x, x, x]\n${Array.from(
        { length: 12 },
        (_, i) =>
          `b${i}: &b${i} [${Array(10)
            .fill(i === 0 ? '*a' : `*b${i - 1}`)
            .join(', ')}]`,
      ).join('\n')}\n`,
      code: 'yaml-limit',
      line: 1,
    },
  ])('reports $name with its position', ({ text, code, line }) => {
    const [d] = codesOf(() => parseSourceDocuments(text, 'f.yaml'));
    expect(d).toMatchObject({ code, line });
  });

  it('drops empty documents', () => {
    expect(parseSourceDocuments('---\n---\na: 1\n---\n', 'f.yaml').map((d) => d.value)).toEqual([{ a: 1 }]);
  });
});

describe('classifyInputs', () => {
  const docs = parseSourceDocuments(
    [
      'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata: {name: cluster-api, namespace: capi-system}',
      'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c, namespace: capi-system}',
      'apiVersion: v1\nkind: Secret\nmetadata: {name: s, namespace: capi-system}',
      'apiVersion: v1\nkind: Namespace\nmetadata: {name: capi-system}',
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}',
      'apiVersion: operator.cluster.x-k8s.io/v1alpha1\nkind: CoreProvider\nmetadata: {name: cluster-api, namespace: x}',
      '- just\n- a list',
    ].join('\n---\n'),
    'providers/all.yaml',
  );
  const { inputs, diagnostics } = classifyInputs(docs);
  it('sorts providers, ConfigMaps and Secrets and ignores Namespaces', () => {
    expect([inputs.providers.length, inputs.configMaps.length, inputs.secrets.length]).toEqual([1, 1, 1]);
  });
  it('reports every other kind, a wrong operator version and non-objects with positions', () => {
    expect(diagnostics.map(({ code, line, field }) => ({ code, line, field }))).toEqual([
      { code: 'unknown-kind', line: 18, field: 'kind' },
      { code: 'unknown-kind', line: 21, field: 'apiVersion' },
      { code: 'input-not-object', line: 25, field: undefined },
    ]);
  });
});

describe('parseConfig', () => {
  it('accepts a full config', () => {
    const c = parseConfig(
      'apiVersion: capi-render/v1alpha1\nkind: Config\nrepositories: [{path: r}]\nvariables: {A: x, B: {fromEnv: B_ENV}}\nimages: {all: {repository: reg.example.com/capi}}\n',
      'c.yaml',
    );
    expect(c.repositories).toEqual([{ path: 'r' }]);
    expect(c.variables).toEqual({ A: 'x', B: { fromEnv: 'B_ENV' } });
    expect(c.outputDir).toBe('rendered');
  });
  it.each([
    {
      name: 'an unknown key',
      text: 'apiVersion: capi-render/v1alpha1\nkind: Config\nrepostories: []\n',
      field: 'repostories',
      line: 3,
    },
    { name: 'a wrong apiVersion', text: 'apiVersion: v1\nkind: Config\n', field: 'apiVersion', line: 1 },
    {
      name: 'a variable that is neither string nor fromEnv',
      text: 'apiVersion: capi-render/v1alpha1\nkind: Config\nvariables:\n  A: {env: X}\n',
      field: 'variables.A',
      line: 4,
    },
    {
      name: 'a repository without path',
      text: 'apiVersion: capi-render/v1alpha1\nkind: Config\nrepositories:\n  - {}\n',
      field: 'repositories.0',
      line: 4,
    },
  ])('reports $name at its field', ({ text, field, line }) => {
    expect(codesOf(() => parseConfig(text, 'c.yaml'))).toContainEqual(
      expect.objectContaining({ code: 'config', field, line }),
    );
  });
});
