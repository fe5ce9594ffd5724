/**
 * Kubernetes label selectors in their string form, as `spec.patches[].target.labelSelector`
 * takes them. Grammar and validation follow apimachinery `labels.Parse` (k8s.io/apimachinery
 * v0.34, the version the operator builds with):
 *
 *   selector    := requirement ("," requirement)*   (an empty selector matches everything)
 *   requirement := "!" KEY | KEY | KEY ("=" | "==" | "!=") VALUE | KEY ("in" | "notin") "(" VALUES ")"
 *                | KEY (">" | "<") INTEGER
 *
 * Keys are qualified names (`[prefix/]name`), values are label values (63 characters at most,
 * alphanumeric at both ends, may be empty). All requirements must hold.
 */
import { SpecError, error, type Location } from '../../errors.js';
import { lexLabelSelector, type Token, type TokenType } from './label-selector-lexer.js';

/** The requirement operators; `exists` is a bare key and `!` is `!key`. */
export type LabelOperator = 'exists' | '!' | '=' | '==' | '!=' | 'in' | 'notin' | '>' | '<';

/** One comma-separated part of a selector. */
export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted and without duplicates; empty for `exists` and `!`. */
  readonly values: readonly string[];
}

/** A parsed selector; immutable. */
export interface LabelSelectorMatcher {
  /** The selector text as given. */
  readonly text: string;
  /** The requirements, sorted by key (stable), as apimachinery keeps them. */
  readonly requirements: readonly LabelRequirement[];
  /** Whether a set of labels satisfies every requirement. */
  matches(labels: Readonly<Record<string, string>>): boolean;
}

/**
 * Parses a label-selector string. Throws SpecError code `patch` (with the offending token and
 * column) for bad syntax, an invalid key or value, or a non-integer `>`/`<` operand. `where`
 * adds the object and field to the diagnostic.
 */
export function parseLabelSelector(text: string, where: Pick<Location, 'object' | 'field'> = {}): LabelSelectorMatcher {
  const tokens = lexLabelSelector(text);
  let position = 0;
  const prefix = [where.object, where.field].filter(Boolean).join(' ') + (where.object || where.field ? ': ' : '');
  const fail = (message: string, token?: Token): never => {
    const at = token ? ` at column ${token.offset + 1}` : '';
    throw new SpecError(
      error('patch', `${prefix}label selector ${JSON.stringify(text)}: ${message}${at}`, {
        ...where,
        hint: 'write requirements such as key=value, key!=value, key in (a,b), key notin (a), key, !key, joined by commas',
      }),
    );
  };
  // In value position the keywords are ordinary words, so "x in (in)" and "in=notin" parse.
  const typeOf = (token: Token, asValue: boolean): TokenType =>
    asValue && (token.type === 'in' || token.type === 'notin') ? 'id' : token.type;
  const peek = (asValue = true): Token & { kind: TokenType } => {
    const token = tokens[position] as Token;
    return { ...token, kind: typeOf(token, asValue) };
  };
  const next = (asValue = true): Token & { kind: TokenType } => {
    const token = peek(asValue);
    position++;
    return token;
  };

  const readValues = (): string[] => {
    const open = next();
    if (open.kind !== '(') fail(`found '${open.text}', expected '('`, open);
    const values = new Set<string>();
    // Values are separated by commas and may be empty: "()" is {""}, "(a,)" is {a, ""}.
    let expectValue = true;
    for (;;) {
      const token = next();
      if (token.kind === ')') {
        if (expectValue) values.add('');
        return [...values];
      }
      if (token.kind === ',') {
        if (expectValue) values.add('');
        expectValue = true;
      } else if (token.kind === 'id' && expectValue) {
        values.add(token.text);
        expectValue = false;
      } else {
        fail(`found '${token.text}', expected ${expectValue ? "a value, ',' or ')'" : "',' or ')'"}`, token);
      }
    }
  };

  const readRequirement = (): LabelRequirement => {
    let token = next();
    const negated = token.kind === '!';
    if (negated) token = next();
    if (token.kind !== 'id') fail(`found '${token.text}', expected a label key`, token);
    const key = token.text;
    checkKey(key, (m) => fail(m, token));
    const after = peek();
    if (negated || after.kind === 'end' || after.kind === ',')
      return { key, operator: negated ? '!' : 'exists', values: [] };
    const op = next(false);
    let values: string[];
    switch (op.kind) {
      case 'in':
      case 'notin':
        values = readValues();
        break;
      case '=':
      case '==':
      case '!=':
      case '>':
      case '<': {
        const value = peek();
        if (value.kind === 'end' || value.kind === ',') values = [''];
        else if (value.kind === 'id') values = [next().text];
        else return fail(`found '${value.text}', expected a value`, value);
        break;
      }
      default:
        return fail(`found '${op.text}', expected one of =, ==, !=, in, notin, >, <`, op);
    }
    for (const value of values) checkValue(key, value, (m) => fail(m, op));
    if ((op.kind === '>' || op.kind === '<') && parseInt64(values[0] as string) === undefined) {
      fail(`the value of ${key}${op.kind} must be an integer`, op);
    }
    return { key, operator: op.kind, values: [...values].sort() };
  };

  const requirements: LabelRequirement[] = [];
  if (peek().kind !== 'end') {
    for (;;) {
      requirements.push(readRequirement());
      const token = next();
      if (token.kind === 'end') break;
      if (token.kind !== ',') fail(`found '${token.text}', expected ',' or the end`, token);
      const following = peek();
      if (following.kind !== 'id' && following.kind !== '!')
        fail(`found '${following.text}', expected a requirement after ','`, following);
    }
  }
  requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { text, requirements, matches: (labels) => requirements.every((r) => matchesRequirement(r, labels)) };
}

