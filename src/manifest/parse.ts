import { SpecError, error } from '../errors.js';
import { measureExpansion } from './alias-expansion.js';
import { loadDocuments } from './fast-load.js';
import { isJsonObject, type JsonValue, type KubeObject } from './object.js';
import type { Resource } from './resource.js';

/** Hard bounds for machine artifacts, so hostile input fails fast instead of exhausting memory. */
export interface ParseLimits {
  /** Largest accepted text, in characters. Default: 64 MiB. */
  maxBytes: number;
  /** Largest number of values after alias expansion across the whole text. Default: 20 million. */
  maxNodes: number;
}

export const DEFAULT_PARSE_LIMITS: ParseLimits = { maxBytes: 64 * 1024 * 1024, maxNodes: 20_000_000 };

/**
 * Parses a multi-document YAML artifact (a components file) into resources, in document order.
 * Empty documents are dropped, as clusterctl's YAML reader does. Uses js-yaml's core schema
 * (YAML 1.2: no timestamps, `yes`/`on` stay strings), the fast path for machine-written files.
 * Every document must be a Kubernetes object: a mapping with string `apiVersion` and `kind`.
 */
export function parseManifests(text: string, source: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): Resource[] {
  if (text.length > limits.maxBytes) {
    throw new SpecError(
      error(
        'yaml-limit',
        `${source} is ${text.length} bytes, over the ${limits.maxBytes}-byte limit for one artifact`,
        {
          file: source,
        },
      ),
    );
  }
  let documents: unknown[];
  let values: number[];
  try {
    ({ documents, values } = loadDocuments(text, source));
  } catch (e) {
    const ex = e as { reason?: string; mark?: { line: number; column: number }; message: string };
    throw new SpecError(
      error('yaml-syntax', `${source} is not valid YAML: ${ex.reason ?? ex.message}`, {
        file: source,
        ...(ex.mark ? { line: ex.mark.line + 1, col: ex.mark.column + 1 } : {}),
      }),
    );
  }
  const budget = { remaining: limits.maxNodes };
  const resources: Resource[] = [];
  documents.forEach((doc, index) => {
    if (doc === null || doc === undefined) return;
    countNodes(doc as JsonValue, budget, source, values[index]);
    if (!isJsonObject(doc) || typeof doc.apiVersion !== 'string' || typeof doc.kind !== 'string') {
      throw new SpecError(
        error(
          'components-invalid',
          `document ${index + 1} of ${source} is not a Kubernetes object (it needs a string apiVersion and kind)`,
          {
            file: source,
          },
        ),
      );
    }
    const problem = nameProblem(doc);
    if (problem) {
      throw new SpecError(
        error('components-invalid', `document ${index + 1} of ${source} (${String(doc.kind)}) ${problem}`, {
          file: source,
          hint: 'Kubernetes rejects such names too; the artifact is broken or not what it claims to be',
        }),
      );
    }
    resources.push({ object: doc as KubeObject, origin: { source, document: index } });
  });
  return resources;
}

/**
 * One part of an artifact (see process/variables/document-parts.ts) parsed on its own: what
 * {@link assembleParts} needs to build the artifact's resources without parsing the whole text.
 */
export interface ParsedPart {
  /** js-yaml's documents, empty ones included (they count in document numbers). */
  documents: unknown[];
  /** Values after alias expansion, counted up to the limit. */
  nodes: number;
  /** Whether every non-empty document is a Kubernetes object with a valid name. */
  valid: boolean;
}

/**
 * Parses one part, or returns undefined when it is not valid YAML or over the limits: the caller then
 * parses the whole text with {@link parseManifests}, which reports the problem exactly as it would
 * without parts (document number, line and all).
 */
