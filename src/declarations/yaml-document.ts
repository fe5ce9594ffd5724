/**
 * Reading human-edited YAML (providers/, overlays/, capi-render.yaml) with the `yaml` package, so every
 * diagnostic can point at file:line:col. Bulk release artifacts go through manifest/parse.ts instead.
 */
import jsYaml from 'js-yaml';
import type { Document, LineCounter, Node } from 'yaml';
import { SpecError, error, type Diagnostic } from '../errors.js';
import type { JsonValue } from '../manifest/object.js';
import { yamlLibrary } from '../yaml-library.js';

/** One YAML document of an input file, with what is needed to locate any field in it. */
export interface SourceDocument {
  /** The document as plain data. */
  value: JsonValue;
  /** Path of the file, relative to the repository root. */
  file: string;
  /** 0-based index of the document in the file. */
  index: number;
  /** Line/column of the field at `path` (or of its nearest existing ancestor). */
  locate(path: readonly (string | number)[], target?: 'key' | 'value'): { line: number; col: number };
}

/** Limits on human-edited input, so hostile files fail with a clear message. */
const MAX_ALIASES = 100;

/**
 * Parses every document of a YAML file. Syntax errors, duplicate keys and alias abuse are all
 * reported together as one SpecError with positions. Empty documents are dropped.
 *
 * Fast path: a well-formed file without aliases is read with js-yaml (several times faster), and
 * the position-keeping `yaml` parse only happens when a diagnostic asks where a field is. Both read
 * YAML 1.2's core schema to the same values (a test proves it on the fixtures); anything js-yaml
 * rejects, or any alias, takes the `yaml` path, which reports the problems with positions.
 */
export function parseSourceDocuments(text: string, file: string): SourceDocument[] {
  const fast = readYamlFast(text);
  if (fast) {
    let located: SourceDocument[] | undefined;
    const located$ = () => (located ??= parseWithPositions(text, file));
    let roots: (Position | undefined)[] | undefined;
    const root$ = (index: number) => (roots ??= plainRootPositions(text, fast))[index];
    const result: SourceDocument[] = [];
    fast.forEach((value, index) => {
      if (value === null || value === undefined) return;
      const position = result.length;
      result.push({
        value,
        file,
        index,
        // Where a document starts is asked of every provider CR; the text answers that for the
        // usual layout, without the `yaml` parse a successful build otherwise never needs.
        locate: (path, target) =>
          (path.length === 0 ? root$(index) : undefined) ?? located$()[position]!.locate(path, target),
      });
    });
    return result;
  }
  return parseWithPositions(text, file);
}

/**
 * The documents of `text` read with js-yaml (core schema), or undefined when js-yaml rejects it or
 * it uses aliases — then the caller takes the `yaml` path, which reports problems with positions.
 */
export function readYamlFast(text: string): JsonValue[] | undefined {
  // js-yaml ends a line at a lone CR and reads a byte-order mark after the start, the `yaml` package
  // does neither: they would read different documents (and positions would point into the other
  // reading), so such text takes the `yaml` path.
  if (/\r(?!\n)|\ufeff/.test(text)) return undefined;
  let docs: unknown[];
  try {
    docs = jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA });
  } catch {
    return undefined;
  }
  // An alias makes js-yaml share one object in two places; the `yaml` path bounds and reports those.
  // A merge key (`<<`) is a key to js-yaml's core schema; the `yaml` path merges it.
  const seen = new WeakSet<object>();
  const shared = (v: unknown): boolean => {
    if (v === null || typeof v !== 'object') return false;
    if (seen.has(v)) return true;
    seen.add(v);
    // A mapping used as a key (`name: {{ .Values.name }}`) becomes "[object Object]": the `yaml` path reports it.
    return Array.isArray(v)
      ? v.some(shared)
      : Object.hasOwn(v, '<<') || Object.hasOwn(v, '[object Object]') || Object.values(v).some(shared);
  };
  return docs.some(shared) ? undefined : (docs as JsonValue[]);
}

interface Position {
  line: number;
  col: number;
}

/**
 * Where each document's root starts (as the `yaml` parse places it: its first key), read from the
 * text for the layout inputs are written in: documents cut by bare `---` lines, each starting, after
 * blank and comment lines, with a key at column 1. Indexed like js-yaml's `documents`; undefined
 * where the layout differs, and the `yaml` parse answers.
 */
export function plainRootPositions(text: string, documents: readonly unknown[]): (Position | undefined)[] {
  const none = documents.map(() => undefined);
  const lines = text.split('\n');
  // The first content line of each stretch between markers (0: none).
  const firsts = [0];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line.startsWith('---') || line.startsWith('...') || line.startsWith('%')) {
      if (!/^---[ ]*$/.test(line)) return none;
      firsts.push(0);
    } else if (firsts[firsts.length - 1] === 0 && !/^\s*(?:#|$)/.test(line)) firsts[firsts.length - 1] = i + 1;
  }
  // js-yaml counts what precedes the first marker as a document only when it holds content.
  const stretches = firsts[0] !== 0 || firsts.length === 1 ? firsts : firsts.slice(1);
  if (stretches.length !== documents.length) return none;
  return stretches.map((line) => (line !== 0 && /^[A-Za-z]/.test(lines[line - 1]!) ? { line, col: 1 } : undefined));
}

