/**
 * A reader for the block-style YAML that release tools write (controller-gen, kustomize, helm
 * template) that returns exactly what js-yaml's `loadAll` returns with the core schema, about twice as
 * fast cold. It reads the layout itself: `---` document markers, comment and blank lines, block
 * mappings with plain or one-line quoted keys, block sequences, plain and quoted scalars over one or
 * more lines (escapes included), `[]`, `{}`, one-line flow sequences of scalars, and literal block
 * scalars (`|`, `|-`, `|+`). A plain scalar's type (null, bool, int, float) is decided by js-yaml's
 * own core-schema types, so the schema has one source of truth.
 *
 * Anything else in a document — anchors, aliases, tags, folded block scalars, complex keys, a comment
 * after a value, tabs, a duplicate key, deep nesting, anything js-yaml might refuse — makes that
 * document go to js-yaml, which stays the authority, and the whole text when js-yaml throws, so that
 * an error is reported exactly as before (line and column of the whole text). A test compares both
 * on every fixture artifact, and the fuzz campaign on mutated and generated YAML.
 *
 * Design notes: docs/internals.md "manifest/fast-load.ts".
 */
import jsYaml from 'js-yaml';

/** What {@link loadDocuments} read. */
export interface LoadedDocuments {
  /** Exactly `jsYaml.loadAll(text, undefined, { schema: CORE_SCHEMA })`. */
  documents: unknown[];
  /**
   * Per document, the values it holds (the document itself, every mapping value and sequence item),
   * or -1 when js-yaml read it: then it may share objects through aliases and must be measured.
   */
  values: number[];
}

interface ImplicitType {
  resolve(data: string): boolean;
  construct(data: string): unknown;
}

/** The core schema's implicit types in js-yaml's order (null, bool, int, float). */
const IMPLICIT = (jsYaml.CORE_SCHEMA as unknown as { compiledImplicit?: ImplicitType[] }).compiledImplicit;

/**
 * Characters this reader leaves to js-yaml wherever they are: tabs, carriage returns, byte-order marks,
 * Unicode line breaks, and everything js-yaml refuses as non-printable (its own rule, lone surrogates
 * included).
 */
const LEFT_TO_JS_YAML =
  /[\x00-\x09\x0B-\x1F\x7F-\x9F\u2028\u2029\uFEFF\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?:[^\uD800-\uDBFF]|^)[\uDC00-\uDFFF]/;

/** Nesting deeper than this goes to js-yaml, whose own limit (maxDepth 100) then applies. */
const MAX_DEPTH = 64;

const SPACE = 0x20;
const NEWLINE = 0x0a;
const HASH = 0x23;
const COLON = 0x3a;
const DASH = 0x2d;

/** First characters a core-schema null, bool, int or float can start with; any other plain scalar is a string. */
const MAY_RESOLVE = charTable('~nNtTfF+-.0123456789');
/** Characters of a plain key this reader takes: letters, digits and `-_./$`. */
const KEY_CHAR = charTable('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_./$');
/** Double-quoted escapes of one character, as YAML defines them. */
const ESCAPES: (string | undefined)[] = [];
for (const [c, text] of Object.entries({
  '0': '\x00',
  a: '\x07',
  b: '\x08',
  t: '\x09',
  n: '\x0A',
  v: '\x0B',
  f: '\x0C',
  r: '\x0D',
  e: '\x1B',
  ' ': ' ',
  '"': '"',
  '/': '/',
  '\\': '\\',
  N: '\x85',
  _: '\xA0',
  L: '\u2028',
  P: '\u2029',
}))
  ESCAPES[c.charCodeAt(0)] = text;
/** Characters that may not start a plain scalar here (YAML indicators; `-`, `?`, `:` are checked apart). */
const INDICATOR = charTable(',[]{}#&*!|>\'"%@`');

function charTable(chars: string): Uint8Array {
  const table = new Uint8Array(128);
  for (let i = 0; i < chars.length; i++) table[chars.charCodeAt(i)] = 1;
  return table;
}

/** Thrown inside the reader when a document needs js-yaml; never escapes this module. */
class Unsupported extends Error {}
const UNSUPPORTED = new Unsupported();

