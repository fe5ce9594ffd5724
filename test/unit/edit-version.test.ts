import YAML, { isMap, isScalar, type Scalar } from 'yaml';
import { describe, expect, it } from 'vitest';
import { applyVersionEdits, scalarText } from '../../src/upgrade/edit-version.js';
import {
  mapInlineRange,
  shiftEdit,
  versionInObject,
  versionInPatch,
  type SiteLookup,
} from '../../src/upgrade/version-site.js';

/** Every line but `changed` (0-based) must be byte-identical; returns the changed lines. */
function changedLines(before: string, after: string): { index: number; before: string; after: string }[] {
  const a = before.split('\n');
  const b = after.split('\n');
  const out: { index: number; before: string; after: string }[] = [];
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i] !== b[i]) out.push({ index: i, before: a[i] ?? '', after: b[i] ?? '' });
  return out;
}

function edit(text: string, lookup: SiteLookup, version: string): string {
  if ('unsupported' in lookup) throw new Error(lookup.unsupported);
  return applyVersionEdits(text, [{ edit: lookup.edit, version }]);
}

const CORE = `# The core provider.
apiVersion: operator.cluster.x-k8s.io/v1alpha2
kind: CoreProvider
metadata:
  name: cluster-api
  namespace: capi-system
spec:
  # renovate: datasource=github-releases depName=kubernetes-sigs/cluster-api
  version: VERSION
  manager:
    verbosity: 2   # keep
`;

describe('editing spec.version in a provider CR', () => {
  it.each([
    { name: 'a plain scalar', value: 'v1.11.0', expected: '  version: v1.12.0' },
    { name: 'a double-quoted scalar', value: '"v1.11.0"', expected: '  version: "v1.12.0"' },
    { name: 'a single-quoted scalar', value: "'v1.11.0'", expected: "  version: 'v1.12.0'" },
    { name: 'a scalar with a trailing comment', value: 'v1.11.0 # pinned', expected: '  version: v1.12.0 # pinned' },
    { name: 'a range', value: '"~1.11"', expected: '  version: "v1.12.0"' },
  ])('$name: only the version line changes, the renovate comment stays above it', ({ value, expected }) => {
    const text = CORE.replace('VERSION', value);
    const doc = YAML.parseDocument(text);
    const out = edit(text, versionInObject(text, doc.contents), 'v1.12.0');
    expect(changedLines(text, out)).toEqual([{ index: 8, before: `  version: ${value}`, after: expected }]);
    expect(YAML.parse(out).spec.version).toBe('v1.12.0');
  });

  it('adds version on the line after spec: when the CR has none', () => {
    const text = CORE.replace(
      '  # renovate: datasource=github-releases depName=kubernetes-sigs/cluster-api\n  version: VERSION\n',
      '',
    );
    const out = edit(text, versionInObject(text, YAML.parseDocument(text).contents), 'v1.12.0');
    expect(out).toBe(text.replace('spec:\n', 'spec:\n  version: v1.12.0\n'));
  });

  it('edits the right document of a multi-document file', () => {
    const text = `${CORE.replace('VERSION', 'v1.11.0')}---\n${CORE.replace('VERSION', 'v1.10.4').replace('CoreProvider', 'BootstrapProvider')}`;
    const second = YAML.parseAllDocuments(text)[1]!;
    const out = edit(text, versionInObject(text, second.contents), 'v1.11.0');
    expect(changedLines(text, out)).toEqual([{ index: 20, before: '  version: v1.10.4', after: '  version: v1.11.0' }]);
  });

  it.each([
    { name: 'a block scalar version', text: CORE.replace('VERSION', '|\n    v1.11.0') },
    { name: 'a flow spec', text: 'apiVersion: v1\nkind: CoreProvider\nspec: {version: v1.11.0}\n' },
    { name: 'no spec', text: 'apiVersion: v1\nkind: CoreProvider\nmetadata: {name: x}\n' },
  ])('reports $name as not editable', ({ text }) => {
    expect(versionInObject(text, YAML.parseDocument(text).contents)).toHaveProperty('unsupported');
  });
});

