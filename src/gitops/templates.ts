/**
 * Handlebars for the consumer kit (Argo CD Application/ApplicationSet), locked down: one isolated instance per
 * call (`Handlebars.create()`), helpers registered on it only,
 * `strict: true` (a missing field throws), `noEscape: true` (HTML escaping is wrong for YAML), and
 * only the helpers below. Every output is re-parsed with the `yaml` package, checked (each document
 * has apiVersion, kind and metadata.name) and re-serialised with the one output serialiser, so a
 * template can change values and add fields but never emit broken or non-canonical YAML.
 *
 * Templates are looked up by name (e.g. `argocd/application.yaml.hbs`): first in the user's
 * templates folder, then among the templates bundled with the package (`<package>/bundled-templates/`).
 */
import type { HelperDelegate } from 'handlebars';
import { createHandlebars } from '../handlebars-instance.js';
import { RenderError, SpecError, error, type Diagnostic } from '../errors.js';
import { isJsonObject, type JsonValue, type KubeObject } from '../manifest/object.js';
import { joinDocuments, serializeObject } from '../manifest/serialize.js';
import { parseSourceDocuments } from '../declarations/yaml-document.js';
import { loadTemplate, templateFailure, type TemplateSource } from '../template-files.js';

export { readTextFileSync, type ReadTextFile, type TemplateSource } from '../template-files.js';

/** The helpers templates may use; nothing else is callable (knownHelpersOnly). */
const HELPERS: Record<string, HelperDelegate> = {
  /** `{{quote x}}`: a string, number or boolean as a YAML double-quoted scalar (JSON string syntax). */
  quote(value: unknown) {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      throw new Error(`quote expects a string, number or boolean, got ${value === null ? 'null' : typeof value}`);
    }
    return JSON.stringify(String(value));
  },
  /** `{{json x}}`: any value as JSON, which is YAML flow syntax; re-serialised as block YAML afterwards. */
  json(value: unknown) {
    if (value === undefined) throw new Error('json expects a value, got undefined');
    return JSON.stringify(value);
  },
  /** `{{goTemplate ".path.basename"}}`: emits Argo CD ApplicationSet template syntax `{{.path.basename}}` literally. */
  goTemplate(expression: unknown) {
    if (typeof expression !== 'string') throw new Error('goTemplate expects a string expression');
    return `{{${expression}}}`;
  },
};

/**
 * Renders template `name` with `context` and returns the resulting objects (one or more YAML
 * documents) and their canonical text. Throws SpecError `template` naming the template file when it
 * is missing, does not compile, fails at run time (e.g. an unknown field — strict mode), or
 * produces YAML that does not parse or lacks apiVersion/kind/metadata.name.
 */
export function renderTemplate(
  name: string,
  context: JsonValue,
  source: TemplateSource,
): { objects: KubeObject[]; text: string } {
  const template = loadTemplate(name, source);
  const hb = createHandlebars();
  for (const [helper, fn] of Object.entries(HELPERS)) hb.registerHelper(helper, fn);
  let output: string;
  try {
    const compiled = hb.compile(template.text, {
      strict: true,
      noEscape: true,
      knownHelpers: Object.fromEntries(Object.keys(HELPERS).map((h) => [h, true])),
      knownHelpersOnly: true,
    });
    output = compiled(context);
  } catch (e) {
    throw templateFailure(
      name,
      template.file,
      e,
      'fields available to the template are listed in templates/README.md; helpers: quote, json, goTemplate',
    );
  }
  const objects = parseOutput(output, name, template.file);
  return { objects, text: joinDocuments(objects.map((o) => serializeObject(o))) };
}

function parseOutput(output: string, name: string, file: string): KubeObject[] {
  let docs;
  try {
    docs = parseSourceDocuments(output, file);
  } catch (e) {
    if (!(e instanceof RenderError)) throw e;
    // Positions are in the rendered text, not in the template file: keep them in the message only,
    // so no formatter shows an excerpt of the wrong lines.
    throw new SpecError(
      e.diagnostics.map((d) =>
        error(
          'template',
          `template ${name} rendered invalid YAML (line ${d.line ?? '?'}, column ${d.col ?? '?'} of its output): ${d.message}`,
          {
            file,
            hint: 'put values through {{quote …}} or {{json …}} so they cannot break the YAML structure',
          },
        ),
      ),
    );
  }
  const problems: Diagnostic[] = [];
  const objects: KubeObject[] = [];
  if (docs.length === 0) problems.push(error('template', `template ${name} rendered no document`, { file }));
  for (const doc of docs) {
    const v = doc.value;
    const ok =
      isJsonObject(v) &&
      typeof v.apiVersion === 'string' &&
      v.apiVersion !== '' &&
      typeof v.kind === 'string' &&
      v.kind !== '' &&
      isJsonObject(v.metadata) &&
      typeof v.metadata.name === 'string' &&
      v.metadata.name !== '';
    if (!ok) {
      problems.push(
        error(
          'template',
          `template ${name} rendered document ${doc.index + 1} without apiVersion, kind and metadata.name`,
          {
            file,
            hint: 'every document a template renders must be a Kubernetes object',
          },
        ),
      );
    } else objects.push(v as KubeObject);
  }
  if (problems.length > 0) throw new SpecError(problems);
  return objects;
}