/** A plain scalar as the core schema resolves it. */
function resolvePlain(text: string): unknown {
  const first = text.charCodeAt(0);
  if (first < 128 && MAY_RESOLVE[first] === 1) {
    // A letter can only start a null or a boolean word (numbers start with a sign, a digit or a
    // dot): `type`, `name`, `format`, … need not go through the number types.
    if ((first | 0x20) >= 0x61 && (first | 0x20) <= 0x7a && !NULL_OR_BOOLEAN.has(text)) return text;
    for (const type of IMPLICIT!) if (type.resolve(text)) return type.construct(text);
  }
  return text;
}

/** The core schema's null and boolean words that start with a letter. */
const NULL_OR_BOOLEAN = new Set(['null', 'Null', 'NULL', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE']);

/**
 * The documents of `text`, read here or by js-yaml, with js-yaml's results. Throws what js-yaml
 * throws for the whole text (`filename` in its message) when a document is not valid YAML.
 */
export function loadDocuments(text: string, filename?: string): LoadedDocuments {
  const read = readDocuments(text);
  if (read) return read;
  const documents = jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA, ...(filename ? { filename } : {}) });
  return { documents, values: documents.map(() => -1) };
}

function readDocuments(text: string): LoadedDocuments | undefined {
  if (!IMPLICIT || text.length === 0 || LEFT_TO_JS_YAML.test(text)) return undefined;
  const reader = new Reader(text);
  const documents: unknown[] = [];
  const values: number[] = [];
  // Where the current document's text starts (its `---` line), for handing it to js-yaml.
  let documentStart = 0;
  let explicit = false;
  for (;;) {
    const indent = reader.nextContent();
    if (indent < 0) {
      if (explicit) {
        documents.push(null);
        values.push(1);
      }
      // A text of comments only: js-yaml's answer ([null]) is left to it.
      return documents.length === 0 ? undefined : { documents, values };
    }
    const at = reader.pos;
    if (indent === 0 && reader.isMarker(at)) {
      if (explicit) {
        documents.push(null);
        values.push(1);
      }
      explicit = true;
      documentStart = at;
      reader.pos = reader.lineAfter(at);
      continue;
    }
    // A directive or a document end changes how the next document reads: js-yaml reads the whole text.
    if (indent === 0 && reader.startsColumnZeroSyntax(at)) return undefined;
    explicit = false;
    reader.values = 1;
    let document: unknown;
    try {
      if (indent !== 0 || reader.isSequenceItem(at)) throw UNSUPPORTED;
      document = reader.mapping(0, at, 1);
      documents.push(document);
      values.push(reader.values);
    } catch (e) {
      if (!(e instanceof Unsupported)) throw e;
      const end = reader.documentEnd(at);
      if (end < 0) return undefined;
      // The marker after the document changes how js-yaml ends it (a tag with no content before a
      // marker is null, at the text's end ''), so js-yaml reads it with that marker line: a second,
      // empty document.
      const marked = end < text.length;
      let theirs: unknown[];
      try {
        theirs = jsYaml.loadAll(text.slice(documentStart, marked ? reader.lineAfter(end) : end), undefined, {
          schema: jsYaml.CORE_SCHEMA,
        });
      } catch {
        return undefined;
      }
      if (theirs.length !== (marked ? 2 : 1) || (marked && theirs[1] !== null)) return undefined;
      documents.push(theirs[0]);
      values.push(-1);
      reader.pos = end;
    }
    documentStart = reader.pos;
  }
}

class Reader {
  pos = 0;
  /** Values counted in the current document. */
  values = 0;
  private readonly end: number;

  constructor(private readonly s: string) {
    this.end = s.length;
  }

  /** The start of the line after the one holding `at` (the text's end when there is none). */
  lineAfter(at: number): number {
    const nl = this.s.indexOf('\n', at);
    return nl < 0 ? this.end : nl + 1;
  }

  private lineEnd(at: number): number {
    const nl = this.s.indexOf('\n', at);
    return nl < 0 ? this.end : nl;
  }

  /** Skips blank and comment lines from `pos`; the indentation of the next line, or -1 at the end. */
  nextContent(): number {
    const s = this.s;
    let p = this.pos;
    while (p < this.end) {
      let i = p;
      while (s.charCodeAt(i) === SPACE) i++;
      const c = s.charCodeAt(i);
      if (i < this.end && c !== NEWLINE && c !== HASH) {
        this.pos = p;
        return i - p;
      }
      p = this.lineAfter(i);
    }
    this.pos = this.end;
    return -1;
  }

