/**
 * clusterctl's simple processor (cmd/clusterctl/client/yamlprocessor/simple_processor.go) over
 * drone/envsubst v2: the text-level variable phase applied to a components file before it is
 * parsed as YAML. The steps of Process, in order:
 *  1. rewrite legacy `${ VAR }` spacing to `${VAR}`;
 *  2. parse the envsubst template (a syntax error stops here);
 *  3. record each top-level variable and whether its first occurrence has a default;
 *  4. fail once, listing every variable that has no value and no default;
 *  5. evaluate, with unset variables (only possible where a default exists, or inside another's
 *     arguments) evaluating to "".
 */
import { SpecError, error, peerWording } from '../../errors.js';
import { splitDocumentParts, type DocumentPart } from './document-parts.js';
import { evaluateTemplate, type Lookup } from './evaluate.js';
import { preservesValue } from './functions.js';
import { collectVariables, compareGoStrings, type VariableInfo } from './inspect.js';
import { normaliseLegacySpacing, type NormalisedText } from './legacy-spacing.js';
import { MissingVariablesError } from './missing-variables-error.js';
import { parseTemplate } from './parse.js';
import { TemplateError, type TemplateNode } from './syntax-tree.js';

/** A variable a template references, as clusterctl's GetVariableMap reports it. */
export interface VariableUse {
  name: string;
  /** Whether the first occurrence carries a default (then the variable is optional). */
  hasDefault: boolean;
}

/** What substitution produced. */
export interface SubstitutionResult {
  /** The substituted text. */
  text: string;
  /** The template's variables, as inspectVariables returns them. */
  variables: VariableUse[];
  /**
   * Names whose value came from `lookup` (it returned a string, "" included), sorted. Includes
   * variables used only inside another's default, since envsubst evaluates those too.
   */
  used: string[];
}

/**
 * Every top-level variable the text references, sorted by name (Go byte order), unique. The first
 * occurrence decides `hasDefault` (clusterctl's rule). Throws SpecError `variables-syntax` with
 * `file: source` and the line of the offending `${` when the text is not a valid template.
 */
export function inspectVariables(text: string, source: string): VariableUse[] {
  const normalised = normaliseLegacySpacing(text);
  return collectVariables(parseOrThrow(normalised, text, source)).map(toVariableUse);
}

/**
 * clusterctl's Process(): substitutes variables in `text`. `lookup` returns undefined for "not
 * set"; "" is a set, empty value (all of `=`, `:=`, `:-` then use their default, as envsubst does).
 * Throws MissingVariablesError (a SpecError, code `variables-missing`, names in `missing`) when any
 * variable has neither a value nor a default at its first occurrence, and SpecError
 * `variables-syntax` for a template syntax error. Calls `lookup` at most once per name.
 */
export function substituteVariables(text: string, lookup: Lookup, source: string): SubstitutionResult {
  return compileTemplate(text, source).substitute(lookup);
}

/** A components text parsed once, to be substituted with many sets of values. */
export interface CompiledTemplate {
  /** The top-level variables, as inspectVariables gives them. */
  readonly variables: VariableUse[];
  /** Every variable name the text references anywhere (also inside defaults), sorted, unique. */
  readonly names: readonly string[];
  /**
   * The names referenced somewhere through an operator that transforms the value (case, length,
   * trim, substring, replace), sorted: where such a value lands cannot be found by searching for it.
   */
  readonly transformed: readonly string[];
  /** clusterctl's Process() with these values; see {@link substituteVariables}. */
  substitute(lookup: Lookup): SubstitutionResult;
  /** The template cut into documents (computed on first use; see document-parts.ts). */
  readonly parts: readonly DocumentPart[];
  /**
   * {@link substitute}, part by part: the same checks, lookups and errors; the parts' texts
   * concatenated are `substitute(lookup).text`. Constant parts are returned as they are.
   */
  substituteParts(lookup: Lookup): PartsSubstitution;
}

/** What {@link CompiledTemplate.substituteParts} produced. */
export interface PartsSubstitution extends Omit<SubstitutionResult, 'text'> {
  /** One text per part of {@link CompiledTemplate.parts}, in order. */
  texts: string[];
}

