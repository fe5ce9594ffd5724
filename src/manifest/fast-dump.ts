/**
 * A YAML emitter for plain JSON data that writes exactly what js-yaml's dump writes with the
 * options of serialize.ts (a test proves it byte for byte on every fixture object), several times
 * faster on CRD-heavy output. The layout (mappings, sequences, indentation, `{}`/`[]`) is written
 * here; every scalar's representation — plain, quoted, or a block literal and its header — is
 * asked of js-yaml once per distinct string and remembered, so js-yaml's quoting rules stay the
 * single source of truth.
 */
import jsYaml from 'js-yaml';
import { BoundedMap } from '../bounded-map.js';

export interface FastDumpOptions {
  /** The js-yaml options whose output this reproduces (lineWidth -1, noRefs, noArrayIndent). */
  dumpOptions: jsYaml.DumpOptions;
  compareKeys: (a: string, b: string) => number;
}

type Value = unknown;

interface BlockScalar {
  header: string;
  /** Content lines without indentation ('' for empty lines). */
  lines: string[];
  /** The whole text, indented for a level, by level. */
  atLevel: string[];
}

export interface FastDumper {
  dump(value: Value): string;
}

/**
 * Distinct scalars remembered. Bounded: with a distinct value per environment each environment
 * brings scalars of its own, and a scalar parsed from a larger text can keep that text alive.
 */
const SCALAR_ENTRIES = 2048;

export function createFastDumper(options: FastDumpOptions): FastDumper {
  const keys = new BoundedMap<string, string>(SCALAR_ENTRIES);
  const singles = new BoundedMap<string, string>(SCALAR_ENTRIES);
  const blocks = new BoundedMap<string, BlockScalar>(SCALAR_ENTRIES);

  const keyText = (key: string): string => {
    if (writtenAsKey(key)) return key;
    let text = keys.get(key);
    if (text === undefined) {
      const dumped = jsYaml.dump({ [key]: null }, options.dumpOptions);
      if (dumped.startsWith('? ') || !dumped.endsWith(': null\n')) throw new Unsupported();
      text = dumped.slice(0, -': null\n'.length);
      keys.set(key, text);
    }
    return text;
  };

  // Indentation and line breaks are interned per level, not rebuilt for every mapping.
  const newlines: string[] = [];
  const newline = (level: number): string => (newlines[level] ??= `\n${' '.repeat(2 * level)}`);

  // A block scalar's text at each level it was written at: descriptions repeat across a CRD's
  // versions at the same depth.
  const scalarText = (value: string, level: number): string => {
    if (writtenAsIs(value)) return value;
    const single = singles.get(value);
    if (single !== undefined) return single;
    let block = blocks.get(value);
    if (!block && writtenAsLiteral(value)) {
      block = literalBlock(value);
      blocks.set(value, block);
    }
    if (!block) {
      const dumped = jsYaml.dump(value, options.dumpOptions).slice(0, -1);
      if (dumped[0] !== '|' && dumped[0] !== '>') {
        singles.set(value, dumped);
        return dumped;
      }
      const [header, ...rest] = dumped.split('\n');
      block = { header: header!, lines: rest.map((l) => (l === '' ? '' : l.slice(2))), atLevel: [] };
      blocks.set(value, block);
    }
    const indentLevel = Math.max(1, level);
    let text = block.atLevel[indentLevel];
    if (text === undefined) {
      const lineStart = newline(indentLevel);
      const parts = [block.header];
      for (const line of block.lines) parts.push(line === '' ? '\n' : lineStart, line);
      text = block.atLevel[indentLevel] = parts.join('');
    }
    return text;
  };

  const primitive = (value: Value): string => {
    if (value === null) return 'null';
    if (value === true) return 'true';
    if (value === false) return 'false';
    if (typeof value === 'number') {
      if (Number.isInteger(value) && !Object.is(value, -0)) return String(value);
      return jsYaml.dump(value, options.dumpOptions).slice(0, -1);
    }
    throw new Unsupported();
  };

  // The structure, as js-yaml's writeNode / writeBlockMapping / writeBlockSequence lay it out. Every
  // piece goes into one array per document, joined once at the end: the document's text is then one
  // flat string, not a tree of concatenations that hashing and writing would first have to copy.

  /** Writes a value that follows `- ` or `key: ` on the same line (a scalar or an empty collection), or returns false. */
  const inline = (value: Value, level: number, out: string[]): boolean => {
    if (typeof value === 'string') out.push(scalarText(value, level));
    else if (Array.isArray(value)) {
      if (value.length !== 0) return false;
      out.push('[]');
    } else if (value !== null && typeof value === 'object') return false;
    else out.push(primitive(value));
    return true;
  };

  /** Writes a mapping's entries; false when it wrote none (every value undefined: js-yaml writes `{}`). */
  const mapping = (object: Record<string, Value>, level: number, compact: boolean, out: string[]): boolean => {
    const keyList = Object.keys(object).sort(options.compareKeys);
    let wrote = false;
    for (const key of keyList) {
      const value = object[key];
      if (value === undefined) continue;
      if (!compact || wrote) out.push(newline(level));
      wrote = true;
      out.push(keyText(key));
      if (typeof value !== 'object' || value === null) {
        out.push(': ');
        inline(value, level + 1, out);
      } else if (Array.isArray(value)) {
        if (value.length === 0) out.push(': []');
        else {
          out.push(':');
          // Sequences are not indented under their key (noArrayIndent).
          sequence(value, level, false, out);
        }
      } else {
        const mark = out.length;
        out.push(':');
        if (!mapping(value as Record<string, Value>, level + 1, false, out)) out[mark] = ': {}';
      }
    }
    return wrote;
  };

  /** Writes a sequence's items; items are laid out compact, so nothing in one starts on the next line. */
  const sequence = (array: Value[], level: number, compact: boolean, out: string[]): void => {
    let first = true;
    for (const element of array) {
      const item = element === undefined ? null : element;
      if (!compact || !first) out.push(newline(level));
      first = false;
      out.push('- ');
      if (inline(item, level + 1, out)) continue;
      if (Array.isArray(item)) sequence(item, level + 1, true, out);
      else if (!mapping(item as Record<string, Value>, level + 1, true, out)) out.push('{}');
    }
  };

  return {
    dump(value) {
      try {
        const out: string[] = [];
        if (Array.isArray(value) && value.length > 0) sequence(value, 0, true, out);
        else if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
          if (!mapping(value as Record<string, Value>, 0, true, out)) out.push('{}');
        } else inline(value, 0, out);
        out.push('\n');
        return out.join('');
      } catch (e) {
        // Anything the layout above does not cover (explicit keys over 1024 characters, exotic
        // values) goes to js-yaml itself.
        if (e instanceof Unsupported) return jsYaml.dump(value, options.dumpOptions);
        throw e;
      }
    },
  };
}