  /** A `---` line with nothing after it: a document marker. */
  isMarker(at: number): boolean {
    const s = this.s;
    if (!s.startsWith('---', at)) return false;
    let i = at + 3;
    while (s.charCodeAt(i) === SPACE) i++;
    return i >= this.end || s.charCodeAt(i) === NEWLINE;
  }

  /** A line at column 0 that starts a marker with content, a document end or a directive. */
  startsColumnZeroSyntax(at: number): boolean {
    const s = this.s;
    return s.startsWith('---', at) || s.startsWith('...', at) || s.charCodeAt(at) === 0x25;
  }

  /**
   * Where the document holding `at` ends: the next marker line, or the text's end; -1 when a line at
   * column 0 could end it otherwise (a document end, a directive, a marker with content).
   */
  documentEnd(at: number): number {
    let p = this.lineAfter(at);
    while (p < this.end) {
      if (this.startsColumnZeroSyntax(p)) return this.isMarker(p) ? p : -1;
      p = this.lineAfter(p);
    }
    return this.end;
  }

  isSequenceItem(at: number): boolean {
    if (this.s.charCodeAt(at) !== DASH) return false;
    const next = this.s.charCodeAt(at + 1);
    return at + 1 >= this.end || next === SPACE || next === NEWLINE;
  }

  /**
   * The index of the next `char` from `from` on the same line, or -1. Scans the line only: a quote
   * never closed must not make every line that opens one read the rest of the text.
   */
  private onLine(char: number, from: number): number {
    const s = this.s;
    for (let i = from; i < this.end; i++) {
      const c = s.charCodeAt(i);
      if (c === char) return i;
      if (c === NEWLINE) return -1;
    }
    return -1;
  }

  /** The key {@link keyEnd} read last. */
  private key = '';

  /**
   * The index of the `:` ending the key that starts at `at` — a plain key of {@link KEY_CHAR}s (a
   * `:` inside it followed by one of them), or a one-line quoted key without escapes — and the key
   * in `key`; -1 when the line is not such an entry.
   */
  private keyEnd(at: number): number {
    const s = this.s;
    const first = s.charCodeAt(at);
    let colon: number;
    if (first === 0x22 || first === 0x27) {
      const close = this.onLine(first, at + 1);
      if (close < 0 || s.charCodeAt(close + 1) !== COLON) return -1;
      const key = s.slice(at + 1, close);
      if (first === 0x22 && key.includes('\\')) return -1;
      this.key = key;
      colon = close + 1;
    } else {
      if (first === DASH) return -1;
      let i = at;
      for (;;) {
        const c = s.charCodeAt(i);
        if (c === COLON) {
          const after = s.charCodeAt(i + 1);
          if (after < 128 && KEY_CHAR[after] === 1) {
            i++;
            continue;
          }
          break;
        }
        if (!(c < 128 && KEY_CHAR[c] === 1)) return -1;
        i++;
      }
      if (i === at) return -1;
      this.key = String(resolvePlain(s.slice(at, i)));
      colon = i;
    }
    const next = s.charCodeAt(colon + 1);
    return colon + 1 >= this.end || next === SPACE || next === NEWLINE ? colon : -1;
  }

  /** A block mapping whose entries start at column `indent`; its first key is at `keyAt`. */
  mapping(indent: number, keyAt: number, depth: number): Record<string, unknown> {
    if (depth > MAX_DEPTH) throw UNSUPPORTED;
    const s = this.s;
    const out: Record<string, unknown> = {};
    let at = keyAt;
    for (;;) {
      const colon = this.keyEnd(at);
      if (colon < 0) throw UNSUPPORTED;
      const key = this.key;
      if (key === '__proto__' || Object.hasOwn(out, key)) throw UNSUPPORTED;
      this.values++;
      let p = colon + 1;
      while (s.charCodeAt(p) === SPACE) p++;
      if (p >= this.end || s.charCodeAt(p) === NEWLINE) {
        this.pos = this.lineAfter(p);
        out[key] = this.nested(indent, true, depth + 1);
      } else {
        out[key] = this.inline(p, indent, depth + 1);
      }
      const next = this.nextContent();
      if (next < indent) return out;
      if (next > indent) throw UNSUPPORTED;
      at = this.pos + indent;
      if (indent === 0 && this.startsColumnZeroSyntax(at)) {
        if (this.isMarker(at)) return out;
        throw UNSUPPORTED;
      }
      if (this.isSequenceItem(at)) throw UNSUPPORTED;
    }
  }

