/**
 * What Argo CD's ApplicationSet controller makes of a list-generator ApplicationSet with
 * `goTemplate: true`, for the subset capi-render's template uses: `{{.key}}` / `{{.a.b}}` in string
 * fields (missingkey=error: an unknown key throws), then `templatePatch` rendered the same way plus
 * `{{ toJson .x }}`, parsed as YAML and merged over the Application (maps merged, everything else
 * replaced, as a strategic merge patch does for these fields). Not Argo CD itself: it lets a test
 * read the generated ApplicationSet as the Applications it stands for.
 */
import jsYaml from 'js-yaml';
import type { JsonObject, JsonValue } from 'capi-render';
import { isJsonObject } from '../../src/manifest/object.js';

export function expandApplicationSet(set: JsonObject): JsonObject[] {
  const spec = set.spec as JsonObject;
  if (spec.goTemplate !== true) throw new Error('only goTemplate ApplicationSets');
  const generators = spec.generators as JsonObject[];
  if (generators.length !== 1 || !isJsonObject(generators[0]!.list)) throw new Error('only one list generator');
  const elements = generators[0]!.list.elements as JsonObject[];
  return elements.map((element) => {
    const template = spec.template as JsonObject;
    let app = renderValue(
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', ...template },
      element,
    ) as JsonObject;
    if (typeof spec.templatePatch === 'string')
      app = merge(app, jsYaml.load(renderString(spec.templatePatch, element)) as JsonObject) as JsonObject;
    return app;
  });
}

function renderValue(value: JsonValue, element: JsonObject): JsonValue {
  if (typeof value === 'string') return renderString(value, element);
  if (Array.isArray(value)) return value.map((v) => renderValue(v, element));
  if (isJsonObject(value))
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderValue(v, element)]));
  return value;
}

function renderString(text: string, element: JsonObject): string {
  return text.replace(
    /\{\{\s*(toJson\s+)?\.([A-Za-z0-9_.]+)\s*\}\}/g,
    (_m, toJson: string | undefined, key: string) => {
      let v: JsonValue | undefined = element;
      for (const part of key.split('.')) v = isJsonObject(v) ? v[part] : undefined;
      if (v === undefined) throw new Error(`map has no entry for key "${key}"`);
      return toJson ? JSON.stringify(v) : String(v);
    },
  );
}

function merge(base: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(base) || !isJsonObject(patch)) return patch;
  const out: JsonObject = { ...base };
  for (const [k, v] of Object.entries(patch)) out[k] = k in out ? merge(out[k]!, v) : v;
  return out;
}
