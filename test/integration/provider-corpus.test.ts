/**
 * Real provider releases, built from their release tags (test/fixtures/PROVENANCE.md), rendered as a
 * user would install them. Every `corpus.json` under test/fixtures/repository describes one
 * provider-version: its operator CR, the object count of its components file, and the variables its
 * documentation has users set (secret ones come from the environment, `secrets.mode: omit`).
 *
 * Each is built in its own repository beside the core provider and cert-manager, and must render
 * every object of the release, each valid against its schema: the CRD of the same render for a
 * custom resource, the Kubernetes OpenAPI definitions otherwise (unknown fields are errors, as
 * strict field validation makes them); and kustomize must accept the environment as it is.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Ajv, type ValidateFunction } from 'ajv';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { convertStructuralSchema } from '../../src/declarations/schema/convert-structural-schema.js';
import { addKubernetesFormats } from '../../src/declarations/schema/k8s-formats.js';
import { isJsonObject, type JsonObject, type JsonValue, type KubeObject } from '../../src/manifest/object.js';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { requireTool } from '../helpers/requirements.js';

interface CorpusVariable {
  secret: boolean;
  example: string;
}

interface Corpus {
  kind: string;
  name: string;
  namespace: string;
  label: string;
  version: string;
  componentsFile: string;
  objects: number;
  source: { repository: string; tag: string; commit: string };
  variables: Record<string, CorpusVariable>;
  notes?: string;
}

const REPOSITORY = path.join(FIXTURES, 'repository');

/** Every corpus.json under the fixture repository, in path order. */
function discover(): { file: string; corpus: Corpus }[] {
  const found: { file: string; corpus: Corpus }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const child = path.join(dir, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (name === 'corpus.json') found.push({ file: path.relative(FIXTURES, child), corpus: JSON.parse(readFileSync(child, 'utf8')) as Corpus });
    }
  };
  walk(REPOSITORY);
  return found;
}

/** The release's components file as stored (plain or `.gz`). */
function releaseText(corpus: Corpus): string {
  const plain = path.join(REPOSITORY, corpus.label, corpus.version, corpus.componentsFile);
  try {
    return readFileSync(plain, 'utf8');
  } catch {
    return gunzipSync(readFileSync(`${plain}.gz`)).toString('utf8');
  }
}

/** YAML documents of `text` that hold an object (empty documents and `---` alone are not objects). */
const objectsOf = (text: string): KubeObject[] => (jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA }) as unknown[]).filter(isJsonObject) as KubeObject[];