describe('editing the version a patch sets', () => {
  it.each([
    {
      name: 'RFC 6902 replace',
      text: '# pin\n- op: replace\n  path: /spec/version\n  value: v1.11.0   # prod lags\n',
      line: 3,
      expected: '  value: v1.12.0   # prod lags',
    },
    {
      name: 'RFC 6902 add, in flow style',
      text: '[{"op": "add", "path": "/spec/version", "value": "v1.11.0"}]\n',
      line: 0,
      expected: '[{"op": "add", "path": "/spec/version", "value": "v1.12.0"}]',
    },
    {
      name: 'the last of several operations on /spec/version',
      text: '- op: replace\n  path: /spec/version\n  value: v1.10.4\n- op: replace\n  path: /spec/version\n  value: v1.11.0\n',
      line: 5,
      expected: '  value: v1.12.0',
    },
    {
      name: 'a strategic-merge patch',
      text: 'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\nspec:\n  version: "v1.11.0"\n  deployment:\n    replicas: 2\n',
      line: 5,
      expected: '  version: "v1.12.0"',
    },
  ])('$name', ({ text, line, expected }) => {
    const out = edit(text, versionInPatch(text), 'v1.12.0');
    expect(changedLines(text, out).map((c) => [c.index, c.after])).toEqual([[line, expected]]);
  });

  it.each([
    {
      name: 'a remove as the last operation',
      text: '- op: replace\n  path: /spec/version\n  value: v1\n- op: remove\n  path: /spec/version\n',
    },
    { name: 'no operation on the version', text: '- op: replace\n  path: /spec/deployment/replicas\n  value: 2\n' },
    { name: 'a merge patch without spec.version', text: 'kind: CoreProvider\nspec:\n  manager: {verbosity: 2}\n' },
  ])('reports $name as not editable', ({ text }) => {
    expect(versionInPatch(text)).toHaveProperty('unsupported');
  });
});

describe('inline patches in overlay.yaml', () => {
  const OVERLAY = `apiVersion: capi-render/v1alpha1
kind: Overlay
patches:
  # Version skew: prod stays behind.
  - target:
      kind: CoreProvider|BootstrapProvider
    patch: |-
      - op: replace
        path: /spec/version

        value: v1.11.0 # behind dev
  - patch: '[{"op": "replace", "path": "/spec/version", "value": "v1.11.0"}]'
    target: {kind: ControlPlaneProvider}
  - patch: >-
      [{"op": "replace", "path": "/spec/version", "value": "v1.11.0"}]
    target: {kind: InfrastructureProvider}
`;
  const patchScalar = (index: number): Scalar => {
    const node = YAML.parseDocument(OVERLAY).getIn(['patches', index], true);
    if (!isMap(node)) throw new Error('no entry');
    const scalar = node.get('patch', true);
    if (!isScalar(scalar)) throw new Error('no patch');
    return scalar;
  };
  const editInline = (index: number) => {
    const scalar = patchScalar(index);
    const found = versionInPatch(String(scalar.value));
    if ('unsupported' in found) throw new Error(found.unsupported);
    return shiftEdit(found.edit, (s, e) => mapInlineRange(OVERLAY, scalar, s, e));
  };

  it.each([
    {
      name: 'a literal block (|-) through its indentation',
      index: 0,
      line: 10,
      expected: '        value: v1.12.0 # behind dev',
    },
    {
      name: 'a single-quoted one-line string',
      index: 1,
      line: 11,
      expected: `  - patch: '[{"op": "replace", "path": "/spec/version", "value": "v1.12.0"}]'`,
    },
  ])('$name: the one line changes, the overlay stays as it was', ({ index, line, expected }) => {
    const mapped = editInline(index);
    expect(mapped).toBeDefined();
    const out = applyVersionEdits(OVERLAY, [{ edit: mapped!, version: 'v1.12.0' }]);
    expect(changedLines(OVERLAY, out).map((c) => [c.index, c.after])).toEqual([[line, expected]]);
  });

  it('refuses a folded string, whose bytes do not map one to one', () => {
    expect(editInline(2)).toBeUndefined();
  });
});

describe('scalarText', () => {
  it.each([
    { version: 'v1.12.0', style: 'plain' as const, expected: 'v1.12.0' },
    { version: '1.12', style: 'plain' as const, expected: '"1.12"' },
    { version: 'v1.12.0', style: 'single' as const, expected: "'v1.12.0'" },
    { version: 'v1.12.0', style: 'double' as const, expected: '"v1.12.0"' },
  ])('$version as $style', ({ version, style, expected }) => {
    expect(scalarText(version, style)).toBe(expected);
  });
});
