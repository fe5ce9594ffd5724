/**
 * Real provider releases, built from their release tags (test/fixtures/PROVENANCE.md), rendered as a
 * user would install them. Every `corpus.json` under test/fixtures/repository describes one
 * provider-version: its operator CR, the object count of its components file, and the variables its
 * documentation has users set (secret ones come from the environment, `secrets.mode: omit`).
 *
 * Each is built in its own repository beside the core provider and cert-manager, and must render
 * every object of the release, each valid against its schema: the CRD of the same render for a
 * custom resource, the Kubernetes schemas of the kubernetes-models package otherwise (Kubernetes
 * v1.33); unknown fields are errors either way, as strict field validation makes them. And kustomize
 * must accept the environment as it is.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Ajv, type ValidateFunction } from 'ajv';
import jsYaml from 'js-yaml';
import * as k8s from 'kubernetes-models';
import { describe, expect, it } from 'vitest';
import { convertStructuralSchema } from '../../src/declarations/schema/convert-structural-schema.js';
import { addKubernetesFormats } from '../../src/declarations/schema/k8s-formats.js';
import type { JsonObject, JsonValue, KubeObject } from 'capi-render';
import { isJsonObject } from '../../src/manifest/object.js';
import { runCli } from '../helpers/cli.js';
import { CORPUS_REPOSITORY, type Corpus } from '../helpers/corpus.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { requireTool } from '../helpers/requirements.js';
import { suiteTempDir } from '../helpers/tmp.js';

const REPOSITORY = CORPUS_REPOSITORY;

/** Every corpus.json under the fixture repository, in path order. */
function discover(): { file: string; corpus: Corpus }[] {
  const found: { file: string; corpus: Corpus }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const child = path.join(dir, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (name === 'corpus.json')
        found.push({ file: path.relative(FIXTURES, child), corpus: JSON.parse(readFileSync(child, 'utf8')) as Corpus });
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
const objectsOf = (text: string): KubeObject[] =>
  jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA }).filter(isJsonObject) as KubeObject[];

