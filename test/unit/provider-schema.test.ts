import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import jsYaml from 'js-yaml';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { InternalError } from '../../src/errors.js';
import type { JsonObject, ProviderKind } from 'capi-render';
import { isJsonObject } from '../../src/manifest/object.js';
import { isProviderKind, kindInfo, PROVIDER_KINDS } from '../../src/declarations/provider-kinds.js';
import {
  createProviderSchemaValidator,
  formatFieldPath,
  recogniseCelRule,
  type SchemaIssue,
} from '../../src/declarations/schema/index.js';
import { crdSchemaJsonFile, loadCrdSchema } from '../../src/declarations/schema/load-crd-schema.js';
import {
  packagedProviderValidatorSpec,
  precompiledKinds,
  PROVIDER_KINDS_INDEX,
} from '../../src/declarations/schema/provider-schema-validator.js';
import { buildProviderJsonSchema } from '../../src/declarations/schema/object-envelope.js';
import { canonicalJson } from '../../src/manifest/canonical-json.js';
import { createValidationMemo } from '../../src/declarations/schema/validation-memo.js';
import { compileValidator, validatorKey, validatorModuleSource } from '../../src/schema-validator.js';

const SCHEMA_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/provider-declarations/operator-helm-e2e/', import.meta.url));

// One validator for the whole file: building it is what a process does once.
const validator = createProviderSchemaValidator();

function ruleAndPath(issues: SchemaIssue[]): { rule: string; path: (string | number)[] }[] {
  return issues.map(({ rule, path }) => ({ rule, path }));
}

/** A valid CoreProvider with `spec` merged in; `extra` replaces top-level fields (undefined deletes). */
function coreProvider(spec: JsonObject, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const object: Record<string, unknown> = {
    apiVersion: 'operator.cluster.x-k8s.io/v1alpha2',
    kind: 'CoreProvider',
    metadata: { name: 'cluster-api', namespace: 'capi-system' },
    spec: { version: 'v1.10.4', ...spec },
    ...extra,
  };
  for (const [key, value] of Object.entries(extra)) if (value === undefined) delete object[key];
  return object;
}

const yaml = (text: string): JsonObject => jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA }) as JsonObject;

describe('provider CRs from the operator Helm chart e2e fixtures', () => {
  const documents = readdirSync(FIXTURES)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      jsYaml
        .loadAll(readFileSync(join(FIXTURES, file), 'utf8'), undefined, { schema: jsYaml.CORE_SCHEMA })
        .filter((doc): doc is JsonObject => isJsonObject(doc) && doc.kind !== 'Namespace')
        .map((doc, index) => ({
          name: `${file} #${index} ${String(doc.kind)}/${String((doc.metadata as JsonObject).name)}`,
          doc,
        })),
    );

  it('has provider CRs of every kind the chart templates (all but RuntimeExtensionProvider)', () => {
    const kinds = PROVIDER_KINDS.map((k) => k.kind).filter((kind) => kind !== 'RuntimeExtensionProvider');
    expect([...new Set(documents.map(({ doc }) => doc.kind))].sort()).toEqual(kinds.sort());
  });

  it.each(documents)('$name validates clean', ({ doc }) => {
    expect(isProviderKind(doc.kind)).toBe(true);
    expect(validator.validate(doc.kind as ProviderKind, doc)).toEqual([]);
  });
});