/** The names of the `${NAME…}` variables `text` uses, sorted. */
const variablesOf = (text: string): string[] => [...new Set([...text.matchAll(/\$\{\s*([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!))].sort();

const envName = (variable: string) => `CORPUS_${variable}`;

/** A repository installing the provider of `corpus` beside core, with its documented variables. */
function corpusRepo(corpus: Corpus): { repo: string; env: Record<string, string> } {
  const variables: string[] = [];
  const env: Record<string, string> = {};
  for (const [name, variable] of Object.entries(corpus.variables).sort(([a], [b]) => a.localeCompare(b))) {
    if (variable.secret) {
      variables.push(`  ${name}: {fromEnv: ${envName(name)}}`);
      env[envName(name)] = variable.example;
    } else {
      variables.push(`  ${name}: ${JSON.stringify(variable.example)}`);
    }
  }
  const provider = `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${corpus.kind}\nmetadata:\n  name: ${corpus.name}\n  namespace: ${corpus.namespace}\nspec:\n  version: ${corpus.version}\n`;
  const files: Record<string, string> = {
    'capi-render.yaml': configYaml(`${variables.length ? `variables:\n${variables.join('\n')}\n` : ''}secrets:\n  mode: omit\n`),
    'providers/provider.yaml': provider,
  };
  if (corpus.kind !== 'CoreProvider') files['providers/core.yaml'] = CORE();
  return { repo: makeRepo(files), env };
}

/** Every object written under rendered/<env>/<component>/ (kustomization.yaml aside). */
function renderedObjects(dir: string): Map<string, KubeObject[]> {
  const out = new Map<string, KubeObject[]>();
  for (const component of readdirSync(dir).sort()) {
    const folder = path.join(dir, component);
    if (!statSync(folder).isDirectory()) continue;
    const objects = readdirSync(folder)
      .sort()
      .filter((f) => f !== 'kustomization.yaml' && /\.ya?ml$/.test(f))
      .flatMap((f) => objectsOf(readFileSync(path.join(folder, f), 'utf8')));
    out.set(component, objects);
  }
  return out;
}

// --- schemas ---------------------------------------------------------------------------------

const KUBERNETES_DEFINITIONS = 'kubernetes/kubernetes-openapi-union-v1.21.2.bundle-v1.json.gz';
const OBJECT_META = 'k8s#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta';

/** A field the API gained after the Kubernetes version of the bundled definitions, which releases use: CEL rules in CRD schemas. */
const LATER_FIELDS: Record<string, JsonObject> = {
  'io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaProps': {
    'x-kubernetes-validations': {
      type: 'array',
      items: {
        type: 'object',
        required: ['rule'],
        additionalProperties: false,
        properties: { rule: { type: 'string' }, message: { type: 'string' }, messageExpression: { type: 'string' }, reason: { type: 'string' }, fieldPath: { type: 'string' }, optionalOldSelf: { type: 'boolean' } },
      },
    },
  },
};

/** A Kubernetes OpenAPI (v2) definition as a JSON schema: objects closed (unless they keep unknown fields), no annotations or formats. */
function kubernetesSchema(node: JsonValue): JsonValue {
  if (!isJsonObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key.startsWith('x-') || key === 'description' || key === 'format') continue;
    if (key === '$ref') out.$ref = `k8s${String(value)}`;
    else if (key === 'properties' && isJsonObject(value)) out.properties = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, kubernetesSchema(v)]));
    else if (key === 'items' || key === 'additionalProperties') out[key] = kubernetesSchema(value);
    else out[key] = value;
  }
  if (node['x-kubernetes-preserve-unknown-fields'] !== true && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

function kubernetesDefinitions(): { definitions: JsonObject; byKind: Map<string, string> } {
  const bundle = JSON.parse(gunzipSync(readFileSync(path.join(FIXTURES, KUBERNETES_DEFINITIONS))).toString('utf8')) as { definitions: JsonObject };
  const definitions: JsonObject = {};
  const byKind = new Map<string, string>();
  for (const [name, definition] of Object.entries(bundle.definitions)) {
    const raw = definition as JsonObject;
    const later = LATER_FIELDS[name];
    const extended = later ? { ...raw, properties: { ...(raw.properties as JsonObject), ...later } } : raw;
    definitions[name] = kubernetesSchema(extended) as JsonObject;
    for (const gvk of (raw['x-kubernetes-group-version-kind'] as { group: string; version: string; kind: string }[] | undefined) ?? []) {
      byKind.set(`${gvk.group ? `${gvk.group}/` : ''}${gvk.version}/${gvk.kind}`, name);
    }
  }
  // Both are strings in the definitions but either may be written as a YAML number (`port: 9443`, `cpu: 1`).
  definitions['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] = { type: ['integer', 'string'] };
  definitions['io.k8s.apimachinery.pkg.api.resource.Quantity'] = { type: ['string', 'number'] };
  return { definitions, byKind };
}

/** Validates objects against the Kubernetes definitions, or the CRDs given for custom resources. */
class SchemaValidator {
  private readonly ajv: Ajv;
  private readonly byKind: Map<string, string>;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly crds = new Map<string, JsonObject>();

  constructor() {
    this.ajv = new Ajv({ allErrors: true, strict: false, allowUnionTypes: true, validateSchema: false, code: { optimize: false } });
    addKubernetesFormats(this.ajv);
    const { definitions, byKind } = kubernetesDefinitions();
    this.ajv.addSchema({ $id: 'k8s', definitions });
    this.byKind = byKind;
  }

  /** Makes each served version of `crd` the schema of its kind. */
  addCrd(crd: KubeObject): void {
    const spec = crd.spec as JsonObject;
    const kind = (spec.names as JsonObject).kind as string;
    for (const version of spec.versions as JsonObject[]) {
      const schema = (version.schema as JsonObject | undefined)?.openAPIV3Schema;
      if (schema) this.crds.set(`${spec.group as string}/${version.name as string}/${kind}`, schema as JsonObject);
    }
  }

  /** `path: message` lines for what is wrong with `object`; one line when no schema knows its kind. */
  problems(object: KubeObject): string[] {
    const key = `${object.apiVersion}/${object.kind}`;
    const validate = this.validatorFor(key);
    if (!validate) return [`no schema for ${key}`];
    if (validate(object)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '/'}: ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
  }

  private validatorFor(key: string): ValidateFunction | undefined {
    const known = this.validators.get(key);
    if (known) return known;
    let schema: JsonObject;
    const crd = this.crds.get(key);
    if (crd) {
      const { metadata: _metadata, status: _status, ...properties } = (crd.properties ?? {}) as JsonObject;
      const converted = convertStructuralSchema({ ...crd, properties }, key);
      schema = { ...converted, properties: { ...(converted.properties as JsonObject), metadata: { $ref: OBJECT_META } } } as JsonObject;
    } else {
      const definition = this.byKind.get(key);
      if (!definition) return undefined;
      schema = { $ref: `k8s#/definitions/${definition}` };
    }
    const validate = this.ajv.compile(schema);
    this.validators.set(key, validate);
    return validate;
  }
}

// --- the corpus ------------------------------------------------------------------------------

const CORPUS = discover();

describe('real provider corpus', () => {
  it('has entries, each pointing at its own release folder', () => {
    expect(CORPUS.length).toBeGreaterThan(0);
    for (const { file, corpus } of CORPUS) expect(file).toBe(`repository/${corpus.label}/${corpus.version}/corpus.json`);
  });

  it('the schema check finds an unknown field, a wrong type and a kind it has no schema for', () => {
    const { corpus } = CORPUS[0]!;
    const release = objectsOf(releaseText(corpus));
    const validator = new SchemaValidator();
    for (const crd of release.filter((o) => o.kind === 'CustomResourceDefinition')) validator.addCrd(crd);
    const deployment = structuredClone(release.find((o) => o.kind === 'Deployment')!) as KubeObject & { spec: { replicas?: unknown; template: { spec: { containers: JsonObject[] } } } };
    expect(validator.problems(deployment)).toEqual([]);
    deployment.spec.template.spec.containers[0]!.imagePullPolicyy = 'Always';
    deployment.spec.replicas = 'two';
    expect(validator.problems(deployment)).toEqual(expect.arrayContaining([expect.stringContaining('(imagePullPolicyy)'), expect.stringMatching(/^\/spec\/replicas: must be integer/)]));
    const crd = release.find((o) => o.kind === 'CustomResourceDefinition')!;
    const spec = crd.spec as JsonObject;
    const served = (spec.versions as JsonObject[]).find((v) => v.storage === true)!;
    const custom = { apiVersion: `${spec.group as string}/${served.name as string}`, kind: (spec.names as JsonObject).kind as string, metadata: { name: 'x' }, spec: { corpusUnknownField: true } };
    expect(validator.problems(custom).join('\n')).toContain('(corpusUnknownField)');
    expect(validator.problems({ apiVersion: 'example.com/v1', kind: 'Nothing', metadata: { name: 'x' } })).toEqual(['no schema for example.com/v1/Nothing']);
  });

  describe.each(CORPUS.map(({ corpus }) => ({ id: `${corpus.label} ${corpus.version}`, corpus })))('$id', ({ corpus }) => {
    it('the release holds as many objects as its entry says', () => {
      const objects = objectsOf(releaseText(corpus));
      expect(objects.length).toBe(corpus.objects);
      // Every variable the entry names is one the release uses.
      const used = variablesOf(releaseText(corpus));
      expect(Object.keys(corpus.variables).filter((v) => !used.includes(v))).toEqual([]);
    });

    it.skipIf(requireTool('kubectl', 'apt-get install kubectl', 'the kustomize build of a rendered corpus entry'))('builds: every object rendered and valid, and kustomize accepts the environment', async () => {
      const { repo, env } = corpusRepo(corpus);
      const r = await runCli(['build'], { cwd: repo, env });
      expect(r.code, r.stderr).toBe(0);
      const rendered = renderedObjects(path.join(repo, 'rendered/default'));
      const component = [...rendered.keys()].find((c) => c === corpus.label || c.startsWith(`${corpus.label}.`));
      expect(component, [...rendered.keys()].join(', ')).toBeDefined();
      const own = rendered.get(component!)!;
      const release = objectsOf(releaseText(corpus));
      expect(release.length).toBe(corpus.objects);
      const identity = (o: KubeObject) => `${o.kind}/${(o.metadata as JsonObject | undefined)?.name as string}`;
      // The Secrets a secret variable fills are left out (secrets.mode omit) and listed as required;
      // every other object of the release is rendered, and nothing else (the inventory record aside).
      const secretNames = Object.keys(corpus.variables).filter((v) => corpus.variables[v]!.secret);
      const carriesSecret = (o: KubeObject) => o.kind === 'Secret' && secretNames.some((v) => new RegExp(`\\$\\{\\s*${v}\\b`).test(JSON.stringify(o)));
      const omitted = release.filter(carriesSecret);
      expect(own.filter((o) => o.kind !== 'Provider').map(identity).sort()).toEqual(release.filter((o) => !carriesSecret(o)).map(identity).sort());
      if (omitted.length) {
        const required = readFileSync(path.join(repo, 'gitops/secrets/default.required.yaml'), 'utf8');
        for (const o of omitted) expect(required).toContain((o.metadata as JsonObject).name as string);
        for (const v of secretNames) expect(required).toContain(v);
        for (const v of secretNames) expect(JSON.stringify([...rendered.values()])).not.toContain(corpus.variables[v]!.example);
      }

      // Every variable substituted: no `${NAME` of the release's variables is left in what it renders.
      const names = variablesOf(releaseText(corpus));
      expect(own.filter((o) => names.some((v) => JSON.stringify(o).includes(`\${${v}`))).map(identity)).toEqual([]);

      const validator = new SchemaValidator();
      const all = [...rendered.values()].flat();
      for (const crd of all.filter((o) => o.kind === 'CustomResourceDefinition')) validator.addCrd(crd);
      const problems = all.flatMap((o) => validator.problems(o).map((p) => `${o.kind}/${(o.metadata as JsonObject | undefined)?.name as string} ${p}`));
      expect(problems).toEqual([]);

      const built = objectsOf(execFileSync('kubectl', ['kustomize', path.join(repo, 'rendered/default')], { encoding: 'utf8', maxBuffer: 256 << 20 }));
      expect(built.length).toBe(all.length);
      });
  });
});