/** The names of the `${NAME…}` variables `text` uses, sorted. */
const variablesOf = (text: string): string[] =>
  [...new Set([...text.matchAll(/\$\{\s*([A-Za-z_][A-Za-z0-9_]*)/g)].map((m) => m[1]!))].sort();

/** The environment a corpus entry is rendered in: its label and version, as a folder name. */
const environmentOf = (corpus: Corpus) => `${corpus.label}-${corpus.version.replace(/\./g, '-')}`;

/** The environment variable that holds a secret variable's example value for one entry. */
const envName = (corpus: Corpus, variable: string) =>
  `CORPUS_${environmentOf(corpus).replace(/-/g, '_').toUpperCase()}_${variable}`;

/**
 * One repository installing every entry's provider beside core, one environment per entry (its
 * overlay adds the provider and its documented variables), so one build renders them all and core
 * is processed once, as a fleet's build would.
 */
function corpusFleet(entries: readonly Corpus[], dir: string): { repo: string; env: Record<string, string> } {
  const env: Record<string, string> = {};
  const files: Record<string, string> = {
    'capi-render.yaml': configYaml('secrets:\n  mode: omit\n'),
    'providers/core.yaml': CORE(),
  };
  for (const corpus of entries) {
    const variables: string[] = [];
    for (const [name, variable] of Object.entries(corpus.variables).sort(([a], [b]) => a.localeCompare(b))) {
      if (variable.secret) {
        variables.push(`  ${name}: {fromEnv: ${envName(corpus, name)}}`);
        env[envName(corpus, name)] = variable.example;
      } else {
        variables.push(`  ${name}: ${JSON.stringify(variable.example)}`);
      }
    }
    const folder = `overlays/${environmentOf(corpus)}`;
    files[`${folder}/provider.yaml`] =
      `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${corpus.kind}\nmetadata:\n  name: ${corpus.name}\n  namespace: ${corpus.namespace}\nspec:\n  version: ${corpus.version}\n`;
    files[`${folder}/overlay.yaml`] =
      `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\n  - provider.yaml\n${variables.length ? `variables:\n${variables.join('\n')}\n` : ''}`;
  }
  return { repo: makeRepo(files, dir), env };
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

/**
 * A class of kubernetes-models: `validate()` runs the validator compiled from its Kubernetes OpenAPI
 * definition on `this`, and throws ajv's ValidationError (its `errors`, each with `message` set) when it
 * fails.
 */
interface Validated {
  prototype: { validate(this: JsonValue): void };
}

/** The model class of a kind: {@link Validated}, with its static `apiVersion` and `kind`. */
interface KubernetesModel extends Validated {
  apiVersion: string;
  kind: string;
}

/** Every class of kubernetes-models, found by walking the package's group and version namespaces (`apps.v1.Deployment`, `v1.ConfigMap`…). */
function modelClasses(): Set<Validated> {
  const classes = new Set<Validated>();
  const walk = (namespace: object) => {
    for (const value of Object.values(namespace)) {
      if (typeof value === 'function') {
        if (typeof (value as Partial<Validated>).prototype?.validate === 'function') classes.add(value as Validated);
      } else if (value !== null && typeof value === 'object') {
        walk(value as object);
      }
    }
  };
  walk(k8s);
  return classes;
}

/**
 * The model class of each kind by `apiVersion/kind`. kubernetes-models 4.5 is generated from the
 * Kubernetes v1.33.0 OpenAPI definitions, merged with older releases' for the APIs removed since.
 */
function kubernetesModels(): Map<string, KubernetesModel> {
  const byKind = new Map<string, KubernetesModel>();
  for (const validated of modelClasses()) {
    const model = validated as Validated & Partial<KubernetesModel>;
    if (typeof model.apiVersion === 'string' && typeof model.kind === 'string')
      byKind.set(`${model.apiVersion}/${model.kind}`, model as KubernetesModel);
  }
  return byKind;
}

const MODELS = kubernetesModels();

/** `key` as a JSON pointer segment, as ajv writes it in `instancePath`. */
const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** The fields `validated` reads of an object, as a sorted list: every field its definition declares. */
function fieldsRead(validated: Validated): string {
  const read = new Set<string>();
  const note = (key: string | symbol) => {
    if (typeof key === 'string') read.add(key);
  };
  try {
    validated.prototype.validate.call(
      new Proxy(
        {},
        {
          get: (t, key, receiver) => (note(key), Reflect.get(t, key, receiver)),
          has: (t, key) => (note(key), Reflect.has(t, key)),
        },
      ),
    );
  } catch (error) {
    // An empty object misses required fields: only what was read matters here. Anything but a
    // validation failure is a broken model, not a finding.
    if (!(error as { errors?: unknown }).errors) throw error;
  }
  return [...read].sort().join(',');
}

/** What is wrong with a field value, given where it is: `path: message` lines. */
type FieldCheck = (value: JsonValue, at: string) => string[];
const typed =
  (type: 'string' | 'boolean'): FieldCheck =>
  (value, at) =>
    typeof value === type || value === null ? [] : [`${at}: must be ${type}`];
const stringList: FieldCheck = (value, at) =>
  value === null || (Array.isArray(value) && value.every((v) => typeof v === 'string'))
    ? []
    : [`${at}: must be array of string`];
const validationRules: FieldCheck = (value, at) =>
  value === null
    ? []
    : Array.isArray(value)
      ? value.flatMap((rule, i) => modelProblems(k8s.apiextensionsK8sIo.v1.ValidationRule, rule, `${at}/${i}`))
      : [`${at}: must be array`];
/** A JSONSchemaProps-or-something field (`items`, `additionalProperties`, `additionalItems`): its object is a JSONSchemaProps. */
const nestedSchema =
  (props: Validated): FieldCheck =>
  (value, at) =>
    isJsonObject(value) ? modelProblems(props, value, at) : [];

/**
 * What kubernetes-models' validators leave unchecked, checked here (`field → check`) on each object
 * that a validator read as one of the definitions below: the fields it read are exactly that
 * definition's (see {@link fieldsRead}), and no other definition reads the same (the self-check says so).
 * - Fields left out: its generator drops every `description` and `x-…` key from the definitions as if
 *   it were an annotation, so a field of one of those names is neither checked nor read (its
 *   TypeScript types still declare it): `description` in JSONSchemaProps,
 *   CustomResourceColumnDefinition, ExternalDocumentation and PriorityClass, and JSONSchemaProps'
 *   `x-kubernetes-…` fields.
 * - JSONSchemaProps' `items`, `additionalProperties` and `additionalItems`: a schema or an array of
 *   them, a schema or a boolean. Their definitions (JSONSchemaPropsOrArray, JSONSchemaPropsOrBool)
 *   say only "an object", so the validator does not look into the schema of a list's items or a
 *   map's values; here it is a JSONSchemaProps.
 */
const CHECKED_HERE_FOR: [Validated, Record<string, FieldCheck>][] = (() => {
  const description = { description: typed('string') };
  const jsonSchemaProps = (props: Validated) => ({
    ...description,
    'x-kubernetes-embedded-resource': typed('boolean'),
    'x-kubernetes-int-or-string': typed('boolean'),
    'x-kubernetes-list-map-keys': stringList,
    'x-kubernetes-list-type': typed('string'),
    'x-kubernetes-map-type': typed('string'),
    'x-kubernetes-preserve-unknown-fields': typed('boolean'),
    items: nestedSchema(props),
    additionalProperties: nestedSchema(props),
    additionalItems: nestedSchema(props),
  });
  const { v1, v1beta1 } = k8s.apiextensionsK8sIo;
  return [
    [v1beta1.JSONSchemaProps, jsonSchemaProps(v1beta1.JSONSchemaProps)],
    [v1beta1.CustomResourceColumnDefinition, description],
    [v1beta1.ExternalDocumentation, description],
    [k8s.schedulingK8sIo.v1beta1.PriorityClass, description],
    [v1.JSONSchemaProps, { ...jsonSchemaProps(v1.JSONSchemaProps), 'x-kubernetes-validations': validationRules }],
    [v1.CustomResourceColumnDefinition, description],
    [v1.ExternalDocumentation, description],
    [k8s.schedulingK8sIo.v1.PriorityClass, description],
  ];
})();
const CHECKED_HERE = new Map<string, Record<string, FieldCheck>>();
// Versions of a definition may read the same fields (JSONSchemaProps v1beta1 and v1): the checks
// merge, v1's (last) where both have one.
for (const [validated, fields] of CHECKED_HERE_FOR)
  CHECKED_HERE.set(fieldsRead(validated), { ...CHECKED_HERE.get(fieldsRead(validated)), ...fields });

/**
 * `path: message` lines for what is wrong with `object` under its kubernetes-models schema: what the
 * model's validator finds (types, formats, enums, required fields), and every unknown field. `at` is
 * the path of `object` in the document it is part of.
 *
 * The Kubernetes definitions leave objects open (no `additionalProperties: false`), so the validator
 * passes over a field it does not know. To make one an error, as strict field validation does, the
 * object is validated through proxies that note which fields the validator reads. It reads every
 * field its definition declares (ajv's `properties`, compiled with allErrors: no early return) and
 * every key of a map (`additionalProperties` with a schema: labels, annotations, a ConfigMap's
 * `data`); so an object of which it read something and which has a field it never read (nor
 * {@link CHECKED_HERE} checks) has an unknown field. An object it never looks into stays open, as in
 * Kubernetes: RawExtension, JSON values (a CRD schema's `default`, `example`, `enum`). The validator
 * accepts `null` for an optional field, as the API server does.
 */
function modelProblems(validated: Validated, object: JsonValue, at = ''): string[] {
  const tracked: { path: string; value: JsonObject; read: Set<string> }[] = [];
  const wrap = (value: JsonValue, path: string): JsonValue => {
    if (Array.isArray(value)) return value.map((item, i) => wrap(item, `${path}/${i}`));
    if (!isJsonObject(value)) return value;
    const target: JsonObject = {};
    for (const [key, field] of Object.entries(value)) target[key] = wrap(field, `${path}/${pointer(key)}`);
    const read = new Set<string>();
    tracked.push({ path, value, read });
    const note = (key: string | symbol) => {
      if (typeof key === 'string') read.add(key);
    };
    return new Proxy(target, {
      get: (t, key, receiver) => (note(key), Reflect.get(t, key, receiver)),
      has: (t, key) => (note(key), Reflect.has(t, key)),
    });
  };
  const problems: string[] = [];
  try {
    validated.prototype.validate.call(wrap(object, at));
  } catch (error) {
    const errors = (error as { errors?: { instancePath: string; message?: string }[] }).errors;
    if (!errors) throw error;
    problems.push(...errors.map((e) => `${at + e.instancePath || '/'}: ${e.message ?? 'invalid'}`));
  }
  for (const { path, value, read } of tracked) {
    if (read.size === 0) continue;
    const checkedHere = CHECKED_HERE.get([...read].sort().join(',')) ?? {};
    for (const [key, field] of Object.entries(value)) {
      const check = checkedHere[key];
      if (check) problems.push(...check(field, `${path}/${pointer(key)}`));
      else if (!read.has(key)) problems.push(`${path || '/'}: unknown field (${key})`);
    }
  }
  return problems;
}

/** What is wrong with a custom resource's `metadata`: ObjectMeta is checked as a ConfigMap's, a kind that needs nothing else. */
const metadataProblems = (metadata: JsonValue) =>
  modelProblems(k8s.v1.ConfigMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata });

/**
 * Validates objects against the CRDs given for custom resources (ajv over each served version's
 * openAPIV3Schema, unknown fields are errors: {@link convertStructuralSchema}), and built-in kinds
 * against kubernetes-models ({@link modelProblems}).
 */
class SchemaValidator {
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly crds = new Map<string, JsonObject>();

  constructor() {
    this.ajv = new Ajv({
      allErrors: true,
      strict: false,
      allowUnionTypes: true,
      validateSchema: false,
      code: { optimize: false },
    });
    addKubernetesFormats(this.ajv);
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
    const validate = this.crdValidator(key);
    if (validate) {
      const own = validate(object)
        ? []
        : (validate.errors ?? []).map(
            (e) =>
              `${e.instancePath || '/'}: ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
          );
      return [...own, ...(object.metadata === undefined ? [] : metadataProblems(object.metadata))];
    }
    const model = MODELS.get(key);
    return model ? modelProblems(model, object) : [`no schema for ${key}`];
  }

  private crdValidator(key: string): ValidateFunction | undefined {
    const known = this.validators.get(key);
    if (known) return known;
    const crd = this.crds.get(key);
    if (!crd) return undefined;
    const { metadata: _metadata, status: _status, ...properties } = (crd.properties ?? {}) as JsonObject;
    const converted = convertStructuralSchema({ ...crd, properties }, key);
    // metadata is ObjectMeta, checked by metadataProblems.
    const validate = this.ajv.compile({
      ...converted,
      properties: { ...(converted.properties as JsonObject), metadata: { type: 'object' } },
    });
    this.validators.set(key, validate);
    return validate;
  }
}

// --- the corpus ------------------------------------------------------------------------------

const CORPUS = discover();
const NO_KUBECTL = requireTool('kubectl', 'apt-get install kubectl', 'the kustomize build of a rendered corpus entry');

describe('real provider corpus', () => {
  // The whole corpus built once (see corpusFleet), in a folder the describe block keeps; every test
  // below reads its output.
  const fleetDir = suiteTempDir();
  let fleetBuild: Promise<{ repo: string; env: Record<string, string> }> | undefined;
  const fleet = () =>
    (fleetBuild ??= (async () => {
      const built = corpusFleet(
        CORPUS.map(({ corpus }) => corpus),
        fleetDir,
      );
      const r = await runCli(['build'], { cwd: built.repo, env: built.env });
      expect(r.code, r.stderr).toBe(0);
      return built;
    })());
  it('has entries, each pointing at its own release folder', () => {
    expect(CORPUS.length).toBeGreaterThan(0);
    for (const { file, corpus } of CORPUS)
      expect(file).toBe(`repository/${corpus.label}/${corpus.version}/corpus.json`);
  });

  it('the schema check finds an unknown field, a wrong type and a kind it has no schema for', () => {
    const { corpus } = CORPUS[0]!;
    const release = objectsOf(releaseText(corpus));
    const validator = new SchemaValidator();
    for (const crd of release.filter((o) => o.kind === 'CustomResourceDefinition')) validator.addCrd(crd);
    const deployment = structuredClone(release.find((o) => o.kind === 'Deployment')!) as KubeObject & {
      spec: { replicas?: unknown; template: { spec: { containers: JsonObject[] } } };
    };
    expect(validator.problems(deployment)).toEqual([]);
    deployment.spec.template.spec.containers[0]!.imagePullPolicyy = 'Always';
    deployment.spec.replicas = 'two';
    expect(validator.problems(deployment)).toEqual([
      '/spec/replicas: must be integer',
      '/spec/template/spec/containers/0: unknown field (imagePullPolicyy)',
    ]);
    const crd = release.find((o) => o.kind === 'CustomResourceDefinition')!;
    const spec = crd.spec as JsonObject;
    const served = (spec.versions as JsonObject[]).find((v) => v.storage === true)!;
    // What kubernetes-models' validators leave unchecked (CHECKED_HERE) is checked too: a CRD schema's own fields.
    expect(validator.problems(crd)).toEqual([]);
    const mutated = structuredClone(crd) as KubeObject & {
      spec: { versions: { schema: { openAPIV3Schema: JsonObject } }[] };
    };
    const at = `/spec/versions/${(spec.versions as JsonObject[]).indexOf(served)}/schema/openAPIV3Schema`;
    const root = mutated.spec.versions[(spec.versions as JsonObject[]).indexOf(served)]!.schema.openAPIV3Schema;
    Object.assign(root, {
      description: 1,
      'x-kubernetes-list-typ': 'atomic',
      'x-kubernetes-validations': [
        { rule: 'true', message: 'fine' },
        { rule: 'true', mesage: 'typo' },
      ],
    });
    (root.properties as JsonObject).corpusList = {
      type: 'array',
      items: { type: 'object', additionalProperties: { type: 'string', descripton: 'typo' } },
    };
    expect(validator.problems(mutated).sort()).toEqual(
      [
        `${at}/description: must be string`,
        `${at}: unknown field (x-kubernetes-list-typ)`,
        `${at}/x-kubernetes-validations/1: unknown field (mesage)`,
        `${at}/properties/corpusList/items/additionalProperties: unknown field (descripton)`,
      ].sort(),
    );
    const custom = {
      apiVersion: `${spec.group as string}/${served.name as string}`,
      kind: (spec.names as JsonObject).kind as string,
      metadata: { name: 'x', labels: { any: 'label' } },
      spec: { corpusUnknownField: true },
    };
    expect(validator.problems(custom).join('\n')).toContain('(corpusUnknownField)');
    // A custom resource's metadata is ObjectMeta: an unknown field there is found too, a label key is not one.
    const misnamed = validator.problems({ ...custom, metadata: { ...custom.metadata, labelz: {} } });
    expect(misnamed.filter((p) => p.startsWith('/metadata'))).toEqual(['/metadata: unknown field (labelz)']);
    expect(validator.problems({ apiVersion: 'example.com/v1', kind: 'Nothing', metadata: { name: 'x' } })).toEqual([
      'no schema for example.com/v1/Nothing',
    ]);
  });

  it('what the schema check adds to kubernetes-models applies to the definitions it is for only', () => {
    const named = new Set(CHECKED_HERE_FOR.map(([validated]) => validated));
    const classes = modelClasses();
    expect(classes.size).toBeGreaterThan(800);
    expect(
      [...classes].filter((validated) => !named.has(validated) && CHECKED_HERE.has(fieldsRead(validated))),
    ).toEqual([]);
  });

  it.skipIf(NO_KUBECTL)(
    'renders every entry in one build, one environment each; what every environment shares is valid',
    async () => {
      const { repo } = await fleet();
      const first = environmentOf(CORPUS[0]!.corpus);
      const rendered = renderedObjects(path.join(repo, 'rendered', first));
      const shared = [...rendered.entries()].filter(
        ([c]) => !CORPUS.some(({ corpus }) => c === corpus.label || c.startsWith(`${corpus.label}.`)),
      );
      expect(shared.map(([c]) => c).sort()).toEqual(['cert-manager', 'cluster-api']);
      const validator = new SchemaValidator();
      const all = [...rendered.values()].flat();
      for (const crd of all.filter((o) => o.kind === 'CustomResourceDefinition')) validator.addCrd(crd);
      const problems = shared
        .flatMap(([, objects]) => objects)
        .flatMap((o) =>
          validator.problems(o).map((p) => `${o.kind}/${(o.metadata as JsonObject | undefined)?.name as string} ${p}`),
        );
      expect(problems).toEqual([]);
    },
  );

  describe.each(CORPUS.map(({ corpus }) => ({ id: `${corpus.label} ${corpus.version}`, corpus })))(
    '$id',
    ({ corpus }) => {
      it('the release holds as many objects as its entry says', () => {
        const objects = objectsOf(releaseText(corpus));
        expect(objects.length).toBe(corpus.objects);
        // Every variable the entry names is one the release uses.
        const used = variablesOf(releaseText(corpus));
        expect(Object.keys(corpus.variables).filter((v) => !used.includes(v))).toEqual([]);
      });

      it.skipIf(NO_KUBECTL)(
        'builds: every object rendered and valid, and kustomize accepts the environment',
        async () => {
          const { repo } = await fleet();
          const environment = environmentOf(corpus);
          const rendered = renderedObjects(path.join(repo, 'rendered', environment));
          const component = [...rendered.keys()].find((c) => c === corpus.label || c.startsWith(`${corpus.label}.`));
          expect(component, [...rendered.keys()].join(', ')).toBeDefined();
          const own = rendered.get(component!)!;
          const release = objectsOf(releaseText(corpus));
          expect(release.length).toBe(corpus.objects);
          const identity = (o: KubeObject) => `${o.kind}/${(o.metadata as JsonObject | undefined)?.name as string}`;
          // The Secrets a secret variable fills are left out (secrets.mode omit) and listed as required;
          // every other object of the release is rendered, and nothing else (the inventory record aside).
          const secretNames = Object.keys(corpus.variables).filter((v) => corpus.variables[v]!.secret);
          const carriesSecret = (o: KubeObject) =>
            o.kind === 'Secret' && secretNames.some((v) => new RegExp(`\\$\\{\\s*${v}\\b`).test(JSON.stringify(o)));
          const omitted = release.filter(carriesSecret);
          // A Namespace several providers share is rendered once, with the first of them in install order.
          const namespaceElsewhere = (o: KubeObject) =>
            o.kind === 'Namespace' && !own.some((r) => r.kind === 'Namespace' && identity(r) === identity(o));
          expect(
            own
              .filter((o) => o.kind !== 'Provider')
              .map(identity)
              .sort(),
          ).toEqual(
            release
              .filter((o) => !carriesSecret(o) && !namespaceElsewhere(o))
              .map(identity)
              .sort(),
          );
          if (omitted.length) {
            const required = readFileSync(path.join(repo, `gitops/secrets/${environment}.required.yaml`), 'utf8');
            for (const o of omitted) expect(required).toContain((o.metadata as JsonObject).name as string);
            for (const v of secretNames) expect(required).toContain(v);
            for (const v of secretNames)
              expect(JSON.stringify([...rendered.values()])).not.toContain(corpus.variables[v]!.example);
          }

          // Every variable substituted: no `${NAME` of the release's variables is left in what it renders.
          const names = variablesOf(releaseText(corpus));
          expect(own.filter((o) => names.some((v) => JSON.stringify(o).includes(`\${${v}`))).map(identity)).toEqual([]);

          // The provider's own objects against the CRDs of the whole environment and the Kubernetes
          // schemas (what core and cert-manager render is the same in every environment: checked once below).
          const validator = new SchemaValidator();
          const all = [...rendered.values()].flat();
          for (const crd of all.filter((o) => o.kind === 'CustomResourceDefinition')) validator.addCrd(crd);
          const problems = own.flatMap((o) =>
            validator
              .problems(o)
              .map((p) => `${o.kind}/${(o.metadata as JsonObject | undefined)?.name as string} ${p}`),
          );
          expect(problems).toEqual([]);

          const built = objectsOf(
            execFileSync('kubectl', ['kustomize', path.join(repo, 'rendered', environment)], {
              encoding: 'utf8',
              maxBuffer: 256 << 20,
            }),
          );
          expect(built.length).toBe(all.length);
        },
      );
    },
  );
});
