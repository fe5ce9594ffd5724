/**
 * Schema validation of provider CRs (operator.cluster.x-k8s.io/v1alpha2) against the operator's
 * CRDs plus their CEL rules. See {@link createProviderSchemaValidator}.
 */
export { createProviderSchemaValidator, PROVIDER_SCHEMA_VERSION } from './provider-schema-validator.js';
export type { ProviderSchemaValidator, ProviderSchemaValidatorOptions } from './provider-schema-validator.js';
export { formatFieldPath } from './schema-issue.js';
export type { SchemaIssue, SchemaRule } from './schema-issue.js';
export { recogniseCelRule } from './cel-rules.js';
export type { CelCheck, CelCheckKind } from './cel-rules.js';