  /** A block sequence whose `-` indicators are at column `indent`; `pos` is at its first item's line. */
  private sequence(indent: number, depth: number): unknown[] {
    if (depth > MAX_DEPTH) throw UNSUPPORTED;
    const s = this.s;
    const out: unknown[] = [];
    for (;;) {
      this.values++;
      const lineStart = this.pos;
      let p = lineStart + indent + 1;
      while (s.charCodeAt(p) === SPACE) p++;
      let empty = false;
      if (p >= this.end || s.charCodeAt(p) === NEWLINE) {
        this.pos = this.lineAfter(p);
        const item = this.nested(indent, false, depth + 1);
        empty = item === null;
        out.push(item);
      } else if (this.isSequenceItem(p)) {
        throw UNSUPPORTED;
      } else if (this.keyEnd(p) >= 0) {
        out.push(this.mapping(p - lineStart, p, depth + 1));
      } else {
        out.push(this.inline(p, indent, depth + 1));
      }
      const next = this.nextContent();
      if (next < indent) {
        // js-yaml goes on with this sequence after an empty last item when a shallower `-` follows.
        if (empty && next >= 0 && this.isSequenceItem(this.pos + next)) throw UNSUPPORTED;
        return out;
      }
      if (next > indent) throw UNSUPPORTED;
      const at = this.pos + indent;
      if (!this.isSequenceItem(at)) {
        // A key at the sequence's own column: the sequence was a mapping value at the same
        // indentation, and the mapping goes on (or, anywhere else, refuses the line).
        if (indent === 0 && this.startsColumnZeroSyntax(at) && !this.isMarker(at)) throw UNSUPPORTED;
        return out;
      }
    }
  }

  /**
   * The value of an entry or item whose line ended after its indicator: a block collection on the
   * lines below, deeper than `indent` (or, for a mapping value, a sequence at `indent` itself), else null.
   */
  private nested(indent: number, mappingValue: boolean, depth: number): unknown {
    const next = this.nextContent();
    const at = this.pos + next;
    if (next > indent) {
      if (this.isSequenceItem(at)) return this.sequence(next, depth);
      return this.mapping(next, at, depth);
    }
    if (next === indent && mappingValue && this.isSequenceItem(at)) return this.sequence(next, depth);
    return null;
  }

  /**
   * A value that starts at `at` on its entry's or item's line; `indent` is the column of the
   * collection holding it. Leaves `pos` at the start of the line after the value.
   */
  private inline(at: number, indent: number, depth: number): unknown {
    const s = this.s;
    const c = s.charCodeAt(at);
    const lineEnd = this.lineEnd(at);
    let value: unknown;
    if (c === 0x7c) return this.literal(at, lineEnd, indent);
    if (c === 0x27 || c === 0x22) {
      value = this.quoted(at, indent);
      if (this.nextLineDeeper(indent)) throw UNSUPPORTED;
      return value;
    }
    if (c === 0x5b) value = this.flowSequence(at, lineEnd, depth);
    else if (c === 0x7b) {
      if (!this.onlySpaces(at + 1, lineEnd, 0x7d)) throw UNSUPPORTED;
      value = {};
    } else {
      if (c < 128 && INDICATOR[c] === 1) throw UNSUPPORTED;
      const text = this.trimmed(at, lineEnd);
      if ((c === DASH || c === 0x3f || c === COLON) && (text.length === 1 || text.charCodeAt(1) === SPACE))
        throw UNSUPPORTED;
      if (!plainLine(text)) throw UNSUPPORTED;
      this.pos = lineEnd + 1;
      return resolvePlain(this.continuePlain(text, indent));
    }
    this.pos = lineEnd + 1;
    // A scalar continued (or commented) on a deeper line below is left to js-yaml.
    if (this.nextLineDeeper(indent)) throw UNSUPPORTED;
    return value;
  }

  /**
   * A plain scalar's further lines, from `pos`: each line indented deeper than `indent` continues it,
   * folded as YAML folds plain scalars (a single line break becomes a space, n blank lines n line
   * breaks; each line's surrounding spaces dropped). Leaves `pos` after its last line.
   */
  private continuePlain(first: string, indent: number): string {
    const s = this.s;
    let text = first;
    for (;;) {
      let breaks = 1;
      let p = this.pos;
      let i = p;
      for (;;) {
        while (s.charCodeAt(i) === SPACE) i++;
        if (i >= this.end || s.charCodeAt(i) !== NEWLINE) break;
        breaks++;
        p = i = i + 1;
      }
      if (i >= this.end || i - p <= indent) return text;
      // A comment line below a plain scalar ends it; js-yaml decides what follows.
      if (s.charCodeAt(i) === HASH) throw UNSUPPORTED;
      const lineEnd = this.lineEnd(i);
      const line = this.trimmed(i, lineEnd);
      if (!plainLine(line)) throw UNSUPPORTED;
      text += (breaks === 1 ? ' ' : '\n'.repeat(breaks - 1)) + line;
      this.pos = lineEnd + 1;
    }
  }

