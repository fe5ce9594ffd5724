/**
 * Parser for the envsubst template grammar, rule for rule the one in drone/envsubst v2
 * (parse/parse.go), including its quirks: `${VAR-x}` and `${VAR+x}` are syntax errors, a replace
 * pattern runs to the next unescaped `/` even past a `}`, `${VAR:?x}`/`${VAR:+x}` parse as defaults.
 *
 * Top-level text is scanned with indexOf jumps between `$` signs, so a large YAML file with few
 * substitutions costs one pass of native string search.
 */
import {
  acceptCasingFunc,
  acceptColon,
  acceptDefaultFunc,
  acceptHashFunc,
  acceptIdent,
  acceptNotClosing,
  acceptNotSlash,
  acceptOneColon,
  acceptOneEqual,
  acceptOneHash,
  acceptPercentFunc,
  acceptReplaceFunc,
  acceptSlash,
  MODE_ESCAPE,
  MODE_IDENT,
  MODE_LBRACK,
  MODE_RBRACK,
  rejectColonClose,
  scanToken,
  type Accept,
  type Cursor,
} from './scan.js';
import { TemplateError, type FuncNode, type TemplateNode, type TextNode } from './syntax-tree.js';

/** Deepest nesting of `${` inside function arguments we accept; envsubst has no limit, JS stacks do. */
export const MAX_NESTING = 500;

/**
 * Parses a whole template into its top-level nodes, in order. Adjacent literal text is merged into
 * one text node. Throws {@link TemplateError} (with the offset of the offending `${`) on a syntax
 * error, exactly where envsubst returns one. A NUL character is rejected up front: envsubst treats
 * it as end of input and would silently drop the rest of the text.
 */
export function parseTemplate(text: string): TemplateNode[] {
  const nul = text.indexOf('\0');
  if (nul >= 0) throw new TemplateError('nul-character', nul);

  const nodes: TemplateNode[] = [];
  const cursor: Cursor = { text, pos: 0 };
  let pending: string[] = [];
  let from = 0;
  const flushText = (until: number): void => {
    if (until > from) pending.push(text.slice(from, until));
    // One piece (the usual case) is the text's own slice: no copy of the artifact.
    if (pending.length > 0) nodes.push(textNode(pending.length === 1 ? pending[0]! : pending.join('')));
    pending = [];
  };

  // `from`: the start of the text not yet taken; `scan`: where the next `$` is looked for.
  let scan = 0;
  for (let dollar = text.indexOf('$'); dollar >= 0; dollar = text.indexOf('$', scan)) {
    const next = text.charCodeAt(dollar + 1);
    if (next === 0x7b /* { */) {
      flushText(dollar);
      cursor.pos = dollar + 2;
      nodes.push(parseFunc(cursor, dollar, 1));
      from = scan = cursor.pos;
    } else if (next === 0x24 /* $ */) {
      // `$$` is one literal `$`, and the second `$` is consumed: `$${X}` stays the text `${X}`.
      pending.push(text.slice(from, dollar + 1));
      from = scan = dollar + 2;
    } else {
      // A lone `$` (bare `$VAR`, a pattern's `$` anchor) is literal text: the text goes on unchanged.
      scan = dollar + 1;
    }
  }
  flushText(text.length);
  return nodes;
}

function textNode(value: string): TextNode {
  return { kind: 'text', value };
}

function funcNode(param: string, name: string, args: TemplateNode[], offset: number): FuncNode {
  return { kind: 'func', param, name, args, offset };
}

/** Parses after `${` (at `start`) through the closing `}`. */
function parseFunc(c: Cursor, start: number, depth: number): FuncNode {
  if (depth > MAX_NESTING) throw new TemplateError('nesting-too-deep', start);
  if (c.text[c.pos] === '#') return parseLength(c, start);

  const ident = scanToken(c, MODE_IDENT, acceptIdent);
  if (ident.kind !== 'ident') throw new TemplateError('variable-name', start);
  const param = ident.text;

  switch (c.text[c.pos]) {
    case ':':
      return parseDefaultOrSubstring(c, param, start, depth);
    case '=':
      return parseDefault(c, param, start, depth);
    case ',':
    case '^':
      return parseCasing(c, param, start);
    case '/':
      return parseReplace(c, param, start, depth);
    case '#':
      return parseRemove(c, param, acceptHashFunc, start, depth);
    case '%':
      return parseRemove(c, param, acceptPercentFunc, start, depth);
  }
  if (scanToken(c, MODE_RBRACK, acceptIdent).kind !== 'rbrack') throw new TemplateError('missing-closing-brace', start);
  return funcNode(param, '', [], start);
}

/** One function argument: a nested `${...}` or a run of accepted text. */
function parseParam(c: Cursor, accept: Accept, mode: number, start: number, depth: number): TemplateNode {
  const token = scanToken(c, mode | MODE_LBRACK, accept);
  if (token.kind === 'lbrack') return parseFunc(c, c.pos - 2, depth + 1);
  if (token.kind === 'ident') return textNode(token.text);
  throw new TemplateError('function-argument', start);
}

