/**
 * capi-render.lock is checked against LOCK_SCHEMA: one row per rule of the schema, each a one-line
 * edit of a valid lock, with the message and the line:col it is reported at. The shipped editor
 * schema (schemas/lock.schema.json) accepts exactly what the reader accepts, row for row.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { schemaSettings } from '../../src/cli/reference/editor-schemas.js';
import { editorSchemaUrl } from '../../src/config/editor-schema-url.js';
import { SpecError } from '../../src/errors.js';
import { parseLock } from '../../src/lock/lock-file.js';
import { LOCK_DESCRIPTIONS, LOCK_SCHEMA } from '../../src/lock/lock-schema.js';
import { packageVersion } from '../../src/package-files.js';
import { thrownBy } from '../helpers/errors.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { FULL_LOCK } from '../helpers/full-lock.js';

const H = (c: string) => c.repeat(64);
// Every field the lock defines, once (line numbers below count from its first line).
const LOCK = FULL_LOCK;

/** The lock with `from` (a whole line, found once) replaced by `to` (several lines, or none). */
function edited(from: string, to: string): string {
  const lines = LOCK.split('\n');
  const at = lines.indexOf(from);
  if (at < 0 || lines.lastIndexOf(from) !== at) throw new Error(`not one line: ${from}`);
  lines.splice(at, 1, ...(to === '' ? [] : to.split('\n')));
  return lines.join('\n');
}

const ROWS: { rule: string; text: string; message: string; at?: string }[] = [
  { rule: 'a mapping', text: '- just a list\n', message: 'must have apiVersion capi-render/v1alpha1 and kind Lock' },
  {
    rule: 'apiVersion',
    text: edited('apiVersion: capi-render/v1alpha1', 'apiVersion: v1'),
    message: 'must have apiVersion capi-render/v1alpha1 and kind Lock',
  },
  {
    rule: 'kind',
    text: edited('kind: Lock', 'kind: ConfigMap'),
    message: 'must have apiVersion capi-render/v1alpha1 and kind Lock',
  },
  {
    rule: 'emulates.clusterctl required',
    text: edited('  clusterctl: v1.12.10', ''),
    message: 'has an emulates entry without a clusterctl version',
    at: '5:3',
  },
  {
    rule: 'emulates.operator a string',
    text: edited('  operator: v0.28.0', '  operator: [v0.28.0]'),
    message: 'has an emulates entry without a clusterctl version',
    at: '5:3',
  },
  {
    rule: 'environments a list',
    text: LOCK.replace(/^environments:\n(?:[- ] .*\n)+/m, 'environments: {}\n'),
    message: 'has environments that are not a list',
    at: '7:15',
  },
  {
    rule: 'environments[].name required',
    text: edited('- name: dev', '- inputs2: x'),
    message: 'has an environment entry without a name and providers',
    at: '8:3',
  },
  {
    rule: 'environments[].providers a list',
    text: edited('  providers:', '  providers: {}\n  unused:'),
    message: 'has an environment entry without a name and providers',
    at: '8:3',
  },
  {
    rule: 'environments[].inputs a string',
    text: edited(`  inputs: ${H('e')}`, '  inputs: [x]'),
    message: 'has inputs of environment dev that are not a hash',
    at: '9:11',
  },
  {
    rule: 'environments[].crds a list of names',
    text: edited('  - clusters.cluster.x-k8s.io', '  - {name: clusters.cluster.x-k8s.io}'),
    message: 'has crds of environment dev that are not a list of names',
    at: '19:3',
  },
  {
    rule: 'environments[].images a list of references',
    text: edited('  - registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0', '  - [x]'),
    message: 'has images of environment dev that are not a list of references',
    at: '21:3',
  },
  ...(['provider', 'version', 'source'] as const).map((field) => ({
    rule: `environments[].providers[].${field} required`,
    text: edited(
      LOCK.split('\n').find((l) => l.startsWith(`  ${field === 'provider' ? '-' : ' '} ${field}:`))!,
      field === 'provider' ? '  - requested2: x' : '',
    ),
    message: 'has a provider entry of environment dev without provider, version and source',
    at: '11:5',
  })),
  ...(['requested', 'contract'] as const).map((field) => ({
    rule: `environments[].providers[].${field} a string`,
    text: edited(
      LOCK.split('\n').find((l) => l.startsWith(`    ${field}:`))!,
      `    ${field}: {}`,
    ),
    message: 'has a provider entry of environment dev without provider, version and source',
    at: '11:5',
  })),
  {
    rule: 'environments[].providers[].variables a list of names',
    text: edited('    - CLUSTER_TOPOLOGY', '    - 1'),
    message: 'has variables of CoreProvider/capi-system/cluster-api in environment dev that are not a list of names',
    at: '17:5',
  },
  {
    rule: 'artifacts a list',
    text: LOCK.replace(/^artifacts:\n(?:[- ] .*\n)+/m, 'artifacts: none\n'),
    message: 'has artifacts that are not a list',
    at: '22:12',
  },
  ...[
    ['source', '- source: github:kubernetes-sigs/cluster-api', '- other: x'],
    ['version', '  version: v1.12.0', ''],
    ['file', '  file: core-components.yaml', ''],
  ].map(([field, from, to]) => ({
    rule: `artifacts[].${field} required`,
    text: edited(from!, to!),
    message: 'has an artifact entry without source, version, file and a sha256',
    at: '23:3',
  })),
  {
    rule: 'artifacts[].url a string',
    text: LOCK.replace(/^ {2}url: .*$/m, '  url: [x]'),
    message: 'has an artifact entry without source, version, file and a sha256',
    at: '23:3',
  },
  {
    rule: 'artifacts[].sha256 64 hex digits',
    text: edited(`  sha256: ${H('a')}`, `  sha256: ${H('A')}`),
    message: 'has an artifact entry without source, version, file and a sha256',
    at: '23:3',
  },
  {
    rule: 'inputFiles a list',
    text: LOCK.replace(/^inputFiles:\n- file: capi-render.yaml\n {2}sha256: .*\n/m, 'inputFiles: {}\n'),
    message: 'has inputFiles entries without file and sha256',
    at: '28:13',
  },
  {
    rule: 'inputFiles[].sha256 required',
    text: edited(`  sha256: ${H('b')}`, ''),
    message: 'has inputFiles entries without file and sha256',
    at: '29:3',
  },
  {
    rule: 'images a list',
    text: LOCK.replace(/^images:\n(?:[- ] .*\n)+/m, 'images: x\n'),
    message: 'has an images entry without an image and a sha256 digest',
    at: '31:9',
  },
  {
    rule: 'images[].digest sha256:<64 hex>',
    text: edited(`  digest: sha256:${H('c')}`, '  digest: latest'),
    message: 'has an images entry without an image and a sha256 digest',
    at: '32:3',
  },
  {
    rule: 'images[].verified.rule required',
    text: edited(`    rule: ${H('d')}`, ''),
    message: `has a verified entry of image registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0 without rule, method and format`,
    at: '35:5',
  },
  {
    rule: 'images[].verified.method keyless or key',
    text: edited('    method: keyless', '    method: password'),
    message:
      'has a verified entry of image registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0 without rule, method and format',
    at: '35:5',
  },
  {
    rule: 'images[].verified.format bundle or legacy-tag',
    text: edited('    format: bundle', '    format: tarball'),
    message:
      'has a verified entry of image registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0 without rule, method and format',
    at: '35:5',
  },
  {
    rule: 'images[].verified.evidence a string',
    text: edited('    evidence: e30=', '    evidence: [e30=]'),
    message:
      'has a verified entry of image registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0 without rule, method and format',
    at: '35:5',
  },
];

