/**
 * Hand-written implementations of the CEL rules (`x-kubernetes-validations`) the operator's CRDs
 * carry. capi-render has no CEL interpreter: each rule text is matched against a small table of
 * recognised shapes and turned into a plain-data {@link CelCheck}. A rule that matches no shape is an
 * {@link InternalError} when the schema is compiled, so a CRD update can never skip a rule silently.
 */
import { InternalError } from '../../errors.js';
import { isJsonObject } from '../../manifest/object.js';

/** What a recognised rule checks, as data (it is embedded in the compiled schema and compared). */
export type CelCheckKind =
  /** `[has(self.a), has(self.b), …].exists_one(x, x)`: exactly one of the fields is set. */
  | 'exactly-one-present'
  /** `!(has(self.a) && has(self.b) && …)`: the fields are not all set together. */
  | 'not-all-present';

/** One recognised CEL rule of a CRD, with the message the CRD gives for it. */
export interface CelCheck {
  check: CelCheckKind;
  /** The fields of `self` the rule looks at, in the rule's order. */
  fields: string[];
  /** The CRD's `message` (or Kubernetes' default `failed rule: <rule>` when it has none). */
  message: string;
  /** The rule's CEL text, kept for error reports. */
  rule: string;
}

const FIELD = '[A-Za-z_][A-Za-z0-9_]*';
const HAS = `has\\(\\s*self\\.${FIELD}\\s*\\)`;
const HAS_FIELDS = new RegExp(`has\\(\\s*self\\.(${FIELD})\\s*\\)`, 'g');

/** The recognised rule shapes. Adding a shape is one entry here and one case in {@link evaluateCelCheck}. */
const SHAPES: { check: CelCheckKind; pattern: RegExp }[] = [
  {
    check: 'exactly-one-present',
    pattern: new RegExp(
      `^\\[\\s*${HAS}(?:\\s*,\\s*${HAS})*\\s*\\]\\s*\\.\\s*exists_one\\(\\s*(${FIELD})\\s*,\\s*\\1\\s*\\)$`,
    ),
  },
  {
    check: 'not-all-present',
    pattern: new RegExp(`^!\\s*\\(\\s*${HAS}(?:\\s*&&\\s*${HAS})+\\s*\\)$`),
  },
];

/**
 * Matches a CEL rule text against the recognised shapes. Returns the check kind and fields, or
 * `undefined` when capi-render does not implement the rule.
 */
export function recogniseCelRule(rule: string): { check: CelCheckKind; fields: string[] } | undefined {
  const text = rule.trim();
  for (const shape of SHAPES) {
    if (shape.pattern.test(text)) {
      return { check: shape.check, fields: [...text.matchAll(HAS_FIELDS)].map((m) => m[1]!) };
    }
  }
  return undefined;
}

/**
 * Turns one `x-kubernetes-validations` entry of the schema node at `where` into a {@link CelCheck}.
 * Throws InternalError for a rule that is not recognised, for features capi-render does not
 * implement (`messageExpression`, `fieldPath`, transition rules on `oldSelf`), and for a rule that
 * names a field the node does not declare (a sign the rule was misread).
 */
export function compileCelValidation(entry: unknown, declared: readonly string[], where: string): CelCheck {
  if (!isJsonObject(entry) || typeof entry.rule !== 'string') {
    throw new InternalError(`x-kubernetes-validations entry at ${where} has no rule`);
  }
  const rule = entry.rule;
  for (const unsupported of ['messageExpression', 'fieldPath']) {
    if (unsupported in entry) {
      throw new InternalError(
        `CEL rule ${JSON.stringify(rule)} at ${where} uses ${unsupported}, which capi-render does not implement`,
      );
    }
  }
  const recognised = /\boldSelf\b/.test(rule) ? undefined : recogniseCelRule(rule);
  if (!recognised) {
    throw new InternalError(
      `CEL rule ${JSON.stringify(rule)} at ${where} is not implemented by capi-render; add its shape to spec/schema/cel-rules.ts`,
    );
  }
  const undeclared = recognised.fields.filter((field) => !declared.includes(field));
  if (undeclared.length > 0) {
    throw new InternalError(
      `CEL rule ${JSON.stringify(rule)} at ${where} names undeclared fields ${undeclared.join(', ')}`,
    );
  }
  const message = typeof entry.message === 'string' && entry.message !== '' ? entry.message : `failed rule: ${rule}`;
  return { ...recognised, message, rule };
}

/** True when `self` satisfies the check. Only objects reach here (the schema's type applies first). */
export function evaluateCelCheck(check: CelCheck, self: unknown): boolean {
  if (!isJsonObject(self)) return true;
  // CEL's has() is false for an absent field; Kubernetes prunes nulls before CEL runs, so a null
  // counts as absent too (the type check reports the null on its own).
  const present = check.fields.filter((field) => self[field] !== undefined && self[field] !== null).length;
  switch (check.check) {
    case 'exactly-one-present':
      return present === 1;
    case 'not-all-present':
      return present < check.fields.length;
  }
}
