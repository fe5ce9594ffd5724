/**
 * Converts a Kubernetes structural schema (a CRD's openAPIV3Schema) into JSON Schema for ajv 8.
 * Pure: the input is never modified and the output shares no objects with it.
 *
 * Design notes: docs/internals.md "declarations/schema/convert-structural-schema.ts".
 */
import { InternalError } from '../../errors.js';
import { isJsonObject, type JsonObject } from '../../manifest/object.js';
import { compileCelValidation } from './cel-rules.js';
import { CRD_FORMATS } from './k8s-formats.js';

/** A JSON Schema node as ajv reads it. */
export type SchemaNode = { [keyword: string]: unknown };

/** Custom ajv keyword holding the CelCheck[] of an object node. */
export const CEL_KEYWORD = 'x-capi-cel';
/** Custom ajv keyword holding the key fields of an `x-kubernetes-list-type: map` list. */
export const LIST_MAP_KEYS_KEYWORD = 'x-capi-list-map-keys';

/** Keywords copied unchanged: their OpenAPI and JSON Schema meanings agree. */
const COPIED = new Set([
  'type',
  'enum',
  'required',
  'minimum',
  'maximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
]);
/** Keywords with no effect on validation here. */
const DROPPED = new Set([
  'description',
  'default',
  'example',
  'title',
  'externalDocs',
  // Merge strategy only; it does not change what is valid.
  'x-kubernetes-map-type',
]);
/** Keywords read by {@link convertStructuralSchema} itself. */
const HANDLED = new Set([
  'properties',
  'items',
  'additionalProperties',
  'anyOf',
  'allOf',
  'oneOf',
  'not',
  'format',
  'nullable',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'x-kubernetes-int-or-string',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-validations',
]);

/**
 * Converts one structural-schema node (and everything under it). `where` names the node in
 * InternalError messages, e.g. `CoreProvider.spec.fetchConfig`.
 */
export function convertStructuralSchema(node: unknown, where: string): SchemaNode {
  if (!isJsonObject(node)) throw new InternalError(`schema node at ${where} is not an object`);
  const out: SchemaNode = {};
  for (const [keyword, value] of Object.entries(node)) {
    if (COPIED.has(keyword)) out[keyword] = structuredClone(value);
    else if (!DROPPED.has(keyword) && !HANDLED.has(keyword)) {
      throw new InternalError(`unsupported structural-schema keyword ${JSON.stringify(keyword)} at ${where}`);
    }
  }
  convertChildren(node, out, where);
  convertNumericBounds(node, out, where);
  if (typeof node.format === 'string' && CRD_FORMATS.includes(node.format)) out.format = node.format;
  if (node['x-kubernetes-int-or-string'] === true) {
    out.type = ['integer', 'string'];
    if (isCanonicalIntOrString(node.anyOf)) delete out.anyOf;
  }
  if (node.nullable === true) addNull(out);
  if (
    isObjectNode(node) &&
    node['x-kubernetes-preserve-unknown-fields'] !== true &&
    out.additionalProperties === undefined
  ) {
    out.additionalProperties = false;
  }
  convertListType(node, out, where);
  if (node['x-kubernetes-validations'] !== undefined) {
    const entries = node['x-kubernetes-validations'];
    if (!Array.isArray(entries)) throw new InternalError(`x-kubernetes-validations at ${where} is not a list`);
    const declared = isJsonObject(node.properties) ? Object.keys(node.properties) : [];
    out[CEL_KEYWORD] = entries.map((entry) => compileCelValidation(entry, declared, where));
  }
  return out;
}

function convertChildren(node: JsonObject, out: SchemaNode, where: string): void {
  if (node.properties !== undefined) {
    if (!isJsonObject(node.properties)) throw new InternalError(`properties at ${where} is not an object`);
    out.properties = Object.fromEntries(
      Object.entries(node.properties).map(([name, child]) => [
        name,
        convertStructuralSchema(child, `${where}.${name}`),
      ]),
    );
  }
  if (node.items !== undefined) out.items = convertStructuralSchema(node.items, `${where}[]`);
  if (typeof node.additionalProperties === 'boolean') out.additionalProperties = node.additionalProperties;
  else if (node.additionalProperties !== undefined) {
    out.additionalProperties = convertStructuralSchema(node.additionalProperties, `${where}{}`);
  }
  for (const combinator of ['anyOf', 'allOf', 'oneOf'] as const) {
    const list = node[combinator];
    if (list === undefined) continue;
    if (!Array.isArray(list)) throw new InternalError(`${combinator} at ${where} is not a list`);
    out[combinator] = list.map((child, i) => convertStructuralSchema(child, `${where}(${combinator}[${i}])`));
  }
  if (node.not !== undefined) out.not = convertStructuralSchema(node.not, `${where}(not)`);
}

function convertNumericBounds(node: JsonObject, out: SchemaNode, where: string): void {
  // OpenAPI 3.0 makes exclusiveMinimum a flag on minimum; JSON Schema 2019+ makes it the bound.
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (node[flag] === undefined || node[flag] === false) continue;
    if (node[flag] !== true || typeof node[bound] !== 'number') {
      throw new InternalError(`${flag} at ${where} must be true together with a numeric ${bound}`);
    }
    out[flag] = node[bound];
    delete out[bound];
  }
}

function convertListType(node: JsonObject, out: SchemaNode, where: string): void {
  const listType = node['x-kubernetes-list-type'];
  if (listType === undefined || listType === 'atomic') return;
  if (listType === 'set') {
    // The API server rejects duplicate entries of a set list.
    out.uniqueItems = true;
    return;
  }
  const keys = node['x-kubernetes-list-map-keys'];
  if (listType !== 'map' || !Array.isArray(keys) || keys.length === 0 || !keys.every((k) => typeof k === 'string')) {
    throw new InternalError(`unsupported x-kubernetes-list-type ${JSON.stringify(listType)} at ${where}`);
  }
  out[LIST_MAP_KEYS_KEYWORD] = [...keys];
}

function isObjectNode(node: JsonObject): boolean {
  return node.type === 'object' || (node.type === undefined && node.properties !== undefined);
}

function isCanonicalIntOrString(anyOf: unknown): boolean {
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return false;
  const types = anyOf.map((branch) =>
    isJsonObject(branch) && Object.keys(branch).length === 1 ? branch.type : undefined,
  );
  return types.includes('integer') && types.includes('string');
}

function addNull(out: SchemaNode): void {
  if (typeof out.type === 'string') out.type = [out.type, 'null'];
  else if (Array.isArray(out.type) && !out.type.includes('null')) out.type = [...out.type, 'null'];
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
}
