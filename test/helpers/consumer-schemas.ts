/**
 * Validates generated Argo CD and Flux objects against the real CRD schemas of the releases the
 * delivery reference was read at (test/fixtures/crds, PROVENANCE.md): Argo CD v3.5.1, source-controller
 * v1.9.1, kustomize-controller v1.9.4. The openAPIV3Schema is converted with capi-render's own
 * structural-schema converter (unknown fields are errors, as the API server's field validation
 * `Strict` makes them). The CRDs' two CEL rules are left to the tests, which check them by hand.
 */
import { Ajv } from 'ajv';
import jsYaml from 'js-yaml';
import { convertStructuralSchema } from '../../src/declarations/schema/convert-structural-schema.js';
import { addKubernetesFormats } from '../../src/declarations/schema/k8s-formats.js';
import type { JsonObject } from 'capi-render';
import { isJsonObject } from '../../src/manifest/object.js';
import { fixtureText } from './fixtures.js';

const CRDS: Record<string, string> = {
  'argoproj.io/v1alpha1/Application': 'crds/argo-cd-v3.5.1-application-crd.yaml.gz',
  'argoproj.io/v1alpha1/ApplicationSet': 'crds/argo-cd-v3.5.1-applicationset-crd.yaml.gz',
  'source.toolkit.fluxcd.io/v1/OCIRepository': 'crds/source-controller-v1.9.1-ocirepositories.yaml.gz',
  'source.toolkit.fluxcd.io/v1/GitRepository': 'crds/source-controller-v1.9.1-gitrepositories.yaml.gz',
  'kustomize.toolkit.fluxcd.io/v1/Kustomization': 'crds/kustomize-controller-v1.9.4-kustomizations.yaml.gz',
};

const METADATA = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$' },
    namespace: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' },
    labels: { type: 'object', additionalProperties: { type: 'string' } },
    annotations: { type: 'object', additionalProperties: { type: 'string' } },
    finalizers: { type: 'array', items: { type: 'string' } },
  },
};

const validators = new Map<string, ReturnType<Ajv['compile']>>();
let ajv: Ajv | undefined;

/** The kinds this helper knows, as `apiVersion/kind`. */
export const CONSUMER_KINDS = Object.keys(CRDS);

/** Schema problems of `object` against its CRD (`path: message` lines); throws for a kind without a CRD here. */
export function consumerSchemaProblems(object: unknown): string[] {
  if (!isJsonObject(object)) return ['not an object'];
  const key = `${object.apiVersion}/${object.kind}`;
  const validate = validatorFor(key);
  if (validate(object)) return [];
  return (validate.errors ?? []).map(
    (e) =>
      `${e.instancePath || '/'}: ${e.message}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
  );
}

function validatorFor(key: string): ReturnType<Ajv['compile']> {
  let validate = validators.get(key);
  if (validate) return validate;
  const file = CRDS[key];
  if (!file) throw new Error(`no CRD for ${key} in test/fixtures/crds`);
  const [group, version, kind] = key.split('/') as [string, string, string];
  const crd = jsYaml.load(fixtureText(file), { schema: jsYaml.CORE_SCHEMA }) as JsonObject;
  const spec = crd.spec as JsonObject;
  if (spec.group !== group || (spec.names as JsonObject).kind !== kind)
    throw new Error(`${file} is not the CRD of ${key}`);
  const served = (spec.versions as JsonObject[]).find((v) => v.name === version);
  if (!served) throw new Error(`${file} has no version ${version}`);
  const openApi = withoutCel((served.schema as JsonObject).openAPIV3Schema) as JsonObject;
  const { status: _status, metadata: _metadata, ...properties } = openApi.properties as JsonObject;
  const converted = convertStructuralSchema({ ...openApi, properties }, key);
  const schema = {
    ...converted,
    required: [...new Set([...((converted.required as string[] | undefined) ?? []), 'apiVersion', 'kind', 'metadata'])],
    properties: {
      ...(converted.properties as object),
      apiVersion: { const: `${group}/${version}` },
      kind: { const: kind },
      metadata: METADATA,
    },
  };
  ajv ??= createAjv();
  validate = ajv.compile(schema);
  validators.set(key, validate);
  return validate;
}

function withoutCel(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(withoutCel);
  if (!isJsonObject(node)) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== 'x-kubernetes-validations')
      .map(([k, v]) => [k, withoutCel(v)]),
  );
}

function createAjv(): Ajv {
  const instance = new Ajv({
    allErrors: true,
    strict: true,
    allowUnionTypes: true,
    validateSchema: false,
    code: { optimize: false },
  });
  addKubernetesFormats(instance);
  // List-map key uniqueness is not what these tests are about; accept the keyword.
  instance.addKeyword({ keyword: 'x-capi-list-map-keys', schemaType: 'array' });
  return instance;
}
