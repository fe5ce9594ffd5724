/**
 * The parsed form of an envsubst template, as drone/envsubst v2 builds it (parse/node.go): literal
 * text and "function" nodes. A plain `${VAR}` is a function node with an empty name and no
 * arguments; `${VAR:=x${B}y}` is a node named `:=` with three arguments (text, function, text).
 */

/** Literal text, escapes already resolved (`$$` → `$`, `\/` → `/` inside replace patterns). */
export interface TextNode {
  readonly kind: 'text';
  readonly value: string;
}

/** One `${...}` expression. */
export interface FuncNode {
  readonly kind: 'func';
  /** The variable name (envsubst's `Param`). */
  readonly param: string;
  /** The operator token exactly as scanned: '', ':=', '=', ':-', '#', '##', '/', '/#', ',,', … */
  readonly name: string;
  /** Arguments in source order; each is text or a nested function, never a list. */
  readonly args: readonly TemplateNode[];
  /** Offset of the `${` in the (legacy-normalised) text, for diagnostics. */
  readonly offset: number;
}

export type TemplateNode = TextNode | FuncNode;

/**
 * Why a template was rejected. The first five are envsubst's own parse errors; the rest are
 * conditions where envsubst silently misbehaves or crashes and we stop with an error instead.
 */
export type TemplateErrorReason =
  | 'bad-substitution'
  | 'missing-closing-brace'
  | 'variable-name'
  | 'function-argument'
  | 'default-function'
  | 'nul-character'
  | 'nesting-too-deep'
  | 'substring-bounds';

/** Internal failure of parsing or evaluation; the processor turns it into a SpecError with a line. */
export class TemplateError extends Error {
  readonly reason: TemplateErrorReason;
  /** Offset in the text that was parsed (legacy-normalised), pointing at the culprit's `${`. */
  readonly offset: number;

  constructor(reason: TemplateErrorReason, offset: number) {
    super(describeTemplateError(reason));
    this.name = 'TemplateError';
    this.reason = reason;
    this.offset = offset;
  }
}

/** Human text for a reason; envsubst's wording where envsubst has one. */
export function describeTemplateError(reason: TemplateErrorReason): string {
  switch (reason) {
    case 'bad-substitution':
      return 'bad substitution';
    case 'missing-closing-brace':
      return 'missing closing brace';
    case 'variable-name':
      return 'unable to parse variable name';
    case 'function-argument':
      return 'unable to parse substitution within function';
    case 'default-function':
      return 'unable to parse default function';
    case 'nul-character':
      return 'NUL character in the text (envsubst would silently drop everything after it)';
    case 'nesting-too-deep':
      return 'substitutions nested too deeply';
    case 'substring-bounds':
      return 'substring with a negative or overflowing length (envsubst crashes on it)';
  }
}