/** Every document with positions, from the `yaml` parse (exported for the test of the fast path). */
export function parseWithPositions(text: string, file: string): SourceDocument[] {
  const YAML = yamlLibrary();
  const lineCounter = new YAML.LineCounter();
  // Merge keys (`<<: *defaults`), which kubectl accepts, are merged; the merged result is what
  // the schema validation sees.
  const docs = YAML.parseAllDocuments(text, {
    lineCounter,
    uniqueKeys: true,
    prettyErrors: false,
    strict: true,
    merge: true,
    logLevel: 'error',
  });
  const problems: Diagnostic[] = [];
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    for (const e of doc.errors) {
      const pos = lineCounter.linePos(e.pos[0]);
      const duplicate = e.code === 'DUPLICATE_KEY';
      problems.push(
        error(
          duplicate ? 'yaml-duplicate-key' : 'yaml-syntax',
          `${duplicate ? 'duplicate key' : 'invalid YAML'}: ${firstLine(e.message)}`,
          {
            file,
            line: pos.line,
            col: pos.col,
            ...(lineAt(text, pos.line).includes('{{') ? { hint: TEMPLATE_HINT } : {}),
          },
        ),
      );
    }
    // `key: {{ .Values.x }}` is valid YAML — a mapping whose key is a mapping — and never what was meant.
    YAML.visit(doc, {
      Pair(_, pair) {
        if (!YAML.isCollection(pair.key)) return;
        const pos = lineCounter.linePos((pair.key as Node).range?.[0] ?? 0);
        problems.push(
          error('yaml-syntax', 'a mapping is used as a key', {
            file,
            line: pos.line,
            col: pos.col,
            hint: TEMPLATE_HINT,
          }),
        );
      },
    });
  }
  // A template breaks the YAML in many places; one error at the first `{{` says what is wrong.
  const template = problems.find((d) => d.hint === TEMPLATE_HINT);
  if (template)
    throw new SpecError({
      ...template,
      message: `this looks like an unrendered template (\`{{ … }}\`), not YAML capi-render can read: ${template.message.replace(/^invalid YAML: /, '')}`,
    });
  if (problems.length > 0) throw new SpecError(problems);
  const result: SourceDocument[] = [];
  list.forEach((doc, index) => {
    if (doc.contents === null) return;
    let value: JsonValue;
    try {
      value = doc.toJS({ maxAliasCount: MAX_ALIASES }) as JsonValue;
    } catch (e) {
      const pos = lineCounter.linePos(doc.contents.range?.[0] ?? 0);
      throw new SpecError(
        error('yaml-limit', `document ${index + 1} cannot be read: ${(e as Error).message}`, {
          file,
          line: pos.line,
          col: pos.col,
        }),
      );
    }
    if (value === null || value === undefined) return;
    result.push({ value, file, index, locate: (path, target) => locateIn(doc, lineCounter, path, target ?? 'value') });
  });
  return result;
}

/** What to do with a Helm or Go template in an input. */
const TEMPLATE_HINT =
  'capi-render reads plain YAML: render the template first (e.g. `helm template`) and commit the rendered CRs, or replace the placeholder with a value (per-environment values belong in overlays/)';

function lineAt(text: string, line: number): string {
  return text.split('\n', line)[line - 1] ?? '';
}

function firstLine(message: string): string {
  const nl = message.indexOf('\n');
  // The yaml package quotes the offending source text at the end ('… in YAML stream: "…"'); in a
  // broken Secret manifest that text is a secret value, and the position already says where.
  return (nl < 0 ? message : message.slice(0, nl))
    .replace(/ at line \d+, column \d+:?$/, '')
    .replace(/: "(?:[^"\\]|\\.)*"$/, '');
}

function locateIn(
  doc: Document.Parsed,
  lineCounter: LineCounter,
  path: readonly (string | number)[],
  target: 'key' | 'value',
): { line: number; col: number } {
  const { isMap, isPair, isScalar, isSeq } = yamlLibrary();
  let node: Node | null | undefined = doc.contents;
  let best: Node | null | undefined = node;
  for (let i = 0; i < path.length && node; i++) {
    const segment = path[i];
    const last = i === path.length - 1;
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment));
      if (!pair) break;
      const key = pair.key as Node;
      node = pair.value as Node | null;
      best = last && target === 'key' ? key : (node ?? key);
    } else if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment] as Node | undefined;
      if (node) best = node;
    } else {
      break;
    }
  }
  const offset = best?.range?.[0] ?? 0;
  return lineCounter.linePos(offset);
}
