/**
 * What a components text asks of its variables, for `capi-render variables` (clusterctl's
 * `generate provider --describe` / `--list-variables`, read-only): each top-level variable with the
 * default clusterctl records for it, whether it is required, and whether it ends up in a Secret's
 * `data` or `stringData`. Nothing is substituted with real values: a variable's "secret" mark comes
 * from substituting every name with a marker, parsing the documents that reference variables, and
 * looking for the markers in v1 Secrets.
 */
import { parseManifests } from '../../manifest/parse.js';
import { isJsonObject, type JsonValue, type KubeObject } from '../../manifest/object.js';
import { collectVariables } from './inspect.js';
import { normaliseLegacySpacing } from './legacy-spacing.js';
import { parseTemplate } from './parse.js';
import { compileTemplate } from './processor.js';

/** One top-level variable of a components text. */
export interface DescribedVariable {
  name: string;
  /** clusterctl's default text (arguments of the first occurrence); null when there is none. */
  default: string | null;
  /** True when the first occurrence has no default: a value must be set. */
  required: boolean;
  /** True when the variable occurs in a v1 Secret's `data` or `stringData`. */
  secret: boolean;
}

export interface DescribedComponents {
  /** The top-level variables, sorted by name (Go byte order), as clusterctl lists them. */
  variables: DescribedVariable[];
  /** Every name the text references, also inside another's default; sorted, unique. */
  names: readonly string[];
}

const MARKER = /capirendervariablemarker(\d+)x/g;
const marker = (i: number) => `capirendervariablemarker${i}x`;

/**
 * Describes `text`'s variables. Throws SpecError `variables-syntax` (naming `source`) when it is not
 * a valid template, as a build would. A document that does not parse once substituted with markers
 * is left out of the Secret search (a build reports it when it renders).
 */
export function describeComponentVariables(text: string, source: string): DescribedComponents {
  const template = compileTemplate(text, source);
  const defaults = collectVariables(parseTemplate(normaliseLegacySpacing(text).text));
  const index = new Map(template.names.map((name, i) => [name, i] as const));
  const secret = new Set<string>();
  const substituted = template.substituteParts((name) => marker(index.get(name) ?? 0));
  template.parts.forEach((part, i) => {
    if (part.constant !== undefined) return;
    for (const object of parseLeniently(substituted.texts[i]!, source)) {
      if (object.apiVersion !== 'v1' || object.kind !== 'Secret') continue;
      for (const field of ['data', 'stringData']) {
        for (const found of markersIn(object[field])) secret.add(template.names[found]!);
      }
    }
  });
  return {
    variables: defaults.map((v) => ({
      name: v.name,
      default: v.defaultText === '' ? null : v.defaultText,
      required: v.defaultText === '',
      secret: secret.has(v.name),
    })),
    names: template.names,
  };
}

/** The objects of a text; when it does not parse as a whole, those of each of its documents that parses. */
function parseLeniently(text: string, source: string): KubeObject[] {
  const parse = (t: string) => {
    try {
      return parseManifests(t, source).map((r) => r.object);
    } catch {
      return undefined;
    }
  };
  return parse(text) ?? `\n${text}`.split(/\n---[ \t]*\r?\n/).flatMap((document) => parse(document) ?? []);
}

/** Indices of the markers in a value's keys and strings. */
function markersIn(value: JsonValue | undefined): number[] {
  const found: number[] = [];
  const visit = (v: JsonValue | undefined) => {
    if (typeof v === 'string') for (const m of v.matchAll(MARKER)) found.push(Number(m[1]));
    else if (Array.isArray(v)) v.forEach(visit);
    else if (isJsonObject(v)) {
      for (const [k, inner] of Object.entries(v)) {
        visit(k);
        visit(inner);
      }
    }
  };
  visit(value);
  return found;
}
