/**
 * A fast path through large YAML dumps for readers that need a few objects (import needs the
 * inventory, the operator CRs and a cert-manager Deployment — a dozen objects out of thousands):
 * the text is cut into documents at `---` lines and each List's `items` into one chunk per item at
 * the items' indentation; an item's `apiVersion` and `kind` are read from its top-level lines, and
 * only the chunks the caller selects are parsed. Block YAML as kubectl and YAML libraries write it
 * has this shape; for anything else (JSON, flow style, a List whose items cannot be delimited) this
 * returns undefined and the caller parses the whole text. Works on offsets into the text (no
 * splitting into lines), and every search stays inside its own document or item, so the work is
 * linear in the text's length whatever its shape: a 20 MB dump — one List, or a `---` stream of
 * 100k objects — is cut in a few tens of milliseconds.
 */

/** One item of a List, or a document that is one object, before parsing. */
export interface DumpChunk {
  /** 1-based document number; 1-based item number inside a List. */
  document: number;
  item?: number;
  apiVersion?: string;
  kind?: string;
  /** The item as a one-element block sequence, or the whole document. */
  text: string;
}

/** A document of the stream: its own apiVersion/kind, and its items (a List) or itself (one object). */
export interface ChunkedDocument {
  document: number;
  apiVersion?: string;
  kind?: string;
  items?: DumpChunk[];
  single?: DumpChunk;
}

interface Head {
  apiVersion?: string;
  kind?: string;
}

/** Cuts `text` into documents and item chunks; undefined when it is not plain block YAML. */
export function chunkDump(text: string): ChunkedDocument[] | undefined {
  if (/^\s*[{[]/.test(text)) return undefined;
  const segments: [number, number][] = [];
  let start = 0;
  for (const m of text.matchAll(/^---[ \t]*(#.*)?$/gm)) {
    segments.push([start, m.index]);
    start = Math.min(text.length, m.index + m[0].length + 1);
  }
  segments.push([start, text.length]);
  // Text before the first `---` that holds nothing is not a document (js-yaml counts the same way).
  if (segments.length > 1 && isBlank(text.slice(segments[0]![0], segments[0]![1]))) segments.shift();
  const docs: ChunkedDocument[] = [];
  for (const [index, [from, to]] of segments.entries()) {
    if (isBlank(text.slice(from, to))) continue;
    const doc = chunkDocument(text, from, to, index + 1);
    if (!doc) return undefined;
    docs.push(doc);
  }
  return docs;
}

/**
 * One document, `text.slice(from, to)`. Every search runs inside the document's own text: a search
 * for something a document does not have (`items:` in a single object, `kind:` in an item of a typed
 * list) must stop at the document's (or the item's) end, not run on to the end of the stream — that
 * made a `---` stream of n objects cost O(n²).
 */
function chunkDocument(text: string, from: number, to: number, document: number): ChunkedDocument | undefined {
  const doc = text.slice(from, to);
  const head = readHead(doc);
  const itemsLine = firstMatch(/^items:(.*)$/gm, doc, 0);
  if (!itemsLine || (head.kind !== undefined && !head.kind.endsWith('List')))
    return { document, ...head, single: { document, ...head, text: doc } };
  const after = itemsLine[1]!.trim();
  if (after === '[]') return { document, ...head, items: [] };
  if (after !== '') return undefined;
  const firstItem = firstMatch(/^( *)- /gm, doc, itemsLine.index + itemsLine[0].length);
  if (!firstItem || !isBlank(doc.slice(itemsLine.index + itemsLine[0].length, firstItem.index))) return undefined;
  const indent = firstItem[1]!.length;
  // The items end at the first line (not blank, not a comment) less indented than them, or — for
  // items at column 0 — at the next top-level key.
  const ending = indent === 0 ? /^(?=[^\s#-])/gm : new RegExp(`^(?! {${indent}})(?=[ ]*[^\\s#])`, 'gm');
  const end = firstMatch(ending, doc, firstItem.index)?.index ?? doc.length;
  const marker = `\n${' '.repeat(indent)}- `;
  if (doc.includes(marker, end) || (end < doc.length && doc.startsWith(marker.slice(1), end))) return undefined;
  const items: DumpChunk[] = [];
  let itemStart = firstItem.index;
  while (itemStart < end) {
    const next = doc.indexOf(marker, itemStart);
    const itemEnd = next < 0 || next + 1 > end ? end : next + 1;
    items.push(itemChunk(doc.slice(itemStart, itemEnd), indent, document, items.length + 1));
    itemStart = itemEnd;
  }
  return { document, ...head, items };
}

/** An item's chunk; `text` is the item alone, from its `- ` line to the next item. */
function itemChunk(text: string, indent: number, document: number, item: number): DumpChunk {
  const chunk: DumpChunk = { document, item, text };
  // The item's first key sits on its `- ` line; the others at the item's key indentation.
  const pad = ' '.repeat(indent + 2);
  for (const key of ['apiVersion', 'kind'] as const) {
    const found = text.startsWith(`${key}:`, indent + 2) ? indent + 2 : text.indexOf(`\n${pad}${key}:`);
    if (found < 0) continue;
    const valueStart = text.indexOf(':', found) + 1;
    const lineEnd = text.indexOf('\n', valueStart);
    chunk[key] = unquote(text.slice(valueStart, lineEnd < 0 ? text.length : lineEnd).trim());
  }
  return chunk;
}

/** The document's own top-level apiVersion and kind (for a List: `v1`/`List`, or a typed list). */
function readHead(doc: string): Head {
  const out: Head = {};
  for (const key of ['apiVersion', 'kind'] as const) {
    const m = firstMatch(HEAD_LINES[key], doc, 0);
    if (m) out[key] = unquote(m[1]!);
  }
  return out;
}

const HEAD_LINES = { apiVersion: /^apiVersion:[ \t]*(.*?)[ \t]*$/gm, kind: /^kind:[ \t]*(.*?)[ \t]*$/gm };

/** The first match of a global regular expression at or after `from`. */
function firstMatch(re: RegExp, text: string, from: number): RegExpExecArray | undefined {
  re.lastIndex = from;
  return re.exec(text) ?? undefined;
}

function unquote(value: string): string {
  return /^(["']).*\1$/.test(value) ? value.slice(1, -1) : value;
}

/** Whether every line of `text` is blank or a comment: no line whose first non-space character is not `#`. */
function isBlank(text: string): boolean {
  return !/(?:^|\n)\s*[^\s#]/.test(text);
}