function matchesRequirement(requirement: LabelRequirement, labels: Readonly<Record<string, string>>): boolean {
  const present = Object.hasOwn(labels, requirement.key);
  const value = present ? labels[requirement.key] : undefined;
  switch (requirement.operator) {
    case 'exists':
      return present;
    case '!':
      return !present;
    case '=':
    case '==':
    case 'in':
      return present && requirement.values.includes(value as string);
    case '!=':
    case 'notin':
      return !present || !requirement.values.includes(value as string);
    case '>':
    case '<': {
      const actual = present ? parseInt64(value as string) : undefined;
      const bound = parseInt64(requirement.values[0] as string) as bigint;
      if (actual === undefined) return false;
      return requirement.operator === '>' ? actual > bound : actual < bound;
    }
  }
}

/** Go's strconv.ParseInt(s, 10, 64): optional sign, decimal digits, within int64. */
function parseInt64(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const n = BigInt(text);
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined;
}

const NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** apimachinery's IsQualifiedName: `[DNS-subdomain prefix "/"] name`, name 1–63 characters. */
function checkKey(key: string, fail: (message: string) => never): void {
  const parts = key.split('/');
  if (parts.length > 2) fail(`key ${JSON.stringify(key)} has more than one "/"`);
  const name = parts[parts.length - 1] as string;
  if (parts.length === 2) {
    const prefix = parts[0] as string;
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) {
      fail(`key prefix ${JSON.stringify(prefix)} must be a lowercase DNS subdomain (e.g. example.com)`);
    }
  }
  if (name.length === 0 || name.length > 63 || !NAME.test(name)) {
    fail(
      `key name ${JSON.stringify(name)} must be 1-63 characters, alphanumeric, '-', '_' or '.', starting and ending alphanumeric`,
    );
  }
}

/** apimachinery's IsValidLabelValue: empty, or 1–63 characters like a key name. */
function checkValue(key: string, value: string, fail: (message: string) => never): void {
  if (value === '') return;
  if (value.length > 63 || !NAME.test(value)) {
    fail(
      `value ${JSON.stringify(value)} of ${key} must be at most 63 characters, alphanumeric, '-', '_' or '.', starting and ending alphanumeric`,
    );
  }
}
