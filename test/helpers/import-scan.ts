/**
 * The import graph of src/**\/*.ts, read from the source text: every `import … from`, `import type`,
 * `export … from`, side-effect `import '…'` and dynamic `import('…')` (also `typeof import('…')`)
 * with a relative specifier. TypeScript 7 ships no JS API (no ts.preProcessFile), so this is a small
 * tokenizer: comments are skipped and strings are whole tokens, so an import spelled in a comment or
 * inside a string (a doc example, a generated script) never counts, and a type-only import does.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** One import of a file: the specifier as written and the 1-based line it is on. */
export interface ScannedImport {
  specifier: string;
  line: number;
}

type Token = { kind: 'word' | 'punct' | 'string'; text: string; line: number };

// After these, a `/` starts a regular expression rather than a division.
const REGEX_AFTER_PUNCT = new Set([
  '(',
  ',',
  '=',
  ':',
  '[',
  '!',
  '&',
  '|',
  '?',
  '{',
  '}',
  ';',
  '+',
  '-',
  '*',
  '%',
  '<',
  '>',
  '~',
  '^',
]);
const REGEX_AFTER_WORD = new Set([
  'return',
  'typeof',
  'instanceof',
  'in',
  'of',
  'new',
  'delete',
  'void',
  'throw',
  'case',
  'do',
  'else',
  'yield',
  'await',
]);

/** Splits TypeScript source into words, punctuation and string literals; comments and regex literals are dropped. */
function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  // Open template literals: the brace depth at which each `${` resumes its template.
  const templates: number[] = [];
  let depth = 0;
  let line = 1;
  let i = 0;
  const regexAllowed = () => {
    const last = tokens.at(-1);
    return (
      !last ||
      (last.kind === 'punct' && REGEX_AFTER_PUNCT.has(last.text)) ||
      (last.kind === 'word' && REGEX_AFTER_WORD.has(last.text))
    );
  };
  const readTemplate = (start: number) => {
    // From just after a backtick or a closing `}` of `${…}`: to the closing backtick, or into a `${`.
    let j = start;
    while (j < text.length) {
      const c = text[j]!;
      if (c === '\\') j += 2;
      else if (c === '`') return { end: j + 1, open: false };
      else if (c === '$' && text[j + 1] === '{') return { end: j + 2, open: true };
      else j++;
    }
    return { end: j, open: false };
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      const stop = end < 0 ? text.length : end + 2;
      line += countLines(text, i, stop);
      i = stop;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== c && text[j] !== '\n') {
        if (text[j] === '\\') {
          value += text[j + 1] ?? '';
          j += 2;
        } else value += text[j++];
      }
      tokens.push({ kind: 'string', text: value, line });
      i = j + 1;
    } else if (c === '`' || (c === '}' && templates.at(-1) === depth)) {
      if (c === '}') templates.pop();
      const { end, open } = readTemplate(i + 1);
      line += countLines(text, i, end);
      // A template is a value; its text never holds a specifier that counts.
      tokens.push({ kind: 'punct', text: '`', line });
      if (open) {
        templates.push(depth);
      }
      i = end;
    } else if (c === '/' && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n') {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        else if (text[j] === '/' && !inClass) break;
        j++;
      }
      j++;
      while (j < text.length && /[a-z]/i.test(text[j]!)) j++;
      tokens.push({ kind: 'punct', text: '/re/', line });
      i = j;
    } else if (/[\w$]/.test(c)) {
      let j = i;
      while (j < text.length && /[\w$]/.test(text[j]!)) j++;
      tokens.push({ kind: 'word', text: text.slice(i, j), line });
      i = j;
    } else {
      if (c === '{') depth++;
      else if (c === '}') depth--;
      tokens.push({ kind: 'punct', text: c, line });
      i++;
    }
  }
  return tokens;
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let k = from; k < to; k++) if (text[k] === '\n') n++;
  return n;
}

/** Every import specifier of a TypeScript module (relative or not), in source order. */
export function scanImports(text: string): ScannedImport[] {
  const tokens = tokenize(text);
  const found: ScannedImport[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind !== 'word' || (t.text !== 'import' && t.text !== 'export')) continue;
    // `x.import`, `import.meta`: a property, not a statement.
    if (tokens[i - 1]?.text === '.' || tokens[i + 1]?.text === '.') continue;
    const next = tokens[i + 1];
    if (t.text === 'import' && next?.text === '(' && tokens[i + 2]?.kind === 'string') {
      found.push({ specifier: tokens[i + 2]!.text, line: tokens[i + 2]!.line });
      continue;
    }
    if (t.text === 'import' && next?.kind === 'string') {
      found.push({ specifier: next.text, line: next.line });
      continue;
    }
    // `import … from '…'` / `export {…} from '…'` / `export * from '…'`: the clause ends at `from`.
    // An `export` of a declaration (`export function`, `export const x = …`) has no `from` before
    // the next `;` or declaration keyword, and is skipped.
    if (
      t.text === 'export' &&
      !(
        next?.text === '{' ||
        next?.text === '*' ||
        (next?.text === 'type' && (tokens[i + 2]?.text === '{' || tokens[i + 2]?.text === '*'))
      )
    )
      continue;
    for (let j = i + 1; j < tokens.length && j < i + 400; j++) {
      const u = tokens[j]!;
      if (u.text === ';' || (u.kind === 'word' && (u.text === 'import' || u.text === 'export'))) break;
      if (u.kind === 'string') {
        if (tokens[j - 1]?.text === 'from') found.push({ specifier: u.text, line: u.line });
        break;
      }
    }
  }
  return found;
}

/** An import between two files of src/, as the graph holds it. */
export interface ImportEdge {
  /** The imported file, relative to src/ (`render/render.ts`). */
  to: string;
  /** The specifier as written (`'../render/render.js'`). */
  specifier: string;
  line: number;
}

/** File (relative to src/, `/`-separated) → the files of src/ it imports. */
export type ImportGraph = Map<string, ImportEdge[]>;

/**
 * The import graph of every .ts file under `srcDir`. A relative specifier resolves like nodenext:
 * `x.js` is the file `x.ts`; a specifier naming no .ts file of src/ (JSON, templates) is not an edge.
 */
export function importGraph(srcDir: string): ImportGraph {
  const files: string[] = [];
  (function walk(dir: string) {
    for (const name of readdirSync(dir).sort()) {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (name.endsWith('.ts') && !name.endsWith('.d.ts'))
        files.push(path.relative(srcDir, p).split(path.sep).join('/'));
    }
  })(srcDir);
  const known = new Set(files);
  const graph: ImportGraph = new Map();
  for (const file of files) {
    const edges: ImportEdge[] = [];
    for (const { specifier, line } of scanImports(readFileSync(path.join(srcDir, file), 'utf8'))) {
      if (!specifier.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts');
      if (known.has(target)) edges.push({ to: target, specifier, line });
    }
    graph.set(file, edges);
  }
  return graph;
}
