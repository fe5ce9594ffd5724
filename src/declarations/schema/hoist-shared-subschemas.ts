/**
 * Moves sub-schemas that occur more than once into `$defs` and references them, so ajv compiles
 * each once. The operator CRDs repeat large subtrees (the whole Deployment schema under
 * `deployment` and `additionalDeployments`, the pod-affinity term eight times): hoisting them makes
 * the compiled code a fraction of the size and compilation several times faster. Validation results
 * are unchanged. Pure: the input is not modified.
 */
import type { SchemaNode } from './convert-structural-schema.js';

/** Sub-schemas whose canonical JSON is shorter than this are left inline: a call costs more than it saves. */
const MIN_HOISTED_LENGTH = 400;

/** Keywords whose values are sub-schemas reached by walking the data (not alternatives of it). */
const CHILD_KEYWORDS = ['properties', 'items', 'additionalProperties'] as const;

/**
 * Returns `schema` with every repeated sub-schema (of at least {@link MIN_HOISTED_LENGTH}
 * characters of canonical JSON) replaced by `{ $ref: '#/$defs/sN' }`. Names are numbered in the
 * order of a depth-first walk, so the output is deterministic. Sub-schemas under anyOf/oneOf/allOf/
 * not are never hoisted: errors inside a referenced schema carry the reference's own schema path,
 * which would defeat the collapsing of combinator errors into one issue.
 */
export function hoistSharedSubschemas(schema: SchemaNode): SchemaNode {
  const keys = new Map<SchemaNode, string>();
  const counts = new Map<string, number>();
  forEachChild(schema, function count(node) {
    const key = canonicalKey(node, keys);
    counts.set(key, (counts.get(key) ?? 0) + 1);
    forEachChild(node, count);
  });
  const defs: Record<string, SchemaNode> = {};
  const names = new Map<string, string>();

  function rewrite(node: SchemaNode): SchemaNode {
    const out: SchemaNode = { ...node };
    for (const keyword of CHILD_KEYWORDS) {
      const value = node[keyword];
      if (keyword === 'properties' && isSchemaNode(value)) {
        out.properties = Object.fromEntries(
          Object.entries(value).map(([name, child]) => [name, visit(child as SchemaNode)]),
        );
      } else if (keyword !== 'properties' && isSchemaNode(value)) {
        out[keyword] = visit(value);
      }
    }
    return out;
  }

  function visit(node: SchemaNode): SchemaNode {
    const key = canonicalKey(node, keys);
    if ((counts.get(key) ?? 0) < 2 || key.length < MIN_HOISTED_LENGTH) return rewrite(node);
    let name = names.get(key);
    if (name === undefined) {
      name = `s${names.size}`;
      names.set(key, name);
      defs[name] = rewrite(node);
    }
    return { $ref: `#/$defs/${name}` };
  }

  const root = rewrite(schema);
  return names.size === 0 ? root : { ...root, $defs: defs };
}

function forEachChild(node: SchemaNode, fn: (child: SchemaNode) => void): void {
  for (const keyword of CHILD_KEYWORDS) {
    const value = node[keyword];
    if (keyword === 'properties' && isSchemaNode(value))
      Object.values(value).forEach((child) => isSchemaNode(child) && fn(child));
    else if (keyword !== 'properties' && isSchemaNode(value)) fn(value);
  }
}

/**
 * Canonical JSON of a node (sorted keys), memoised per object: each subtree's text is built once
 * from its children's, instead of re-serialising every subtree from scratch.
 */
function canonicalKey(value: unknown, memo: Map<SchemaNode, string>): string {
  if (Array.isArray(value)) return `[${value.map((v) => canonicalKey(v, memo)).join(',')}]`;
  if (!isSchemaNode(value)) return JSON.stringify(value);
  const known = memo.get(value);
  if (known !== undefined) return known;
  const body = Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalKey(value[k], memo)}`)
    .join(',');
  const key = `{${body}}`;
  memo.set(value, key);
  return key;
}

function isSchemaNode(value: unknown): value is SchemaNode {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