class Unsupported extends Error {}

/**
 * Strings starting with a letter that a YAML reader would take for null or a boolean (YAML 1.2,
 * and the YAML 1.1 words js-yaml quotes for older readers): js-yaml quotes them.
 */
const AMBIGUOUS = new Set(
  'null Null NULL true True TRUE false False FALSE y Y yes Yes YES n N no No NO on On ON off Off OFF'.split(' '),
);

/**
 * A one-line string js-yaml writes as it is, without asking it: a letter first (no indicator, no
 * number, timestamp or `.inf`), then printable ASCII, with no `: ` or ` #` inside and no space or
 * `:` last (js-yaml's plain-scalar rules), and not a word read as null or a boolean. Anything else is
 * asked of js-yaml.
 */
function writtenAsIs(value: string): boolean {
  return PLAIN_VALUE.test(value) && !value.includes(': ') && !value.includes(' #') && !AMBIGUOUS.has(value);
}
const PLAIN_VALUE = /^[A-Za-z](?:[ -~]*[!-9;-~])?$/;

/**
 * A multi-line string js-yaml writes as a literal block without asking it: printable ASCII and line
 * breaks only (anything else may need double quotes), not starting with a space or a line break
 * (those need an indentation indicator). With lines never folded, js-yaml writes every such string
 * as a literal block.
 */
function writtenAsLiteral(value: string): boolean {
  return value.includes('\n') && LITERAL_TEXT.test(value);
}
const LITERAL_TEXT = /^[!-~][ -~\n]*$/;

/**
 * The literal block js-yaml writes for a {@link writtenAsLiteral} string: `|` with `-` when it does
 * not end in a line break, `+` when it ends in more than one; its lines are the string's, without the
 * final line break.
 */
function literalBlock(value: string): BlockScalar {
  const clip = value.endsWith('\n');
  const keep = clip && value.endsWith('\n\n');
  return {
    header: keep ? '|+' : clip ? '|' : '|-',
    lines: (clip ? value.slice(0, -1) : value).split('\n'),
    atLevel: [],
  };
}

/** A key js-yaml writes as it is: a letter, then letters, digits and `_.-/` only (no flow indicators, keys are written as in a flow). */
function writtenAsKey(key: string): boolean {
  return key.length <= 1024 && PLAIN_KEY.test(key) && !AMBIGUOUS.has(key);
}
const PLAIN_KEY = /^[A-Za-z][A-Za-z0-9_./-]*$/;
