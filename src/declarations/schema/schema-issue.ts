/**
 * The result type of provider-CR schema validation: one {@link SchemaIssue} per problem, with the
 * JSON path of the offending value, a closed rule name tests can assert on, and a one-line message
 * that names the field in dotted form. Also the helpers that format paths and values for messages
 * and the total order issues are returned in.
 */

/**
 * Closed set of schema rules.
 * - `type`, `required`, `enum`, `minimum`/`maximum` (exclusive variants included), `pattern`,
 *   `format`, `min-length`/`max-length`, `min-items`/`max-items`, `min-properties`/`max-properties`,
 *   `unique-items`, `multiple-of`: the OpenAPI keyword of the same name failed.
 * - `unknown-field`: a field the schema does not declare (Kubernetes would prune it silently).
 * - `one-of`: a value matches none (or, for oneOf, more than one) of the allowed forms.
 * - `list-map-key`: an `x-kubernetes-list-type: map` list has two entries with the same key.
 * - `cel`: an `x-kubernetes-validations` rule of the CRD failed; the message is the CRD's own.
 * - `const`: `apiVersion` or `kind` is not the one the validator was asked for.
 * - `status-not-allowed`: the CR sets `status`, which only the operator writes.
 * - `invalid`: any other schema keyword (none of today's CRDs use one).
 */
export type SchemaRule =
  | 'type'
  | 'required'
  | 'unknown-field'
  | 'enum'
  | 'const'
  | 'minimum'
  | 'maximum'
  | 'pattern'
  | 'format'
  | 'min-length'
  | 'max-length'
  | 'min-items'
  | 'max-items'
  | 'min-properties'
  | 'max-properties'
  | 'unique-items'
  | 'multiple-of'
  | 'one-of'
  | 'list-map-key'
  | 'cel'
  | 'status-not-allowed'
  | 'invalid';

/** One schema problem of one object. */
export interface SchemaIssue {
  /**
   * JSON path of the offending value inside the object, e.g. `['spec','deployment','replicas']`;
   * for an unknown field the path of that field's key, for a missing field the path it should have.
   */
  path: (string | number)[];
  rule: SchemaRule;
  /** One line naming the field in dotted form, e.g. `spec.deployment.replicas: must be integer, got string "two"`. */
  message: string;
}

const PLAIN_SEGMENT = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * Formats a path the way people write fields: `spec.patches[0].target`, with keys that are not
 * identifiers quoted (`metadata.annotations["helm.sh/hook"]`). The empty path is `(object)`.
 */
export function formatFieldPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(object)';
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_SEGMENT.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}

const MAX_SHOWN_STRING = 60;

/**
 * Describes a value for "got …" in messages: its JSON type and, for scalars, the value itself
 * (strings are cut at 60 characters so a long manifest patch does not flood the terminal).
 */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  switch (typeof value) {
    case 'string': {
      const shown = value.length > MAX_SHOWN_STRING ? `${value.slice(0, MAX_SHOWN_STRING)}…` : value;
      return `string ${JSON.stringify(shown)}`;
    }
    case 'number':
      return `${Number.isInteger(value) ? 'integer' : 'number'} ${value}`;
    case 'boolean':
      return `boolean ${value}`;
    case 'object':
      return 'object';
    default:
      return typeof value;
  }
}

/** Builds an issue whose message is the dotted path followed by `detail`. */
export function createIssue(path: (string | number)[], rule: SchemaRule, detail: string): SchemaIssue {
  return { path, rule, message: `${formatFieldPath(path)}: ${detail}` };
}

/**
 * Total order over issues: by path (segment-wise; numbers numerically, before strings), then by
 * rule, then by message, so output never depends on the order ajv happened to report.
 */
export function compareIssues(a: SchemaIssue, b: SchemaIssue): number {
  const common = Math.min(a.path.length, b.path.length);
  for (let i = 0; i < common; i++) {
    const order = compareSegments(a.path[i]!, b.path[i]!);
    if (order !== 0) return order;
  }
  if (a.path.length !== b.path.length) return a.path.length - b.path.length;
  return compareStrings(a.rule, b.rule) || compareStrings(a.message, b.message);
}

function compareSegments(a: string | number, b: string | number): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  if (typeof a === 'number') return -1;
  if (typeof b === 'number') return 1;
  return compareStrings(a, b);
}

function compareStrings(a: string, b: string): number {
  // Code-unit order, not localeCompare: the order must not depend on the machine's locale.
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Sorts issues with {@link compareIssues} and drops exact duplicates; returns a new array. */
export function sortIssues(issues: readonly SchemaIssue[]): SchemaIssue[] {
  const sorted = [...issues].sort(compareIssues);
  return sorted.filter((issue, i) => i === 0 || compareIssues(sorted[i - 1]!, issue) !== 0);
}
