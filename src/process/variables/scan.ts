/**
 * The token scanner used inside `${...}`, mirroring drone/envsubst's parse/scan.go: the parser
 * switches the scanner's mode (which token kinds are recognised) and its accept predicate before
 * every token, and an "identifier" is simply the longest run of accepted characters.
 *
 * Differences in representation, not behaviour: envsubst deletes escape characters from its buffer
 * while scanning; this scanner leaves the text alone and builds the token from slices. Positions
 * are UTF-16 offsets; envsubst's byte offsets only matter to accept predicates that look at the
 * index, and those accept ASCII characters only, where both agree.
 */

/** Recognise identifiers (runs of accepted characters). */
export const MODE_IDENT = 1;
/** Recognise `${` as an opening token. Inside an identifier it also ends the run. */
export const MODE_LBRACK = 2;
/** Recognise `}` as a closing token (only as the first character of a scan). */
export const MODE_RBRACK = 4;
/** Resolve `$$`, `\/` and `\\` escapes inside identifiers. */
export const MODE_ESCAPE = 8;

/**
 * Decides whether a character belongs to the current identifier. `index` is the 1-based position
 * of the character's end within the token (envsubst's `pos - start` after reading it).
 */
export type Accept = (codePoint: number, index: number) => boolean;

export type Token =
  | { readonly kind: 'eof' }
  | { readonly kind: 'lbrack' }
  | { readonly kind: 'rbrack' }
  | { readonly kind: 'illegal' }
  | { readonly kind: 'ident'; readonly text: string };

const EOF: Token = { kind: 'eof' };
const LBRACK: Token = { kind: 'lbrack' };
const RBRACK: Token = { kind: 'rbrack' };
const ILLEGAL: Token = { kind: 'illegal' };

/** A cursor over the template text. `pos` is public so the parser can peek and step. */
export interface Cursor {
  readonly text: string;
  pos: number;
}

/** Reads the next token at `cursor.pos` under `mode`/`accept` and advances past it. */
export function scanToken(cursor: Cursor, mode: number, accept: Accept): Token {
  const { text } = cursor;
  const start = cursor.pos;
  if (start >= text.length) return EOF;
  const first = text.charCodeAt(start);
  if (mode & MODE_LBRACK && first === 0x24 /* $ */ && text.charCodeAt(start + 1) === 0x7b /* { */) {
    cursor.pos = start + 2;
    return LBRACK;
  }
  if (mode & MODE_RBRACK && first === 0x7d /* } */) {
    cursor.pos = start + 1;
    return RBRACK;
  }
  if (!(mode & MODE_IDENT)) {
    // envsubst has consumed the character when it reports it illegal; nothing recovers from it.
    cursor.pos = start + 1;
    return ILLEGAL;
  }

  const escapes = (mode & MODE_ESCAPE) !== 0;
  const parts: string[] = [];
  let segment = start;
  let pos = start;
  let length = 0;
  if (escapes && isEscape(text, pos)) {
    // The escape character is dropped and the escaped one is taken verbatim, unchecked.
    segment = pos + 1;
    pos += 2;
    length = 1;
  } else {
    const cp = text.codePointAt(pos) ?? 0;
    const width = cp > 0xffff ? 2 : 1;
    if (!accept(cp, width)) {
      cursor.pos = pos + width;
      return ILLEGAL;
    }
    pos += width;
    length = width;
  }
  while (pos < text.length) {
    const ch = text.charCodeAt(pos);
    if (mode & MODE_LBRACK && ch === 0x24 && text.charCodeAt(pos + 1) === 0x7b) break;
    if (escapes && isEscape(text, pos)) {
      parts.push(text.slice(segment, pos));
      segment = pos + 1;
      pos += 2;
      length += 1;
      continue;
    }
    const cp = text.codePointAt(pos) ?? 0;
    const width = cp > 0xffff ? 2 : 1;
    if (!accept(cp, length + width)) break;
    pos += width;
    length += width;
  }
  cursor.pos = pos;
  parts.push(text.slice(segment, pos));
  return { kind: 'ident', text: parts.length === 1 ? parts[0]! : parts.join('') };
}

/** `$$`, `\/` and `\\` are escapes where escapes are on (envsubst's scanEscaped with escapeAll). */
function isEscape(text: string, pos: number): boolean {
  const ch = text.charCodeAt(pos);
  const next = text.charCodeAt(pos + 1);
  if (ch === 0x24) return next === 0x24;
  if (ch === 0x5c /* \ */) return next === 0x2f /* / */ || next === 0x5c;
  return false;
}

// Accept predicates, one per envsubst acceptFunc the parser uses.

const LETTER_OR_DIGIT = /^[\p{L}\p{Nd}]$/u;

/** Variable names: Unicode letters and decimal digits (Go's unicode.IsLetter/IsDigit) and `_`. */
export const acceptIdent: Accept = (cp) => {
  if (cp < 0x80) {
    return (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x5f;
  }
  return LETTER_OR_DIGIT.test(String.fromCodePoint(cp));
};
/** Any run of `:` (the substring separator). */
export const acceptColon: Accept = (cp) => cp === 0x3a;
/** The single `#` of `${#VAR}`. */
export const acceptOneHash: Accept = (cp, i) => cp === 0x23 && i === 1;
/** Everything but `}`: default words, trim patterns, substring lengths, replacements. */
export const acceptNotClosing: Accept = (cp) => cp !== 0x7d;
/** `#` or `##`. */
export const acceptHashFunc: Accept = (cp, i) => cp === 0x23 && i < 3;
/** `%` or `%%`. */
export const acceptPercentFunc: Accept = (cp, i) => cp === 0x25 && i < 3;
/** `:=`, `:-`, `:?`, `:+`. */
export const acceptDefaultFunc: Accept = (cp, i) =>
  (i === 1 && cp === 0x3a) || (i === 2 && (cp === 0x3d || cp === 0x2d || cp === 0x3f || cp === 0x2b));
/** `/`, `//`, `/#`, `/%`. */
export const acceptReplaceFunc: Accept = (cp, i) =>
  (i === 1 && cp === 0x2f) || (i === 2 && (cp === 0x2f || cp === 0x23 || cp === 0x25));
/** The single `=` of `${VAR=d}`. */
export const acceptOneEqual: Accept = (cp, i) => i === 1 && cp === 0x3d;
/** The single `:` of `${VAR:n}`. */
export const acceptOneColon: Accept = (cp, i) => i === 1 && cp === 0x3a;
/** A substring offset: everything but `:` and `}`. */
export const rejectColonClose: Accept = (cp) => cp !== 0x3a && cp !== 0x7d;
/** Any run of `/` (the replace separator). */
export const acceptSlash: Accept = (cp) => cp === 0x2f;
/** A replace pattern: everything but `/`, so `}` included. */
export const acceptNotSlash: Accept = (cp) => cp !== 0x2f;
/** `,`, `,,`, `^`, `^^` — and, as in envsubst, the mixed `,^` and `^,`. */
export const acceptCasingFunc: Accept = (cp, i) => (cp === 0x2c || cp === 0x5e) && i < 3;