/** Parses `text` once; throws SpecError `variables-syntax` when it is not a valid template. */
export function compileTemplate(text: string, source: string): CompiledTemplate {
  const normalised = normaliseLegacySpacing(text);
  const nodes = parseOrThrow(normalised, text, source);
  const variables = collectVariables(nodes);
  const names = new Set<string>();
  const transformed = new Set<string>();
  const walk = (list: readonly TemplateNode[]) => {
    for (const n of list) {
      if (n.kind === 'func') {
        names.add(n.param);
        if (!preservesValue(n.name)) transformed.add(n.param);
        walk(n.args);
      }
    }
  };
  walk(nodes);
  let parts: DocumentPart[] | undefined;
  const documentParts = () => (parts ??= splitDocumentParts(nodes));
  // clusterctl's Process(): the missing-variable check over the whole template, then evaluation
  // (of `evaluated`: every node, or each part's nodes), then the names that had a value.
  const run = <T>(lookup: Lookup, evaluate: (cachedLookup: Lookup) => T): { output: T; used: string[] } => {
    const values = new Map<string, string | undefined>();
    const cachedLookup: Lookup = (name) => {
      if (!values.has(name)) values.set(name, lookup(name));
      return values.get(name);
    };
    const missing = variables
      .filter((v) => v.defaultText === '' && cachedLookup(v.name) === undefined)
      .map((v) => v.name);
    if (missing.length > 0) throw new MissingVariablesError(source, missing);
    let output: T;
    try {
      output = evaluate(cachedLookup);
    } catch (e) {
      throw e instanceof TemplateError ? syntaxError(e, normalised, text, source) : e;
    }
    const used = [...values].filter(([, value]) => value !== undefined).map(([name]) => name);
    return { output, used: used.sort(compareGoStrings) };
  };
  return {
    variables: variables.map(toVariableUse),
    names: [...names].sort(compareGoStrings),
    transformed: [...transformed].sort(compareGoStrings),
    substitute(lookup) {
      const { output, used } = run(lookup, (cachedLookup) => evaluateTemplate(nodes, cachedLookup));
      return { text: output, variables: variables.map(toVariableUse), used };
    },
    get parts() {
      return documentParts();
    },
    substituteParts(lookup) {
      const list = documentParts();
      const { output, used } = run(lookup, (cachedLookup) =>
        list.map((p) => p.constant ?? evaluateTemplate(p.nodes, cachedLookup)),
      );
      return { texts: output, variables: variables.map(toVariableUse), used };
    },
  };
}

function toVariableUse(info: VariableInfo): VariableUse {
  return { name: info.name, hasDefault: info.defaultText !== '' };
}

function parseOrThrow(normalised: NormalisedText, original: string, source: string): TemplateNode[] {
  try {
    return parseTemplate(normalised.text);
  } catch (e) {
    throw e instanceof TemplateError ? syntaxError(e, normalised, original, source) : e;
  }
}

function syntaxError(e: TemplateError, normalised: NormalisedText, original: string, source: string): SpecError {
  const offset = normalised.toOriginal(e.offset);
  const { line, col } = lineAndColumn(original, offset);
  return new SpecError(
    error('variables-syntax', syntaxMessage(e, `in \`${excerpt(original, offset)}\``), {
      file: source,
      line,
      col,
      hint:
        'envsubst syntax is ${NAME}, ${NAME:=default}, ${NAME/pattern/replacement} and the other bash forms; ' +
        'write $${ for a literal ${',
    }),
  );
}

/**
 * envsubst's own parse errors, which clusterctl reports as they are (NewComponents lists the
 * variables before it substitutes, and returns that parse error unwrapped); the other reasons are
 * capi-render's.
 */
const ENVSUBST_REASONS: ReadonlySet<TemplateError['reason']> = new Set([
  'bad-substitution',
  'missing-closing-brace',
  'variable-name',
  'function-argument',
  'default-function',
]);

function syntaxMessage(e: TemplateError, where: string): string {
  return ENVSUBST_REASONS.has(e.reason) ? peerWording('clusterctl', e.message, where) : `${e.message} ${where}`;
}

/** 1-based line and column (UTF-16 units) of an offset. */
function lineAndColumn(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let nl = text.indexOf('\n'); nl >= 0 && nl < offset; nl = text.indexOf('\n', nl + 1)) {
    line++;
    lineStart = nl + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

/** The rest of the line from `offset`, cut at 60 characters; never a variable's value. */
function excerpt(text: string, offset: number): string {
  const nl = text.indexOf('\n', offset);
  const lineEnd = nl < 0 ? text.length : nl;
  const end = Math.min(lineEnd, offset + 60);
  const cut = text.slice(offset, end);
  return end < lineEnd ? `${cut}…` : cut;
}