describe('broken provider CRs', () => {
  const cases: {
    name: string;
    input: Record<string, unknown>;
    expected: { rule: string; path: (string | number)[] }[];
  }[] = [
    {
      name: 'replicas of the wrong type',
      input: coreProvider({ deployment: { replicas: 'two' } }),
      expected: [{ rule: 'type', path: ['spec', 'deployment', 'replicas'] }],
    },
    {
      name: 'negative replicas',
      input: coreProvider({ deployment: { replicas: -1 } }),
      expected: [{ rule: 'minimum', path: ['spec', 'deployment', 'replicas'] }],
    },
    {
      name: 'maxConcurrentReconciles below its minimum of 1',
      input: coreProvider({ manager: { maxConcurrentReconciles: 0 } }),
      expected: [{ rule: 'minimum', path: ['spec', 'manager', 'maxConcurrentReconciles'] }],
    },
    {
      name: 'unknown field at the top of spec',
      input: coreProvider({ deploymnet: { replicas: 1 } }),
      expected: [{ rule: 'unknown-field', path: ['spec', 'deploymnet'] }],
    },
    {
      name: 'unknown nested field',
      input: coreProvider({ manager: { featureGate: { MachinePool: true } } }),
      expected: [{ rule: 'unknown-field', path: ['spec', 'manager', 'featureGate'] }],
    },
    {
      name: 'unknown top-level field',
      input: coreProvider({}, { sepc: {} }),
      expected: [{ rule: 'unknown-field', path: ['sepc'] }],
    },
    {
      name: 'configSecret without a name',
      input: coreProvider({ configSecret: { namespace: 'capi-system' } }),
      expected: [{ rule: 'required', path: ['spec', 'configSecret', 'name'] }],
    },
    {
      name: 'leaderElection missing its required fields',
      input: coreProvider({ manager: { leaderElection: { leaderElect: true, leaseDuration: '15s' } } }),
      expected: ['renewDeadline', 'resourceLock', 'resourceName', 'resourceNamespace', 'retryPeriod'].map((f) => ({
        rule: 'required',
        path: ['spec', 'manager', 'leaderElection', f],
      })),
    },
    {
      name: 'fetchConfig with url and selector',
      input: coreProvider({
        fetchConfig: { url: 'https://example.com/c.yaml', selector: { matchLabels: { a: 'b' } } },
      }),
      expected: [{ rule: 'cel', path: ['spec', 'fetchConfig'] }],
    },
    {
      name: 'empty fetchConfig',
      input: coreProvider({ fetchConfig: {} }),
      expected: [{ rule: 'cel', path: ['spec', 'fetchConfig'] }],
    },
    {
      name: 'patches and manifestPatches together',
      input: coreProvider({ patches: [{ patch: 'a: b' }], manifestPatches: ['{}'] }),
      expected: [{ rule: 'cel', path: ['spec'] }],
    },
    {
      name: 'status present',
      input: coreProvider({}, { status: { installedVersion: 'v1.10.4' } }),
      expected: [{ rule: 'status-not-allowed', path: ['status'] }],
    },
    {
      name: 'metadata.namespace missing',
      input: coreProvider({}, { metadata: { name: 'cluster-api' } }),
      expected: [{ rule: 'required', path: ['metadata', 'namespace'] }],
    },
    {
      name: 'metadata missing',
      input: coreProvider({}, { metadata: undefined }),
      expected: [{ rule: 'required', path: ['metadata'] }],
    },
    {
      name: 'metadata.name not a DNS subdomain',
      input: coreProvider({}, { metadata: { name: 'Cluster_API', namespace: 'capi-system' } }),
      expected: [{ rule: 'format', path: ['metadata', 'name'] }],
    },
    {
      name: 'metadata label value not a string',
      input: coreProvider({}, { metadata: { name: 'cluster-api', namespace: 'capi-system', labels: { tier: 1 } } }),
      expected: [{ rule: 'type', path: ['metadata', 'labels', 'tier'] }],
    },
    {
      name: 'misspelt metadata field',
      input: coreProvider({}, { metadata: { name: 'cluster-api', namespace: 'capi-system', lables: {} } }),
      expected: [{ rule: 'unknown-field', path: ['metadata', 'lables'] }],
    },
    {
      name: 'wrong apiVersion',
      input: coreProvider({}, { apiVersion: 'operator.cluster.x-k8s.io/v1alpha1' }),
      expected: [{ rule: 'const', path: ['apiVersion'] }],
    },
    {
      name: 'apiVersion of the wrong type',
      input: coreProvider({}, { apiVersion: 2 }),
      expected: [{ rule: 'const', path: ['apiVersion'] }],
    },
    {
      name: 'apiVersion missing',
      input: coreProvider({}, { apiVersion: undefined }),
      expected: [{ rule: 'required', path: ['apiVersion'] }],
    },
    {
      name: 'kind other than the one validated',
      input: coreProvider({}, { kind: 'InfrastructureProvider' }),
      expected: [{ rule: 'const', path: ['kind'] }],
    },
    {
      name: 'featureGates value not boolean',
      input: coreProvider({ manager: { featureGates: { MachinePool: 'true' } } }),
      expected: [{ rule: 'type', path: ['spec', 'manager', 'featureGates', 'MachinePool'] }],
    },
    {
      name: 'additionalDeployments entry with an unknown field',
      input: coreProvider({ additionalDeployments: { 'capi-extra': { deploymnet: {} } } }),
      expected: [{ rule: 'unknown-field', path: ['spec', 'additionalDeployments', 'capi-extra', 'deploymnet'] }],
    },
    {
      name: 'additionalDeployments entry with negative replicas',
      input: coreProvider({ additionalDeployments: { 'capi-extra': { deployment: { replicas: -2 } } } }),
      expected: [{ rule: 'minimum', path: ['spec', 'additionalDeployments', 'capi-extra', 'deployment', 'replicas'] }],
    },
    {
      name: 'int-or-string resource quantity of the wrong type',
      input: coreProvider({
        deployment: {
          containers: [
            { name: 'manager', resources: { limits: { cpu: true, memory: '128Mi' }, requests: { cpu: 1 } } },
          ],
        },
      }),
      expected: [{ rule: 'type', path: ['spec', 'deployment', 'containers', 0, 'resources', 'limits', 'cpu'] }],
    },
    {
      name: 'int-or-string resource quantity that is not a quantity',
      input: coreProvider({
        deployment: { containers: [{ name: 'manager', resources: { requests: { memory: '1Gx' } } }] },
      }),
      expected: [{ rule: 'pattern', path: ['spec', 'deployment', 'containers', 0, 'resources', 'requests', 'memory'] }],
    },
    {
      name: 'tolerationSeconds (int64) given as a string',
      input: coreProvider({ deployment: { tolerations: [{ key: 'k', tolerationSeconds: '30' }] } }),
      expected: [{ rule: 'type', path: ['spec', 'deployment', 'tolerations', 0, 'tolerationSeconds'] }],
    },
    {
      name: 'tolerationSeconds (int64) with a fraction',
      input: coreProvider({ deployment: { tolerations: [{ key: 'k', tolerationSeconds: 1.5 }] } }),
      expected: [{ rule: 'type', path: ['spec', 'deployment', 'tolerations', 0, 'tolerationSeconds'] }],
    },
    {
      name: 'tolerationSeconds beyond int64',
      input: coreProvider({ deployment: { tolerations: [{ key: 'k', tolerationSeconds: 2 ** 64 }] } }),
      expected: [{ rule: 'format', path: ['spec', 'deployment', 'tolerations', 0, 'tolerationSeconds'] }],
    },
    {
      name: 'affinity weight beyond int32',
      input: coreProvider(
        yaml(
          'deployment: {affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [{weight: 3000000000, preference: {}}]}}}',
        ),
      ),
      expected: [
        {
          rule: 'format',
          path: [
            'spec',
            'deployment',
            'affinity',
            'nodeAffinity',
            'preferredDuringSchedulingIgnoredDuringExecution',
            0,
            'weight',
          ],
        },
      ],
    },
    {
      name: 'list-type map with a duplicate key',
      input: coreProvider({
        deployment: { containers: [{ name: 'manager', resources: { claims: [{ name: 'gpu' }, { name: 'gpu' }] } }] },
      }),
      expected: [{ rule: 'list-map-key', path: ['spec', 'deployment', 'containers', 0, 'resources', 'claims', 1] }],
    },
    {
      name: 'null where an object is expected',
      input: coreProvider({ manager: null }),
      expected: [{ rule: 'type', path: ['spec', 'manager'] }],
    },
    {
      name: 'spec of the wrong type',
      input: coreProvider({}, { spec: ['v1.10.4'] }),
      expected: [{ rule: 'type', path: ['spec'] }],
    },
    {
      name: 'not an object at all',
      input: ['CoreProvider'] as unknown as Record<string, unknown>,
      expected: [{ rule: 'type', path: [] }],
    },
    {
      name: 'several problems, reported sorted by path',
      input: coreProvider(
        { manager: { verbosity: -1 }, deployment: { replicas: 'two' }, fetchConfig: {} },
        { status: {} },
      ),
      expected: [
        { rule: 'type', path: ['spec', 'deployment', 'replicas'] },
        { rule: 'cel', path: ['spec', 'fetchConfig'] },
        { rule: 'minimum', path: ['spec', 'manager', 'verbosity'] },
        { rule: 'status-not-allowed', path: ['status'] },
      ],
    },
  ];

  it.each(cases)('$name', ({ input, expected }) => {
    const issues = validator.validate('CoreProvider', input);
    expect(ruleAndPath(issues)).toEqual(expected);
    for (const issue of issues) expect(issue.message.startsWith(`${formatFieldPath(issue.path)}: `)).toBe(true);
  });

  it('uses the CRD message for a failed CEL rule', () => {
    const [issue] = validator.validate('CoreProvider', coreProvider({ fetchConfig: {} }));
    expect(issue?.message).toBe('spec.fetchConfig: Must specify one and only one of {oci, url, selector}');
  });

  it.each(PROVIDER_KINDS.map((k) => ({ kind: k.kind })))('validates $kind against its own CRD', ({ kind }) => {
    const object = coreProvider({ deployment: { replicas: -1 } }, { kind });
    expect(ruleAndPath(validator.validate(kind, object))).toEqual([
      { rule: 'minimum', path: ['spec', 'deployment', 'replicas'] },
    ]);
  });
});