describe('capi-render.lock: each rule of its schema', () => {
  it('the lock every row edits is valid', () => {
    expect(parseLock(LOCK).images).toHaveLength(1);
  });

  it.each(ROWS)('$rule', ({ text, message, at }) => {
    const [first, ...rest] = thrownBy(SpecError, () => parseLock(text)).diagnostics;
    expect(rest).toEqual([]);
    expect(first).toMatchObject({ code: 'lock', file: 'capi-render.lock', message: `capi-render.lock ${message}` });
    expect(first!.hint).toMatch(/^restore it from git \(`git checkout capi-render\.lock`\), or delete it/);
    expect(first!.line === undefined ? undefined : `${first!.line}:${first!.col}`).toBe(at);
  });

  it('every problem is reported at once, in the order of the file; fields of a wrong entry are not reported again', () => {
    const text = edited('    method: keyless', '    method: password')
      .replace('    version: v1.12.0\n', '')
      .replace('    - CLUSTER_TOPOLOGY\n', '    - 1\n')
      .replace(`  inputs: ${H('e')}`, '  inputs: 7');
    expect(
      thrownBy(SpecError, () => parseLock(text)).diagnostics.map((d) => `${d.line}:${d.col} ${d.message}`),
    ).toEqual([
      '9:11 capi-render.lock has inputs of environment dev that are not a hash',
      '11:5 capi-render.lock has a provider entry of environment dev without provider, version and source',
      '34:5 capi-render.lock has a verified entry of image registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0 without rule, method and format',
    ]);
  });

  it('fields the lock does not define are accepted (a build rewrites them away)', () => {
    expect(() => parseLock(edited('    contract: v1beta2', '    contract: v1beta2\n    note: by hand'))).not.toThrow();
  });
});

describe('schemas/lock.schema.json', () => {
  const schema = JSON.parse(readFileSync(path.join(REPO_ROOT, 'schemas/lock.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  // Compiled with the meta-schema check on, as an editor's language server compiles it.
  const validate = new Ajv({ allErrors: true, strict: true }).compile(schema);

  it('is draft-07 with the published $id, and describes every field', () => {
    expect(schema.$schema).toBe('http://json-schema.org/draft-07/schema#');
    expect(schema.$id).toBe(editorSchemaUrl('lock', packageVersion()));
    const paths = schemaSettings(LOCK_SCHEMA).map((s) => s.path);
    expect(paths.filter((p) => LOCK_DESCRIPTIONS[p] === undefined)).toEqual([]);
    expect(Object.keys(LOCK_DESCRIPTIONS).filter((p) => !paths.includes(p))).toEqual([]);
  });

  it.each([{ rule: 'the valid lock', text: LOCK }, ...ROWS])('accepts what the reader accepts: $rule', ({ text }) => {
    let reader = true;
    try {
      parseLock(text);
    } catch (e) {
      if (!(e instanceof SpecError)) throw e;
      reader = false;
    }
    expect(validate(YAML.parse(text))).toBe(reader);
  });

  it("accepts the repository's own lock", () => {
    expect(validate(YAML.parse(readFileSync(path.join(REPO_ROOT, 'capi-render.lock'), 'utf8')))).toBe(true);
  });
});
