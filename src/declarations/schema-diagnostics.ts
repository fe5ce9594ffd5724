/**
 * ajv errors of capi-render's own file formats (capi-render.yaml, overlay.yaml) as located
 * diagnostics: one per problem, at the offending key or value.
 */
import type { ErrorObject } from 'ajv';
import { error, type Diagnostic, type DiagnosticCode } from '../errors.js';
import type { SourceDocument } from './yaml-document.js';
import { suggestField } from './schema/suggest-field.js';

/**
 * `schema` (the root the errors were reported against) lets an unknown key be answered with the
 * closest declared one: `gitops.flavor is not a known setting; did you mean "flavour"?`.
 */
export function schemaDiagnostics(
  errors: readonly ErrorObject[],
  doc: SourceDocument,
  code: DiagnosticCode,
  schema?: object,
): Diagnostic[] {
  const seen = new Set<string>();
  const out: Diagnostic[] = [];
  for (const e of errors) {
    // anyOf reports each failed branch and then itself; the summary line is enough.
    if (
      e.keyword !== 'anyOf' &&
      e.keyword !== 'oneOf' &&
      errors.some(
        (o) => (o.keyword === 'anyOf' || o.keyword === 'oneOf') && e.schemaPath.startsWith(`${o.schemaPath}/`),
      )
    )
      continue;
    const path = e.instancePath
      .split('/')
      .slice(1)
      .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let message = e.message ?? 'is invalid';
    let target: 'key' | 'value' = 'value';
    if (e.keyword === 'additionalProperties') {
      const key = String((e.params as { additionalProperty: string }).additionalProperty);
      path.push(key);
      const known = Object.keys(declaredProperties(schema, e.schemaPath));
      const guess = key === '<<' ? undefined : suggestField(key, known);
      message = `is not a known setting${guess ? `; did you mean "${guess}"?` : known.length > 0 && known.length <= 12 ? ` (known: ${known.join(', ')})` : ''}`;
      target = 'key';
    } else if (e.keyword === 'required') {
      message = `needs ${(e.params as { missingProperty: string }).missingProperty}`;
    } else if (e.keyword === 'const') {
      message = `must be ${JSON.stringify((e.params as { allowedValue: unknown }).allowedValue)}`;
    } else if (e.keyword === 'enum') {
      // A misspelt choice is answered like a misspelt key: with the closest allowed value.
      const allowed = ((e.params as { allowedValues: unknown[] }).allowedValues ?? []).map(String);
      const given = valueAt(doc.value, path);
      const guess = typeof given === 'string' ? suggestField(given, allowed) : undefined;
      message = `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}${guess ? `; did you mean "${guess}"?` : ''}`;
    } else if (e.keyword === 'anyOf') {
      message = 'must be a string or {fromEnv: NAME}';
    } else if (e.keyword === 'oneOf') {
      message = 'must set exactly one of the alternatives (e.g. patch or path)';
    } else if (e.keyword === 'propertyNames') {
      message = 'has a key that is not a valid variable name';
    }
    const field = path.join('.') || '(top level)';
    const key = `${field}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(error(code, `${field} ${message}`, { file: doc.file, field, ...doc.locate(path, target) }));
  }
  return out;
}

/** The value at `path` of a parsed document (ajv reports the path only, unless verbose). */
function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path)
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined;
  return node;
}

/** The `properties` of the schema object that holds the failing `additionalProperties` (found by its schema path). */
function declaredProperties(schema: object | undefined, schemaPath: string): Record<string, unknown> {
  let node: unknown = schema;
  for (const segment of schemaPath.replace(/^#\//, '').split('/').slice(0, -1)) {
    if (typeof node !== 'object' || node === null) return {};
    node = (node as Record<string, unknown>)[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  const properties = (node as { properties?: unknown } | undefined)?.properties;
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : {};
}