describe('CRD schema handling', () => {
  it('recognises every CEL rule in every CRD file under schemas/', () => {
    const rules: string[] = [];
    const collect = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(collect);
      else if (isJsonObject(node)) {
        const validations = node['x-kubernetes-validations'];
        if (Array.isArray(validations)) for (const v of validations) rules.push(String((v as JsonObject).rule));
        Object.values(node).forEach(collect);
      }
    };
    for (const file of readdirSync(SCHEMA_DIR).filter(
      (f) => f.startsWith('operator.cluster.x-k8s.io_') && f.endsWith('.yaml'),
    )) {
      collect(jsYaml.load(readFileSync(join(SCHEMA_DIR, file), 'utf8'), { schema: jsYaml.CORE_SCHEMA }));
    }
    expect(rules.length).toBe(14);
    expect(rules.filter((rule) => recogniseCelRule(rule) === undefined)).toEqual([]);
  });

  it('gives all seven kinds the same converted schema, so they share one compiled validator', () => {
    const keys = PROVIDER_KINDS.map((k) =>
      canonicalJson(buildProviderJsonSchema(loadCrdSchema(SCHEMA_DIR, k.schemaFile, 'v1alpha2'), k.kind)),
    );
    expect(new Set(keys).size).toBe(1);
  });

  const crdWith = (spec: JsonObject): string =>
    jsYaml.dump({
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      spec: {
        versions: [
          {
            name: 'v1alpha2',
            schema: {
              openAPIV3Schema: {
                type: 'object',
                properties: {
                  apiVersion: { type: 'string' },
                  kind: { type: 'string' },
                  metadata: { type: 'object' },
                  spec,
                },
              },
            },
          },
        ],
      },
    });

  function validatorOver(crdText: string) {
    const dir = mkdtempSync(join(tmpdir(), 'capi-render-schema-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, kindInfo('CoreProvider').schemaFile), crdText);
    return createProviderSchemaValidator({ schemaDir: dir });
  }

  it.each([
    {
      name: 'a CEL rule capi-render does not implement',
      spec: {
        type: 'object',
        properties: { a: { type: 'string' } },
        'x-kubernetes-validations': [{ rule: 'self.a.startsWith("x")', message: 'm' }],
      },
    },
    {
      name: 'a CEL rule with messageExpression',
      spec: {
        type: 'object',
        properties: { a: { type: 'string' }, b: { type: 'string' } },
        'x-kubernetes-validations': [{ rule: '!(has(self.a) && has(self.b))', messageExpression: '"m"' }],
      },
    },
    {
      name: 'a CEL rule naming an undeclared field',
      spec: {
        type: 'object',
        properties: { a: { type: 'string' } },
        'x-kubernetes-validations': [{ rule: '!(has(self.a) && has(self.b))', message: 'm' }],
      },
    },
    {
      name: 'an unknown schema keyword',
      spec: { type: 'object', properties: { a: { type: 'string', 'x-kubernetes-new-thing': true } } },
    },
  ])('throws InternalError when the CRD carries $name', ({ spec }) => {
    const custom = validatorOver(crdWith(spec as unknown as Parameters<typeof crdWith>[0]));
    expect(() => custom.validate('CoreProvider', coreProvider({}))).toThrow(InternalError);
  });

  it('reads nothing until a kind is validated, and only that kind', () => {
    const custom = validatorOver(crdWith({ type: 'object', properties: { version: { type: 'string' } } }));
    expect(custom.validate('CoreProvider', coreProvider({}))).toEqual([]);
    // No file for InfrastructureProvider exists in that folder.
    expect(() =>
      custom.validate('InfrastructureProvider', coreProvider({}, { kind: 'InfrastructureProvider' })),
    ).toThrow(InternalError);
  });

  it('implements nullable, int-or-string and preserve-unknown-fields from the structural schema', () => {
    const custom = validatorOver(
      crdWith({
        type: 'object',
        properties: {
          maybe: { type: 'string', nullable: true },
          port: { anyOf: [{ type: 'integer' }, { type: 'string' }], 'x-kubernetes-int-or-string': true },
          free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true },
        },
      }),
    );
    expect(
      custom.validate('CoreProvider', {
        ...coreProvider({}),
        spec: { maybe: null, port: 'http', free: { anything: [1] } },
      }),
    ).toEqual([]);
    expect(custom.validate('CoreProvider', { ...coreProvider({}), spec: { port: 8080 } })).toEqual([]);
    expect(ruleAndPath(custom.validate('CoreProvider', { ...coreProvider({}), spec: { port: [8080] } }))).toEqual([
      { rule: 'type', path: ['spec', 'port'] },
    ]);
  });
});