  /** The text from `from` to `lineEnd` without its trailing spaces. */
  private trimmed(from: number, lineEnd: number): string {
    let stop = lineEnd;
    while (this.s.charCodeAt(stop - 1) === SPACE) stop--;
    return this.s.slice(from, stop);
  }

  /** Whether only spaces follow `close` (a required closing character at `from`, after spaces) to `lineEnd`. */
  private onlySpaces(from: number, lineEnd: number, close: number): boolean {
    const s = this.s;
    let i = from;
    while (s.charCodeAt(i) === SPACE) i++;
    if (s.charCodeAt(i) !== close) return false;
    i++;
    while (i < lineEnd && s.charCodeAt(i) === SPACE) i++;
    return i === lineEnd;
  }

  /** Whether the next non-blank line (a comment counts) is indented deeper than `indent`. */
  private nextLineDeeper(indent: number): boolean {
    const s = this.s;
    let p = this.pos;
    while (p < this.end) {
      let i = p;
      while (s.charCodeAt(i) === SPACE) i++;
      if (i < this.end && s.charCodeAt(i) !== NEWLINE) return i - p > indent;
      p = i + 1;
    }
    return false;
  }

  /**
   * A single- or double-quoted scalar from its opening quote at `at`, over as many lines as it takes,
   * folded as YAML folds quoted scalars: the spaces around each line break dropped, a single break
   * read as a space and n blank lines as n breaks; `''` in single quotes, escapes in double quotes
   * (a backslash before a line break joins the lines). Only spaces may follow the closing quote on its
   * line. Leaves `pos` at the start of the next line.
   */
  private quoted(at: number, indent: number): string {
    const s = this.s;
    const quote = s.charCodeAt(at);
    const double = quote === 0x22;
    let text = '';
    let p = at + 1;
    // The segment to keep since the last break or escape: from `start` to `end` (trailing spaces out).
    let start = p;
    let end = p;
    for (;;) {
      if (p >= this.end) throw UNSUPPORTED;
      const c = s.charCodeAt(p);
      if (c === quote) {
        if (!double && s.charCodeAt(p + 1) === quote) {
          text += s.slice(start, p + 1);
          p += 2;
          start = end = p;
          continue;
        }
        text += s.slice(start, p);
        const lineEnd = this.lineEnd(p);
        this.expectLineEnd(p + 1, lineEnd);
        this.pos = lineEnd + 1;
        return text;
      }
      if (c === NEWLINE) {
        text += s.slice(start, end);
        const [resume, breaks] = this.skipBreaks(p, indent);
        text += breaks === 1 ? ' ' : '\n'.repeat(breaks - 1);
        p = start = end = resume;
        continue;
      }
      if (double && c === 0x5c) {
        text += s.slice(start, p);
        const e = s.charCodeAt(p + 1);
        if (e === NEWLINE) {
          p = this.skipBreaks(p + 1, indent)[0];
        } else {
          const simple = e < 128 ? ESCAPES[e] : undefined;
          if (simple !== undefined) {
            text += simple;
            p += 2;
          } else {
            const digits = e === 0x78 ? 2 : e === 0x75 ? 4 : 0;
            if (digits === 0) throw UNSUPPORTED;
            const hex = s.slice(p + 2, p + 2 + digits);
            if (!/^[0-9A-Fa-f]+$/.test(hex) || hex.length !== digits) throw UNSUPPORTED;
            text += String.fromCharCode(parseInt(hex, 16));
            p += 2 + digits;
          }
        }
        start = end = p;
        continue;
      }
      p++;
      if (c !== SPACE) end = p;
    }
  }

