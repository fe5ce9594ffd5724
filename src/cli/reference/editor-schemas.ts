/**
 * The JSON Schemas shipped for editors (schemas/capi-render.schema.json, schemas/overlay.schema.json,
 * schemas/lock.schema.json): the very schema objects the loaders validate with (CONFIG_SCHEMA,
 * OVERLAY_SCHEMA, LOCK_SCHEMA), copied with a
 * `description` on every setting (config-descriptions.ts, overlay-descriptions.ts) and draft-07's
 * `$schema`, an `$id` and a `title` on top. Draft-07 because it is what the loaders' Ajv validates
 * by default, and the draft every YAML language server and JSON Schema tool reads in full. Pure.
 */
import { CONFIG_DESCRIPTIONS } from '../../config/config-descriptions.js';
import { CONFIG_SCHEMA } from '../../config/config-schema.js';
import { EDITOR_SCHEMA_FILES, editorSchemaUrl, type EditorSchemaKind } from '../../config/editor-schema-url.js';
import { OVERLAY_DESCRIPTIONS } from '../../overlay/overlay-descriptions.js';
import { OVERLAY_SCHEMA } from '../../overlay/overlay-schema.js';
import { LOCK_DESCRIPTIONS, LOCK_SCHEMA } from '../../lock/lock-schema.js';

/** A JSON Schema node, as the schema modules write them. */
export type SchemaNode = { readonly [key: string]: unknown };

/** What each editor schema is made of: the loader's schema, the texts, and the file it describes. */
export const EDITOR_SCHEMA_SOURCES: Record<
  EditorSchemaKind,
  { schema: SchemaNode; descriptions: Record<string, string>; describes: string; title: string; about: string }
> = {
  config: {
    schema: CONFIG_SCHEMA,
    descriptions: CONFIG_DESCRIPTIONS,
    describes: 'capi-render.yaml',
    title: 'capi-render.yaml',
    about:
      "capi-render's repository settings: sources, cert-manager, variables, images, the secret guard, the GitOps flavour and the folders. Every field is optional.",
  },
  overlay: {
    schema: OVERLAY_SCHEMA,
    // The shared blocks' fields read as in capi-render.yaml; overlay.yaml's own texts win.
    descriptions: { ...CONFIG_DESCRIPTIONS, ...OVERLAY_DESCRIPTIONS },
    describes: 'overlays/<env>/overlay.yaml',
    title: 'capi-render overlay.yaml',
    about:
      "One environment (a management cluster) of capi-render, in kustomize's vocabulary: its bases, patches on the provider CRs, and what it overrides of capi-render.yaml.",
  },
  lock: {
    schema: LOCK_SCHEMA,
    descriptions: LOCK_DESCRIPTIONS,
    describes: 'capi-render.lock',
    title: 'capi-render.lock',
    about:
      'What every build pinned: the versions, artifact digests, image digests and input hashes. Written by capi-render build; review it, do not edit it.',
  },
};

/** One setting of a schema: its path (`a.b`, `a[]` for items, `a.*` for map values) and node. */
export interface SchemaSetting {
  path: string;
  node: SchemaNode;
  /** True when the object holding it lists it under `required`. */
  required: boolean;
}

/**
 * Every node of `schema` a description can belong to, depth first in the schema's own key order:
 * named properties always; array items and map values (`[]`, `.*`) when they are objects of their
 * own (a list of strings has no items worth a text of their own).
 */
export function schemaSettings(schema: SchemaNode, prefix = ''): SchemaSetting[] {
  const out: SchemaSetting[] = [];
  const required = new Set((schema.required as string[] | undefined) ?? []);
  for (const [name, node] of Object.entries((schema.properties as Record<string, SchemaNode> | undefined) ?? {})) {
    const path = prefix ? `${prefix}.${name}` : name;
    out.push({ path, node, required: required.has(name) }, ...schemaSettings(node, path), ...nested(node, path));
  }
  return out;
}

function nested(node: SchemaNode, path: string): SchemaSetting[] {
  const out: SchemaSetting[] = [];
  for (const [suffix, child] of [
    ['[]', node.items],
    ['.*', node.additionalProperties],
  ] as const) {
    if (!child || typeof child !== 'object') continue;
    const inner = `${path}${suffix}`;
    const settings = schemaSettings(child as SchemaNode, inner);
    const alternatives = ((child as SchemaNode).anyOf as SchemaNode[] | undefined) ?? [];
    // A map of a shape of its own (variables' string-or-{fromEnv}, secrets.providers' modes) is a setting.
    if (settings.length === 0 && (alternatives.length > 0 || (child as SchemaNode).enum))
      out.push({ path: inner, node: child as SchemaNode, required: false });
    for (const alt of alternatives) settings.push(...schemaSettings(alt, inner));
    out.push(...settings, ...nested(child as SchemaNode, inner));
  }
  return out;
}

/** The editor schema of `kind` for capi-render `version` (its `$id` is the URL init writes), as an object. */
export function editorSchema(kind: EditorSchemaKind, version: string): SchemaNode {
  const source = EDITOR_SCHEMA_SOURCES[kind];
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: editorSchemaUrl(kind, version),
    title: source.title,
    description: `${source.about} The schema capi-render ${version} validates ${source.describes} with (schemas/${EDITOR_SCHEMA_FILES[kind]}).`,
    ...(annotate(source.schema, source.descriptions, '') as object),
  };
}

/** A deep copy of `node` with each setting's text as its `description`, first among its keys. */
function annotate(node: unknown, descriptions: Record<string, string>, path: string): unknown {
  if (Array.isArray(node)) return node.map((n) => annotate(n, descriptions, path));
  if (!node || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  const text = path ? descriptions[path] : undefined;
  if (text !== undefined) out.description = text;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties')
      out[key] = Object.fromEntries(
        Object.entries(value as object).map(([name, child]) => [
          name,
          annotate(child, descriptions, path ? `${path}.${name}` : name),
        ]),
      );
    else if (key === 'items') out[key] = annotate(value, descriptions, `${path}[]`);
    else if (key === 'additionalProperties') out[key] = annotate(value, descriptions, `${path}.*`);
    // anyOf/oneOf alternatives describe the same setting: their properties continue its path.
    else if (key === 'anyOf' || key === 'oneOf')
      out[key] = (value as unknown[]).map((alt) => annotateAlternative(alt, descriptions, path));
    else out[key] = value && typeof value === 'object' ? structuredClone(value) : value;
  }
  return out;
}

function annotateAlternative(alt: unknown, descriptions: Record<string, string>, path: string): unknown {
  const copy = annotate(alt, descriptions, '') as Record<string, unknown>;
  const props = (alt as SchemaNode).properties as Record<string, unknown> | undefined;
  if (props)
    copy.properties = Object.fromEntries(
      Object.entries(props).map(([name, child]) => [name, annotate(child, descriptions, `${path}.${name}`)]),
    );
  return copy;
}

/** The file text of the editor schema of `kind`: two-space JSON and a final newline. */
export function editorSchemaText(kind: EditorSchemaKind, version: string): string {
  return `${JSON.stringify(editorSchema(kind, version), null, 2)}\n`;
}