describe('formatFieldPath', () => {
  it.each([
    { path: [], expected: '(object)' },
    { path: ['spec', 'patches', 0, 'target'], expected: 'spec.patches[0].target' },
    { path: ['metadata', 'annotations', 'helm.sh/hook'], expected: 'metadata.annotations["helm.sh/hook"]' },
    { path: ['spec', 'additionalDeployments', 'capi-extra'], expected: 'spec.additionalDeployments.capi-extra' },
  ])('$expected', ({ path, expected }) => {
    expect(formatFieldPath(path)).toBe(expected);
  });
});

describe('remembered successes (validation memo)', () => {
  function memoDir(): string {
    const dir = mkdtempSync(join(tmpdir(), 'capi-render-validated-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  }

  it('a valid CR leaves one marker, and a later validator accepts it without making a schema validator', () => {
    const compile = vi.fn(compileValidator);
    const dir = memoDir();
    const cr = coreProvider({ deployment: { replicas: 2 } });
    // No precompiled validators: each one made goes through `compile`.
    const validatorsDir = memoDir();
    const validatorWithMemo = () =>
      createProviderSchemaValidator({ memo: createValidationMemo(dir), compile, validatorsDir });
    expect(validatorWithMemo().validate('CoreProvider', cr)).toEqual([]);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(compile).toHaveBeenCalledTimes(1);
    compile.mockClear();
    expect(validatorWithMemo().validate('CoreProvider', cr)).toEqual([]);
    expect(compile).not.toHaveBeenCalled();
    // Another CR (even of another kind with the same schema) is validated in full.
    expect(validatorWithMemo().validate('CoreProvider', coreProvider({ deployment: { replicas: 3 } }))).toEqual([]);
    expect(compile).toHaveBeenCalledTimes(1);
    expect(readdirSync(dir)).toHaveLength(2);
  });

  it('an invalid CR is never remembered: its problems are reported every time', () => {
    const dir = memoDir();
    const bad = coreProvider({ deployment: { replicas: 'two' } });
    for (let run = 0; run < 2; run++) {
      expect(
        ruleAndPath(createProviderSchemaValidator({ memo: createValidationMemo(dir) }).validate('CoreProvider', bad)),
      ).toEqual([{ rule: 'type', path: ['spec', 'deployment', 'replicas'] }]);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it('a memo folder that cannot be written only costs time', () => {
    const dir = memoDir();
    const file = join(dir, 'not-a-folder');
    writeFileSync(file, '');
    const v = createProviderSchemaValidator({ memo: createValidationMemo(file) });
    expect(v.validate('CoreProvider', coreProvider({}))).toEqual([]);
    expect(v.validate('CoreProvider', coreProvider({}))).toEqual([]);
  });
});

describe('kinds the build precompiled (dist/validators/ and its index)', () => {
  /** A validators folder as `npm run build` writes it, for the package's own schemas. */
  function validatorsFolder(): string {
    const dir = mkdtempSync(join(tmpdir(), 'capi-render-validators-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    for (const { kind } of PROVIDER_KINDS) {
      const spec = packagedProviderValidatorSpec(kind);
      writeFileSync(join(dir, `${validatorKey(spec)}.cjs`), validatorModuleSource(spec));
    }
    writeFileSync(join(dir, PROVIDER_KINDS_INDEX), JSON.stringify(precompiledKinds(SCHEMA_DIR)));
    return dir;
  }
  const emptyFolder = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'capi-render-no-validators-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };
  const crs = [
    coreProvider({}),
    coreProvider({ deployment: { replicas: 'two' } }),
    coreProvider({ manager: { featureGate: { MachinePool: true } } }),
    coreProvider({ configSecret: { namespace: 'capi-system' } }),
    coreProvider({ fetchConfig: { url: 'https://example.com', oci: 'example.com/x' } }),
  ];

  it('validates with the recorded validator, converting no schema, exactly as a converted schema does', () => {
    const compile = vi.fn(compileValidator);
    const indexed = createProviderSchemaValidator({ validatorsDir: validatorsFolder(), compile });
    const converted = createProviderSchemaValidator({ validatorsDir: emptyFolder() });
    for (const kind of PROVIDER_KINDS.map((k) => k.kind)) {
      for (const cr of crs) {
        const object = { ...cr, kind };
        expect(indexed.validate(kind, object)).toEqual(converted.validate(kind, object));
      }
    }
    expect(compile).not.toHaveBeenCalled();
  });

  it('names a schema by the digest conversion gives it: a success remembered either way counts for the other', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capi-render-validated-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const compile = vi.fn(compileValidator);
    expect(
      createProviderSchemaValidator({ memo: createValidationMemo(dir), validatorsDir: validatorsFolder() }).validate(
        'CoreProvider',
        coreProvider({}),
      ),
    ).toEqual([]);
    expect(
      createProviderSchemaValidator({
        memo: createValidationMemo(dir),
        validatorsDir: emptyFolder(),
        compile,
      }).validate('CoreProvider', coreProvider({})),
    ).toEqual([]);
    expect(compile).not.toHaveBeenCalled();
  });

  it('ignores the index for a schema file of other bytes, and converts that schema', () => {
    const dir = mkdtempSync(join(tmpdir(), 'capi-render-schema-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = crdSchemaJsonFile(SCHEMA_DIR, kindInfo('CoreProvider').schemaFile, 'v1alpha2');
    writeFileSync(join(dir, basename(file)), `${readFileSync(file, 'utf8')}\n`);
    const compile = vi.fn(compileValidator);
    const v = createProviderSchemaValidator({ schemaDir: dir, validatorsDir: validatorsFolder(), compile });
    expect(ruleAndPath(v.validate('CoreProvider', coreProvider({ deployment: { replicas: 'two' } })))).toEqual([
      { rule: 'type', path: ['spec', 'deployment', 'replicas'] },
    ]);
    expect(compile).toHaveBeenCalledTimes(1);
  });
});
