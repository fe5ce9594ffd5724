/**
 * docs/reference/config.md: every setting of capi-render.yaml and overlay.yaml, one table row each
 * (path, what values it takes, what it means), read from the schemas the loaders validate with and
 * the texts the editor schemas carry (editor-schemas.ts). Pure and deterministic: the schemas' own
 * key order, no dates, no paths of this machine.
 */
import { EDITOR_SCHEMA_FILES } from '../../config/editor-schema-url.js';
import { cell, prose } from './markdown-text.js';
import { EDITOR_SCHEMA_SOURCES, schemaSettings, type SchemaNode, type SchemaSetting } from './editor-schemas.js';

/** The regeneration command named in the generated files and in the freshness test's failure. */
export const REGENERATE = 'npm run docs:reference';

/** The markdown of docs/reference/config.md. */
export function settingsReference(): string {
  const config = EDITOR_SCHEMA_SOURCES.config;
  const overlay = EDITOR_SCHEMA_SOURCES.overlay;
  const configTops = new Set(Object.keys(config.schema.properties as object));
  // overlay.yaml's blocks that are capi-render.yaml's too are listed once, under capi-render.yaml.
  const shared = Object.keys(overlay.schema.properties as object).filter(
    (k) => configTops.has(k) && k !== 'apiVersion' && k !== 'kind',
  );
  const overlayRows = schemaSettings(overlay.schema).filter(
    (s) => !shared.some((k) => s.path.startsWith(`${k}.`) || s.path.startsWith(`${k}[`) || s.path.startsWith(`${k}*`)),
  );
  return [
    '# capi-render.yaml and overlay.yaml settings',
    '',
    `<!-- Generated from src/config/config-schema.ts, src/overlay/overlay-schema.ts and their descriptions by \`${REGENERATE}\`; do not edit. -->`,
    '',
    'Every setting the loaders accept, from the schemas they validate with; a key not listed here is an',
    'error (with the closest correct spelling). Paths read `a.b` for a key inside `a`, `a[]` for each',
    'entry of the list `a`, and `a.*` for each value of the map `a`.',
    '',
    `Editors: [schemas/${EDITOR_SCHEMA_FILES.config}](../../schemas/${EDITOR_SCHEMA_FILES.config}) and`,
    `[schemas/${EDITOR_SCHEMA_FILES.overlay}](../../schemas/${EDITOR_SCHEMA_FILES.overlay}) are the same schemas as JSON Schema (draft-07), shipped in the`,
    'package. `capi-render init` names them in the first line of the files it writes, for editors with',
    "the YAML language server (VS Code's YAML extension, Neovim, Helix, JetBrains):",
    '',
    '```yaml',
    '# yaml-language-server: $schema=https://unpkg.com/capi-render@<version>/schemas/capi-render.schema.json',
    '```',
    '',
    '## capi-render.yaml',
    '',
    prose(config.about),
    '',
    ...table(schemaSettings(config.schema), config.descriptions),
    '',
    '## overlay.yaml',
    '',
    `${prose(overlay.about)} ${shared.map((k) => `\`${k}\``).join(', ')} take the same fields as in capi-render.yaml (above) and override its values key by key.`,
    '',
    ...table(overlayRows, overlay.descriptions),
    '',
  ].join('\n');
}

function table(settings: readonly SchemaSetting[], descriptions: Record<string, string>): string[] {
  return [
    '| Setting | Values | Meaning |',
    '| --- | --- | --- |',
    ...settings.map(
      (s) =>
        `| \`${s.path}\`${s.required ? ' (required)' : ''} | ${cell(values(s.node))} | ${cell(descriptions[s.path] ?? '')} |`,
    ),
  ];
}

/** What a node accepts, in words: a type, a fixed value, a choice, a pattern. */
export function values(node: SchemaNode): string {
  if (node.const !== undefined) return `\`${String(node.const)}\``;
  if (Array.isArray(node.enum)) return `one of ${node.enum.map((v) => `\`${String(v)}\``).join(', ')}`;
  if (Array.isArray(node.anyOf)) return (node.anyOf as SchemaNode[]).map(values).join(', or ');
  const type = node.type as string | undefined;
  if (type === 'array') {
    const items = node.items as SchemaNode | undefined;
    return items ? `list of ${plural(values(items))}` : 'list';
  }
  if (type === 'object') {
    if (node.properties)
      return Object.keys(node.properties).length > 0 && Array.isArray(node.required)
        ? `object (needs ${(node.required as string[]).join(', ')})`
        : 'object';
    const value = node.additionalProperties;
    return value && typeof value === 'object' ? `map of name → ${values(value as SchemaNode)}` : 'object';
  }
  if (type === 'string') {
    if (typeof node.pattern === 'string') return `string matching \`${node.pattern}\``;
    return node.minLength ? 'non-empty string' : 'string';
  }
  return type ?? 'any';
}

function plural(what: string): string {
  return what.replace(/^(object|string|non-empty string|boolean)\b/, '$1s');
}
