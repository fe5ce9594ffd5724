/**
 * Reading human-edited YAML (providers/, overlays/, capi-render.yaml) with the `yaml` package, so every
 * diagnostic can point at file:line:col. Bulk release artifacts go through manifest/parse.ts instead.
 */
import YAML, { isMap, isPair, isScalar, isSeq, LineCounter, type Document, type Node } from 'yaml';
import { SpecError, error, type Diagnostic } from '../errors.js';
import type { JsonValue } from '../manifest/object.js';

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
 */
export function parseSourceDocuments(text: string, file: string): SourceDocument[] {
  const lineCounter = new LineCounter();
  const docs = YAML.parseAllDocuments(text, { lineCounter, uniqueKeys: true, prettyErrors: false, strict: true });
  const problems: Diagnostic[] = [];
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    for (const e of doc.errors) {
      const pos = lineCounter.linePos(e.pos[0]);
      const duplicate = e.code === 'DUPLICATE_KEY';
      problems.push(
        error(duplicate ? 'yaml-duplicate-key' : 'yaml-syntax', `${duplicate ? 'duplicate key' : 'invalid YAML'}: ${firstLine(e.message)}`, {
          file,
          line: pos.line,
          col: pos.col,
        }),
      );
    }
  }
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
        error('yaml-limit', `document ${index + 1} cannot be read: ${(e as Error).message}`, { file, line: pos.line, col: pos.col }),
      );
    }
    if (value === null || value === undefined) return;
    result.push({ value, file, index, locate: (path, target) => locateIn(doc, lineCounter, path, target ?? 'value') });
  });
  return result;
}

function firstLine(message: string): string {
  const nl = message.indexOf('\n');
  return (nl < 0 ? message : message.slice(0, nl)).replace(/ at line \d+, column \d+:?$/, '');
}

function locateIn(
  doc: Document.Parsed,
  lineCounter: LineCounter,
  path: readonly (string | number)[],
  target: 'key' | 'value',
): { line: number; col: number } {
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