function scanOperator(c: Cursor, accept: Accept, start: number): string {
  const token = scanToken(c, MODE_IDENT, accept);
  if (token.kind !== 'ident') throw new TemplateError('bad-substitution', start);
  return token.text;
}

function consumeClose(c: Cursor, start: number): void {
  if (c.text.charCodeAt(c.pos) !== 0x7d) throw new TemplateError('bad-substitution', start);
  c.pos += 1;
}

function parseDefaultOrSubstring(c: Cursor, param: string, start: number, depth: number): FuncNode {
  const after = c.text.charCodeAt(c.pos + 1);
  // envsubst peeks past the `:` and then steps back by the width of the peeked character, not of
  // the `:`. For a multi-byte character that lands before the `:`, and the substring parse that
  // follows always fails; at end of input it does not step back at all and fails too.
  if (Number.isNaN(after) || after >= 0x80) throw new TemplateError('bad-substitution', start);
  if (after === 0x3d || after === 0x2d || after === 0x3f || after === 0x2b) return parseDefault(c, param, start, depth);
  return parseSubstring(c, param, start, depth);
}

/** `${VAR:offset}` and `${VAR:offset:length}`; either argument may be a nested `${...}`. */
function parseSubstring(c: Cursor, param: string, start: number, depth: number): FuncNode {
  const name = scanOperator(c, acceptOneColon, start);
  const args = [parseParam(c, rejectColonClose, MODE_IDENT, start, depth)];
  const separator = scanToken(c, MODE_IDENT | MODE_RBRACK, acceptColon);
  if (separator.kind === 'rbrack') return funcNode(param, name, args, start);
  // Any run of colons separates the two arguments.
  if (separator.kind !== 'ident') throw new TemplateError('bad-substitution', start);
  args.push(parseParam(c, acceptNotClosing, MODE_IDENT, start, depth));
  consumeClose(c, start);
  return funcNode(param, name, args, start);
}

/** `${VAR#pat}`, `${VAR##pat}`, `${VAR%pat}`, `${VAR%%pat}`; the pattern may not be empty. */
function parseRemove(c: Cursor, param: string, accept: Accept, start: number, depth: number): FuncNode {
  const name = scanOperator(c, accept, start);
  const args = [parseParam(c, acceptNotClosing, MODE_IDENT, start, depth)];
  consumeClose(c, start);
  return funcNode(param, name, args, start);
}

/**
 * `${VAR/pat/rep}`, `//`, `/#`, `/%`. Escapes `\/`, `\\` and `$$` work in both parts. The pattern
 * stops only at `/` or `${`, so `}` belongs to it; an empty replacement gives a one-argument node.
 */
function parseReplace(c: Cursor, param: string, start: number, depth: number): FuncNode {
  const name = scanOperator(c, acceptReplaceFunc, start);
  const args = [parseParam(c, acceptNotSlash, MODE_IDENT | MODE_ESCAPE, start, depth)];
  scanOperator(c, acceptSlash, start);
  if (c.text.charCodeAt(c.pos) === 0x7d) {
    c.pos += 1;
    return funcNode(param, name, args, start);
  }
  args.push(parseParam(c, acceptNotClosing, MODE_IDENT | MODE_ESCAPE, start, depth));
  consumeClose(c, start);
  return funcNode(param, name, args, start);
}

/**
 * `${VAR=d}`, `${VAR:=d}`, `${VAR:-d}`, `${VAR:?d}`, `${VAR:+d}`: the default is any mix of text
 * and nested `${...}` up to the closing brace, with no escapes.
 */
function parseDefault(c: Cursor, param: string, start: number, depth: number): FuncNode {
  const accept = c.text[c.pos] === '=' ? acceptOneEqual : acceptDefaultFunc;
  const token = scanToken(c, MODE_IDENT, accept);
  if (token.kind !== 'ident') throw new TemplateError('default-function', start);
  const args: TemplateNode[] = [];
  while (c.text.charCodeAt(c.pos) !== 0x7d) {
    args.push(parseParam(c, acceptNotClosing, MODE_IDENT, start, depth));
  }
  c.pos += 1;
  return funcNode(param, token.text, args, start);
}

/** `${VAR^}`, `${VAR^^}`, `${VAR,}`, `${VAR,,}` (and the mixed two-character forms). */
function parseCasing(c: Cursor, param: string, start: number): FuncNode {
  const name = scanOperator(c, acceptCasingFunc, start);
  consumeClose(c, start);
  return funcNode(param, name, [], start);
}

/** `${#VAR}`. */
function parseLength(c: Cursor, start: number): FuncNode {
  const name = scanOperator(c, acceptOneHash, start);
  const param = scanOperator(c, acceptIdent, start);
  consumeClose(c, start);
  return funcNode(param, name, [], start);
}