  /**
   * From a line break at `at`: the position where the text goes on (past further blank lines and the
   * indentation) and how many line breaks were passed. A continuation not indented past `indent` (a
   * column-0 line could be a document marker) is left to js-yaml.
   */
  private skipBreaks(at: number, indent: number): [number, number] {
    const s = this.s;
    let breaks = 0;
    let q = at;
    let lineIndent = 0;
    while (s.charCodeAt(q) === NEWLINE) {
      breaks++;
      const lineStart = ++q;
      while (s.charCodeAt(q) === SPACE) q++;
      lineIndent = q - lineStart;
    }
    if (q >= this.end || lineIndent <= indent) throw UNSUPPORTED;
    return [q, breaks];
  }

  private expectLineEnd(from: number, lineEnd: number): void {
    for (let i = from; i < lineEnd; i++) if (this.s.charCodeAt(i) !== SPACE) throw UNSUPPORTED;
  }

  /** `[a, "b", 'c']` on one line: scalars only. */
  private flowSequence(at: number, lineEnd: number, depth: number): unknown[] {
    if (depth > MAX_DEPTH) throw UNSUPPORTED;
    const s = this.s;
    const out: unknown[] = [];
    let i = at + 1;
    while (s.charCodeAt(i) === SPACE) i++;
    if (s.charCodeAt(i) === 0x5d) {
      this.expectLineEnd(i + 1, lineEnd);
      return out;
    }
    for (;;) {
      while (s.charCodeAt(i) === SPACE) i++;
      const c = s.charCodeAt(i);
      if (c === 0x22 || c === 0x27) {
        const close = this.onLine(c, i + 1);
        if (close < 0) throw UNSUPPORTED;
        const text = s.slice(i + 1, close);
        if (text.includes('\\') || s.charCodeAt(close + 1) === c) throw UNSUPPORTED;
        out.push(text);
        i = close + 1;
      } else {
        const from = i;
        while (i < lineEnd && s.charCodeAt(i) < 128 && KEY_CHAR[s.charCodeAt(i)] === 1) i++;
        if (i === from || (c === DASH && !(i - from > 1))) throw UNSUPPORTED;
        out.push(resolvePlain(s.slice(from, i)));
      }
      this.values++;
      while (s.charCodeAt(i) === SPACE) i++;
      const sep = s.charCodeAt(i);
      if (sep === 0x5d) {
        this.expectLineEnd(i + 1, lineEnd);
        return out;
      }
      if (sep !== 0x2c) throw UNSUPPORTED;
      i++;
      while (s.charCodeAt(i) === SPACE) i++;
      if (s.charCodeAt(i) === 0x5d) throw UNSUPPORTED;
    }
  }

  /**
   * A literal block scalar (`|`, `|-`, `|+`) whose header is at `at`, held by a collection at column
   * `indent`: its content lines are those indented past the first content line's indentation (the
   * first line deeper than `indent` decides it); a line indented less ends it. Chomping as the
   * header says: `-` strips the final line breaks, `+` keeps them all, none keeps one.
   */
  private literal(at: number, lineEnd: number, indent: number): string {
    const s = this.s;
    let i = at + 1;
    const chomp = s.charCodeAt(i);
    if (chomp === DASH || chomp === 0x2b) i++;
    this.expectLineEnd(i, lineEnd);
    let text = '';
    let textIndent = indent + 1;
    let detected = false;
    let emptyLines = 0;
    let content = false;
    let p = lineEnd + 1;
    for (;;) {
      let lineIndent = 0;
      let q = p;
      if (p < this.end) {
        while (s.charCodeAt(q) === SPACE && (!detected || lineIndent < textIndent)) {
          q++;
          lineIndent++;
        }
        if (!detected && lineIndent > textIndent) textIndent = lineIndent;
        if (q >= this.end || s.charCodeAt(q) === NEWLINE) {
          emptyLines++;
          p = q + 1;
          continue;
        }
      }
      if (p >= this.end || lineIndent < textIndent) {
        if (chomp === 0x2b) text += '\n'.repeat(content ? 1 + emptyLines : emptyLines);
        else if (chomp !== DASH && content) text += '\n';
        this.pos = Math.min(p, this.end);
        return text;
      }
      if (content || emptyLines > 0) text += '\n'.repeat(content ? 1 + emptyLines : emptyLines);
      content = true;
      detected = true;
      emptyLines = 0;
      const e = this.lineEnd(q);
      text += s.slice(q, e);
      p = e + 1;
    }
  }
}

/** Whether a line of a plain scalar (spaces trimmed) holds nothing that would end it: `: `, ` #`, a final `:`. */
function plainLine(line: string): boolean {
  return line.charCodeAt(line.length - 1) !== COLON && !line.includes(': ') && !line.includes(' #');
}
