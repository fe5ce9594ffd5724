/**
 * Turns ajv's error list (compiled with `allErrors` and `verbose`) into {@link SchemaIssue}s: one
 * issue per problem, the path taken from `instancePath` plus the missing or unknown property, and a
 * message that says what was expected. The branch errors under a failed anyOf/oneOf are collapsed
 * into that one combinator issue.
 */
import type { ErrorObject } from 'ajv';
import { isJsonObject } from '../../manifest/object.js';
import { evaluateCelCheck, type CelCheck } from './cel-rules.js';
import { CEL_KEYWORD, LIST_MAP_KEYS_KEYWORD } from './convert-structural-schema.js';
import { FORMAT_DESCRIPTIONS } from './k8s-formats.js';
import { findDuplicateListEntries } from './list-map-keys.js';
import { createIssue, describeValue, type SchemaIssue, type SchemaRule } from './schema-issue.js';
import { suggestField } from './suggest-field.js';

const SIMPLE_RULES: Record<string, SchemaRule> = {
  minimum: 'minimum',
  exclusiveMinimum: 'minimum',
  maximum: 'maximum',
  exclusiveMaximum: 'maximum',
  minLength: 'min-length',
  maxLength: 'max-length',
  minItems: 'min-items',
  maxItems: 'max-items',
  minProperties: 'min-properties',
  maxProperties: 'max-properties',
  multipleOf: 'multiple-of',
};

/** Converts ajv errors for `root` (the validated object) into issues, unsorted. */
export function convertAjvErrors(errors: readonly ErrorObject[], root: unknown): SchemaIssue[] {
  // A failed anyOf/oneOf reports every branch's errors too; they say nothing the combinator does not.
  const combinators = errors
    .filter((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    .map((e) => `${e.schemaPath}/`);
  const kept = errors.filter((e) => !combinators.some((prefix) => e.schemaPath.startsWith(prefix)));
  return kept.flatMap((e) => convertError(e, instancePathSegments(e.instancePath, root)));
}

function convertError(e: ErrorObject, path: (string | number)[]): SchemaIssue[] {
  const params = e.params as Record<string, unknown>;
  const got = describeValue(e.data);
  switch (e.keyword) {
    case 'type':
      return [createIssue(path, 'type', `must be ${[params.type].flat().join(' or ')}, got ${got}`)];
    case 'required':
      return [createIssue([...path, String(params.missingProperty)], 'required', 'required field is missing')];
    case 'additionalProperties':
      return [unknownField(path, String(params.additionalProperty), e.parentSchema)];
    case 'enum':
      return [
        createIssue(
          path,
          'enum',
          `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}, got ${got}`,
        ),
      ];
    case 'const':
      return [createIssue(path, 'const', `must be ${JSON.stringify(params.allowedValue)}, got ${got}`)];
    case 'pattern':
      return [createIssue(path, 'pattern', `must match the pattern ${String(params.pattern)}, got ${got}`)];
    case 'format': {
      const format = String(params.format);
      return [createIssue(path, 'format', `must be a ${FORMAT_DESCRIPTIONS[format] ?? `${format} value`}, got ${got}`)];
    }
    case 'uniqueItems': {
      const first = Math.min(Number(params.i), Number(params.j));
      const duplicate = Math.max(Number(params.i), Number(params.j));
      return [createIssue([...path, duplicate], 'unique-items', `duplicates item [${first}]; the list is a set`)];
    }
    case 'anyOf':
      return [createIssue(path, 'one-of', `does not match any of the allowed forms, got ${got}`)];
    case 'oneOf': {
      const detail =
        params.passingSchemas === null
          ? 'does not match any of the allowed forms'
          : 'matches more than one of the allowed forms';
      return [createIssue(path, 'one-of', `${detail}, got ${got}`)];
    }
    case CEL_KEYWORD:
      return (e.schema as CelCheck[])
        .filter((check) => !evaluateCelCheck(check, e.data))
        .map((check) => createIssue(path, 'cel', check.message));
    case LIST_MAP_KEYS_KEYWORD:
      return findDuplicateListEntries(e.data, e.schema as string[]).map((d) =>
        createIssue(
          [...path, d.index],
          'list-map-key',
          `duplicate entry: ${JSON.stringify(d.key)} is already used by entry [${d.firstIndex}]`,
        ),
      );
    default: {
      const rule = SIMPLE_RULES[e.keyword];
      if (rule) return [createIssue(path, rule, `${e.message ?? 'is invalid'}, got ${got}`)];
      return [createIssue(path, 'invalid', `${e.message ?? 'is invalid'} (schema keyword ${e.keyword})`)];
    }
  }
}

function unknownField(path: (string | number)[], field: string, parentSchema: unknown): SchemaIssue {
  const declared =
    isJsonObject(parentSchema) && isJsonObject(parentSchema.properties)
      ? Object.keys(parentSchema.properties).sort()
      : [];
  const suggestion = suggestField(field, declared);
  let detail = 'unknown field';
  if (suggestion !== undefined) detail += ` (did you mean ${JSON.stringify(suggestion)}?)`;
  else if (declared.length > 0) detail += ` (known fields: ${declared.join(', ')})`;
  else detail += ' (this object takes no fields)';
  return createIssue([...path, field], 'unknown-field', detail);
}

/** Splits a JSON Pointer into segments, making a segment a number where it indexes an array. */
function instancePathSegments(pointer: string, root: unknown): (string | number)[] {
  if (pointer === '') return [];
  const segments: (string | number)[] = [];
  let node: unknown = root;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) {
      segments.push(Number(key));
      node = node[Number(key)];
    } else {
      segments.push(key);
      node = isJsonObject(node) ? node[key] : undefined;
    }
  }
  return segments;
}
