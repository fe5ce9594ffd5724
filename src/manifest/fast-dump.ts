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
    let text = keys.get(key);
    if (text === undefined) {
      const dumped = jsYaml.dump({ [key]: null }, options.dumpOptions);
      if (dumped.startsWith('? ') || !dumped.endsWith(': null\n')) throw new Unsupported();
      text = dumped.slice(0, -': null\n'.length);
      keys.set(key, text);
    }
    return text;
  };

  const scalarText = (value: string, level: number): string => {
    const single = singles.get(value);
    if (single !== undefined) return single;
    let block = blocks.get(value);
    if (!block) {
      const dumped = jsYaml.dump(value, options.dumpOptions).slice(0, -1);
      if (dumped[0] !== '|' && dumped[0] !== '>') {
        singles.set(value, dumped);
        return dumped;
      }
      const [header, ...rest] = dumped.split('\n');
      block = { header: header!, lines: rest.map((l) => (l === '' ? '' : l.slice(2))) };
      blocks.set(value, block);
    }
    const indent = ' '.repeat(2 * Math.max(1, level));
    let out = block.header;
    for (const line of block.lines) out += line === '' ? '\n' : `\n${indent}${line}`;
    return out;
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

  // The structure, as js-yaml's writeNode / writeBlockMapping / writeBlockSequence lay it out.
  const node = (value: Value, level: number, compact: boolean, inSequence: boolean): string => {
    if (typeof value === 'string') return scalarText(value, level);
    if (Array.isArray(value)) {
      if (value.length === 0) return '[]';
      return sequence(value, !inSequence && level > 0 ? level - 1 : level, compact);
    }
    if (value !== null && typeof value === 'object') {
      const entries = Object.keys(value);
      if (entries.length === 0) return '{}';
      return mapping(value as Record<string, Value>, entries, level, compact);
    }
    return primitive(value);
  };

  const mapping = (object: Record<string, Value>, keyList: string[], level: number, compact: boolean): string => {
    keyList.sort(options.compareKeys);
    let out = '';
    const newline = `\n${' '.repeat(2 * level)}`;
    for (const key of keyList) {
      const value = object[key];
      if (value === undefined) continue;
      const dumped = node(value, level + 1, false, false);
      out +=
        (!compact || out !== '' ? newline : '') +
        keyText(key) +
        (startsOnNextLine(value, dumped) ? ':' : ': ') +
        dumped;
    }
    return out || '{}';
  };

  const sequence = (array: Value[], level: number, compact: boolean): string => {
    let out = '';
    const newline = `\n${' '.repeat(2 * level)}`;
    for (const item of array) {
      // Items are laid out compact, so nothing in a sequence starts on the next line.
      out +=
        (!compact || out !== '' ? newline : '') + '- ' + node(item === undefined ? null : item, level + 1, true, true);
    }
    return out;
  };

  /**
   * Whether a mapping value's text begins with a line break (a non-empty nested collection). Known
   * from the value, not read from the text: reading a character of a concatenated string makes V8
   * flatten it, which made every level copy its whole subtree.
   */
  const startsOnNextLine = (value: Value, dumped: string): boolean =>
    typeof value === 'object' && value !== null && (Array.isArray(value) ? value.length > 0 : dumped !== '{}');

  return {
    dump(value) {
      try {
        return `${node(value, 0, true, false)}\n`;
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