export function parsePart(text: string, limits: ParseLimits = DEFAULT_PARSE_LIMITS): ParsedPart | undefined {
  if (text.length > limits.maxBytes) return undefined;
  let documents: unknown[];
  let values: number[];
  try {
    ({ documents, values } = loadDocuments(text));
  } catch {
    return undefined;
  }
  const budget = { remaining: limits.maxNodes };
  let valid = true;
  for (const [index, doc] of documents.entries()) {
    if (doc === null || doc === undefined) continue;
    if (expansionProblem(doc as JsonValue, budget, values[index]!) !== undefined) return undefined;
    if (
      !isJsonObject(doc) ||
      typeof doc.apiVersion !== 'string' ||
      typeof doc.kind !== 'string' ||
      nameProblem(doc) !== undefined
    )
      valid = false;
  }
  return { documents, nodes: limits.maxNodes - budget.remaining, valid };
}

/**
 * The resources of an artifact from its parts, in document order with the whole text's document
 * numbers — exactly what {@link parseManifests} returns for the parts' texts joined — or undefined
 * when the whole text must be parsed to report a problem (an invalid document, a limit).
 */
export function assembleParts(
  parts: readonly ParsedPart[],
  length: number,
  source: string,
  limits: ParseLimits = DEFAULT_PARSE_LIMITS,
): Resource[] | undefined {
  if (length > limits.maxBytes) return undefined;
  let nodes = 0;
  for (const part of parts) {
    nodes += part.nodes;
    if (!part.valid || nodes > limits.maxNodes) return undefined;
  }
  const resources: Resource[] = [];
  let index = 0;
  for (const part of parts) {
    for (const doc of part.documents) {
      if (doc !== null && doc !== undefined)
        resources.push({ object: doc as KubeObject, origin: { source, document: index } });
      index++;
    }
  }
  return resources;
}

/**
 * The API server's rule for every object name (path-segment names: not `.` or `..`, no `/` or `%`),
 * which also guarantees a name can never address a file outside its output folder.
 */
function nameProblem(doc: Record<string, unknown>): string | undefined {
  const meta = doc.metadata;
  const name = isJsonObject(meta) ? (meta as Record<string, unknown>).name : undefined;
  if (typeof name !== 'string' || name === '') return 'has no metadata.name';
  if (name === '.' || name === '..' || /[/%]/.test(name))
    return `has metadata.name ${JSON.stringify(name)}, which is not a valid object name`;
  const ns = (meta as Record<string, unknown>).namespace;
  if (ns !== undefined && (typeof ns !== 'string' || !/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(ns)))
    return `has metadata.namespace ${JSON.stringify(ns)}, which is not a valid namespace name`;
  return undefined;
}

/**
 * Throws a `yaml-limit` error when one document (`value`, aliases expanded) holds more values than the
 * budget left, or more of them through aliases than clusterctl's YAML decoder allows (alias-expansion.ts).
 */
export function countNodes(value: JsonValue, budget: { remaining: number }, source: string, values = -1): void {
  const problem = expansionProblem(value, budget, values);
  if (problem === 'excessive-aliasing') {
    throw new SpecError(
      error(
        'yaml-limit',
        `${source} has a document that contains excessive aliasing (a YAML alias bomb?): most of what it expands to comes from aliases`,
        {
          file: source,
          hint: "clusterctl and the operator refuse it too (go-yaml's alias-ratio rule); write the repeated content out, or remove the aliases",
        },
      ),
    );
  }
  if (problem === 'too-many-values') {
    throw new SpecError(
      error('yaml-limit', `${source} expands to more than ${DEFAULT_PARSE_LIMITS.maxNodes} values (YAML alias bomb?)`, {
        file: source,
      }),
    );
  }
}

/**
 * One document's problem with the budget or the aliasing rule. `values` is how many values the
 * document holds when that is known (a document read without js-yaml has no aliases), else -1.
 */
function expansionProblem(
  value: JsonValue,
  budget: { remaining: number },
  values: number,
): ReturnType<typeof measureExpansion> {
  if (values < 0) {
    // Aliases make shared sub-trees; counting the expanded size bounds what later steps will walk.
    return measureExpansion(value, budget);
  }
  budget.remaining -= values;
  return budget.remaining < 0 ? 'too-many-values' : undefined;
}
