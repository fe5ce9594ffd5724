/**
 * Handlebars for the consumer kit (Argo CD Application/ApplicationSet), locked down as STYLE.md §5
 * asks: one isolated instance per call (`Handlebars.create()`), helpers registered on it only,
 * `strict: true` (a missing field throws), `noEscape: true` (HTML escaping is wrong for YAML), and
 * only the helpers below. Every output is re-parsed with the `yaml` package, checked (each document
 * has apiVersion, kind and metadata.name) and re-serialised with the one output serialiser, so a
 * template can change values and add fields but never emit broken or non-canonical YAML.
 *
 * Templates are looked up by name (e.g. `argocd/application.yaml.hbs`): first in the user's
 * templates folder, then among the templates bundled with the package (`<package>/bundled-templates/`).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { HelperDelegate } from 'handlebars';
import { createHandlebars } from '../handlebars-instance.js';
import { RenderError, SpecError, error, type Diagnostic } from '../errors.js';
import { isJsonObject, type JsonValue, type KubeObject } from '../manifest/object.js';
import { joinDocuments, serializeObject } from '../manifest/serialize.js';
import { parseSourceDocuments } from '../spec/yaml-document.js';

/** Reads a file's text, or returns undefined when it does not exist. */
export type ReadTextFile = (file: string) => string | undefined;

/** Where templates come from: the user's folder (optional) over the bundled one. */
export interface TemplateSource {
  userDir: string | undefined;
  bundledDir: string;
  read: ReadTextFile;
}

/** Reads with node:fs; a missing file is undefined, any other failure throws. */
export const readTextFileSync: ReadTextFile = (file) => {
  try {
    return readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
};

/** A located template: its text and the file it came from (for messages). */
interface LoadedTemplate {
  file: string;
  text: string;
}

function loadTemplate(name: string, source: TemplateSource): LoadedTemplate {
  if (source.userDir !== undefined) {
    const file = path.join(source.userDir, name);
    const text = source.read(file);
    if (text !== undefined) return { file, text };
  }
  const file = path.join(source.bundledDir, name);
  const text = source.read(file);
  if (text === undefined) {
    throw new SpecError(error('template', `template ${name} was not found`, { file, hint: 'reinstall capi-render, or add the template to your templates folder' }));
  }
  return { file, text };
}

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
export function renderTemplate(name: string, context: JsonValue, source: TemplateSource): { objects: KubeObject[]; text: string } {
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
    const problem = describeTemplateError(e);
    throw new SpecError(
      error('template', `template ${name} failed: ${problem.message}`, {
        file: template.file,
        ...(problem.line !== undefined ? { line: problem.line } : {}),
        ...(problem.col !== undefined ? { col: problem.col } : {}),
        hint: 'fields available to the template are listed in templates/README.md; helpers: quote, json, goTemplate',
      }),
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
        error('template', `template ${name} rendered invalid YAML (line ${d.line ?? '?'}, column ${d.col ?? '?'} of its output): ${d.message}`, {
          file,
          hint: 'put values through {{quote …}} or {{json …}} so they cannot break the YAML structure',
        }),
      ),
    );
  }
  const problems: Diagnostic[] = [];
  const objects: KubeObject[] = [];
  if (docs.length === 0) problems.push(error('template', `template ${name} rendered no document`, { file }));
  for (const doc of docs) {
    const v = doc.value;
    const ok = isJsonObject(v) && typeof v.apiVersion === 'string' && v.apiVersion !== '' && typeof v.kind === 'string' && v.kind !== '' && isJsonObject(v.metadata) && typeof v.metadata.name === 'string' && v.metadata.name !== '';
    if (!ok) {
      problems.push(
        error('template', `template ${name} rendered document ${doc.index + 1} without apiVersion, kind and metadata.name`, {
          file,
          hint: 'every document a template renders must be a Kubernetes object',
        }),
      );
    } else objects.push(v as KubeObject);
  }
  if (problems.length > 0) throw new SpecError(problems);
  return objects;
}

/**
 * Handlebars reports run-time errors with `lineNumber`/`column` (0-based column) and parse errors
 * as a multi-line message: `Parse error on line N:`, an excerpt, a caret, then what was expected.
 */
function describeTemplateError(e: unknown): { message: string; line?: number; col?: number } {
  const err = e as { message?: unknown; lineNumber?: unknown; column?: unknown };
  const message = typeof err.message === 'string' ? err.message : String(e);
  if (typeof err.lineNumber === 'number') {
    return { message: message.replace(/ - \d+:\d+$/, ''), line: err.lineNumber, ...(typeof err.column === 'number' ? { col: err.column + 1 } : {}) };
  }
  const parse = /^Parse error on line (\d+):/.exec(message);
  if (parse) {
    const lines = message.split('\n');
    return { message: `parse error: ${lines[lines.length - 1]}`, line: Number(parse[1]) };
  }
  const nl = message.indexOf('\n');
  return { message: nl < 0 ? message : message.slice(0, nl) };
}
