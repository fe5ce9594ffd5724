/**
 * The parts of a provider CR the CRD schema leaves open: `metadata` (the CRD says only
 * `type: object`; the API server validates ObjectMeta itself), `status` (written by the operator,
 * never by users) and the identity fields `apiVersion` and `kind`.
 */
import { isJsonObject } from '../../manifest/object.js';
import { OPERATOR_API_VERSION, type ProviderKind } from '../provider-kinds.js';
import { InternalError } from '../../errors.js';
import { convertStructuralSchema, type SchemaNode } from './convert-structural-schema.js';
import { DNS1123_LABEL_FORMAT, DNS1123_SUBDOMAIN_FORMAT } from './k8s-formats.js';
import { createIssue, describeValue, type SchemaIssue } from './schema-issue.js';

const STRING_MAP: SchemaNode = { type: 'object', additionalProperties: { type: 'string' } };

/**
 * ObjectMeta as a provider CR may carry it. Name and namespace are required (the operator's kinds
 * are namespaced and capi-render renders into the CR's namespace); labels and annotations are string
 * maps. The other ObjectMeta fields are accepted loosely so an object exported from a cluster still
 * loads; any other key is an unknown field (a typo such as `lables`).
 */
const METADATA_SCHEMA: SchemaNode = {
  type: 'object',
  required: ['name', 'namespace'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', format: DNS1123_SUBDOMAIN_FORMAT },
    namespace: { type: 'string', format: DNS1123_LABEL_FORMAT },
    labels: STRING_MAP,
    annotations: STRING_MAP,
    generateName: { type: 'string' },
    uid: { type: 'string' },
    resourceVersion: { type: 'string' },
    generation: { type: 'integer' },
    selfLink: { type: 'string' },
    creationTimestamp: {},
    deletionTimestamp: {},
    deletionGracePeriodSeconds: { type: 'integer' },
    finalizers: { type: 'array', items: { type: 'string' } },
    ownerReferences: { type: 'array', items: { type: 'object' } },
    managedFields: { type: 'array', items: { type: 'object' } },
  },
};

/**
 * Builds the JSON Schema of a whole provider CR from the CRD's openAPIV3Schema: the converted
 * schema with `metadata` replaced by {@link METADATA_SCHEMA}, and `apiVersion`, `kind` and `status`
 * accepted as anything (they are {@link checkEnvelope}'s; status content is not the user's to validate).
 * The result does not depend on the kind, so kinds with equal spec schemas share one compiled
 * validator.
 */
export function buildProviderJsonSchema(openApiSchema: unknown, where: string): SchemaNode {
  if (
    !isJsonObject(openApiSchema) ||
    !isJsonObject(openApiSchema.properties) ||
    !isJsonObject(openApiSchema.properties.spec)
  ) {
    throw new InternalError(`${where}: openAPIV3Schema has no spec properties`);
  }
  // status is left out before conversion: its schema (and any CEL rule in it) never applies to input.
  const { status: _status, ...properties } = openApiSchema.properties;
  const converted = convertStructuralSchema({ ...openApiSchema, properties }, where);
  const convertedProperties = converted.properties as Record<string, SchemaNode>;
  return {
    ...converted,
    required: [...new Set([...(Array.isArray(converted.required) ? converted.required : []), 'metadata'])],
    // apiVersion and kind are checked by checkEnvelope alone, so a wrong value is one issue, not two.
    properties: { ...convertedProperties, apiVersion: {}, kind: {}, metadata: METADATA_SCHEMA, status: {} },
  };
}

/**
 * Checks what the JSON Schema cannot say without depending on the kind: `apiVersion` is the
 * operator's v1alpha2, `kind` is the one asked for, and `status` is absent.
 */
export function checkEnvelope(kind: ProviderKind, object: Record<string, unknown>): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  for (const [field, expected] of [
    ['apiVersion', OPERATOR_API_VERSION],
    ['kind', kind],
  ] as const) {
    const value = object[field];
    if (value === undefined)
      issues.push(createIssue([field], 'required', `required field is missing (expected ${JSON.stringify(expected)})`));
    else if (value !== expected)
      issues.push(createIssue([field], 'const', `must be ${JSON.stringify(expected)}, got ${describeValue(value)}`));
  }
  if (object.status !== undefined) {
    issues.push(
      createIssue(
        ['status'],
        'status-not-allowed',
        'must not be set: status is written by the operator, remove it from the declaration',
      ),
    );
  }
  return issues;
}
