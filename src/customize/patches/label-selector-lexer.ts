/**
 * Tokens of the Kubernetes label-selector string syntax (`a=b,c in (x,y),!d`), split the way
 * apimachinery's `labels.Parse` lexer does: whitespace separates; `!`, `=`, `(`, `)`, `,`, `<`,
 * `>` are operator characters (`==` and `!=` are read as one token); every other run of
 * characters is an identifier, except the keywords `in` and `notin`.
 */

/** `id` is any word (key or value); the rest are the keywords, operators and the end marker. */
export type TokenType = 'id' | 'in' | 'notin' | '(' | ')' | ',' | '!' | '=' | '==' | '!=' | '>' | '<' | 'end';

/** One token and where it starts, for column numbers in errors. */
export interface Token {
  type: TokenType;
  text: string;
  /** 0-based offset in the selector text. */
  offset: number;
}

const WHITESPACE = new Set([' ', '\t', '\r', '\n']);
const SYMBOLS = new Set(['=', '!', '(', ')', ',', '>', '<']);

/** Splits the selector into tokens, ending with an `end` token. Never throws. */
export function lexLabelSelector(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i] as string;
    if (WHITESPACE.has(ch)) {
      i++;
      continue;
    }
    if (SYMBOLS.has(ch)) {
      // The longest operator wins: "==" and "!=" are one token, "=(" is "=" then "(".
      const pair = text.slice(i, i + 2);
      const type = (pair === '==' || pair === '!=' ? pair : ch) as TokenType;
      tokens.push({ type, text: type, offset: i });
      i += type.length;
      continue;
    }
    const start = i;
    while (i < text.length && !WHITESPACE.has(text[i] as string) && !SYMBOLS.has(text[i] as string)) i++;
    const word = text.slice(start, i);
    tokens.push({ type: word === 'in' || word === 'notin' ? word : 'id', text: word, offset: start });
  }
  tokens.push({ type: 'end', text: 'end of string', offset: text.length });
  return tokens;
}
