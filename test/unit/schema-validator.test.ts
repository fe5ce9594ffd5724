/**
 * The validators `npm run build` precompiles (src/schema-validator.ts) answer exactly as the ones
 * ajv compiles at run time: every schema the package precompiles, over the same inputs — real
 * provider CRs, a value built from each schema and thousands of one-edit variants of them — gives
 * the same verdict and the same errors (values, schemas and paths). And a precompiled file is used
 * only when its key matches.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { CONFIG_VALIDATOR } from '../../src/config/load-config.js';
import { PROVIDER_KINDS } from '../../src/declarations/provider-kinds.js';
import { packagedProviderValidatorSpec } from '../../src/declarations/schema/provider-schema-validator.js';
import { LOCK_VALIDATOR } from '../../src/lock/validate-lock.js';
import { OVERLAY_VALIDATOR } from '../../src/overlay/load-overlay.js';
import {
  compileSchema,
  compileValidator,
  loadValidatorModule,
  RUNTIME_HELPERS,
  validatorKey,
  validatorModuleSource,
  type ValidatorSpec,
} from '../../src/schema-validator.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { FULL_LOCK } from '../helpers/full-lock.js';

const dir = mkdtempSync(path.join(tmpdir(), 'capi-render-validators-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Schema = Record<string, unknown>;

/** A value of `schema`'s shape, every property present (first branch of an anyOf/oneOf), not necessarily valid. */
function sample(schema: Schema, root: Schema, depth = 0): Json {
  if (depth > 12) return null;
  if (typeof schema.$ref === 'string') {
    const name = schema.$ref.replace('#/$defs/', '');
    return sample((root.$defs as Record<string, Schema>)[name]!, root, depth + 1);
  }
  if ('const' in schema) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  for (const k of ['anyOf', 'oneOf', 'allOf'])
    if (Array.isArray(schema[k]) && !schema.type && !schema.properties)
      return sample(schema[k][0] as Schema, root, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'string') return schema.format === 'date-time' ? '2025-01-02T03:04:05Z' : 'a';
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return schema.items ? [sample(schema.items as Schema, root, depth + 1)] : [];
  const out: Record<string, Json> = {};
  for (const [k, v] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
    out[k] = sample(v, root, depth + 1);
  return out;
}

/** `value` with one edit at each of its first `limit` places: a wrong type, an empty value, an unknown key, a deletion. */
function variants(value: Json, limit: number): Json[] {
  const out: Json[] = [];
  const replacements: Json[] = ['x', -1, 1.5, 2 ** 40, null, true, {}, [], { zz: 1 }, [{ zz: 1 }], ''];
  const walk = (node: Json, edit: (next: Json | undefined) => Json): void => {
    if (out.length >= limit) return;
    for (const r of replacements) out.push(edit(r));
    if (node && typeof node === 'object' && !Array.isArray(node)) {
      out.push(edit({ ...node, unknownField: 'x' }));
      for (const key of Object.keys(node)) {
        const rest = { ...node };
        delete rest[key];
        out.push(edit(rest));
        walk(node[key]!, (next) => edit(next === undefined ? rest : { ...node, [key]: next }));
      }
    } else if (Array.isArray(node)) {
      out.push(edit([...node, ...node]));
      node.forEach((item, i) => walk(item, (next) => edit(node.map((x, j) => (j === i ? (next ?? null) : x)))));
    }
  };
  walk(value, (next) => next ?? null);
  return out;
}

const PROVIDER_FIXTURES = path.join(REPO_ROOT, 'test/fixtures/provider-declarations/operator-helm-e2e');
const providerDocs = readdirSync(PROVIDER_FIXTURES)
  .filter((f) => f.endsWith('.yaml'))
  .sort()
  .flatMap((f) =>
    jsYaml.loadAll(readFileSync(path.join(PROVIDER_FIXTURES, f), 'utf8'), undefined, { schema: jsYaml.CORE_SCHEMA }),
  )
  .filter((d): d is Json => typeof d === 'object' && d !== null && (d as { kind?: unknown }).kind !== 'Namespace');

const VALID_LOCK = jsYaml.load(FULL_LOCK) as Json;

const VALID_CONFIG = jsYaml.load(`apiVersion: capi-render/v1alpha1
kind: Config
certManager: {version: v1.19.4}
repositories: [{path: ../releases}]
variables: {EXP_CLUSTER_RESOURCE_SET: "true", TOKEN: {fromEnv: TOKEN}}
imagePolicy: {pinDigests: true, insecureRegistries: [localhost:5000]}
`) as Json;
const VALID_OVERLAY = jsYaml.load(`apiVersion: capi-render/v1alpha1
kind: Overlay
resources: [../../providers]
patches:
  - target: {kind: CoreProvider}
    patch: '[{op: add, path: /spec/deployment, value: {replicas: 2}}]'
images:
  all: {repository: registry.example.com/capi}
labels: {team: platform}
`) as Json;

const SPECS: [name: string, spec: ValidatorSpec, seeds: Json[]][] = [
  ['config', CONFIG_VALIDATOR, [VALID_CONFIG]],
  ['overlay', OVERLAY_VALIDATOR, [VALID_OVERLAY]],
  ['lock', LOCK_VALIDATOR, [VALID_LOCK]],
  ...PROVIDER_KINDS.map((k): [string, ValidatorSpec, Json[]] => [
    k.kind,
    packagedProviderValidatorSpec(k.kind),
    providerDocs.filter((d) => (d as { kind?: unknown }).kind === k.kind),
  ]),
];

describe.each(SPECS)('the precompiled %s validator', (name, spec, seeds) => {
  it('gives the verdict and errors of the one compiled at run time, over thousands of inputs', () => {
    const file = path.join(dir, `${name}.cjs`);
    const source = validatorModuleSource(spec);
    writeFileSync(file, source);
    // Every ajv helper the code requires is one the package bundles (no module of ajv's is loaded).
    for (const [, id] of source.matchAll(/require\("([^"]+)"\)/g)) expect(Object.keys(RUNTIME_HELPERS)).toContain(id);
    const precompiled = loadValidatorModule(file, spec);
    const compiled = compileSchema(spec);
    const inputs = [sample(spec.schema, spec.schema), ...seeds].flatMap((seed) => [seed, ...variants(seed, 1500)]);
    let invalid = 0;
    for (const input of inputs) {
      const verdict = compiled(input);
      expect(precompiled(input)).toBe(verdict);
      expect(precompiled.errors ?? null).toEqual(compiled.errors ?? null);
      if (!verdict) invalid++;
    }
    // The inputs reach both sides of the verdict, many times over.
    expect(invalid).toBeGreaterThan(100);
    expect(inputs.length - invalid).toBeGreaterThan(0);
  });
});

describe('compileValidator', () => {
  const spec = LOCK_VALIDATOR;
  it('loads the file named by the key when there is one', () => {
    const own = mkdtempSync(path.join(dir, 'own-'));
    writeFileSync(path.join(own, `${validatorKey(spec)}.cjs`), validatorModuleSource(spec));
    const loaded = compileValidator(spec, own);
    // ajv's own compiled functions carry their schema environment; standalone code has none.
    expect('schemaEnv' in loaded).toBe(false);
    expect(loaded({ apiVersion: 'capi-render/v1alpha1' })).toBe(false);
  });

  it('compiles the schema when no file has its key (a changed schema or option)', () => {
    const own = mkdtempSync(path.join(dir, 'stale-'));
    writeFileSync(path.join(own, `${validatorKey(spec)}.cjs`), validatorModuleSource(spec));
    const changed = { ...spec, options: { ...spec.options, strictRequired: false } };
    expect(validatorKey(changed)).not.toBe(validatorKey(spec));
    expect('schemaEnv' in compileValidator(changed, own)).toBe(true);
  });
});
