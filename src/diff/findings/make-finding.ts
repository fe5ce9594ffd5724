/**
 * The one constructor findings are built with, so every finding carries its place (env,
 * component, object) the same way.
 */
import type { ObjectPair } from '../pair-objects.js';
import type { Finding, FindingCode, FindingSeverity } from '../types.js';

/** The structured parts of a finding besides its message; empty lists are left out. */
export interface FindingFacts {
  details?: readonly string[];
  subjects?: readonly string[];
  before?: string;
  after?: string;
}

/** A finding about the object of `pair`. */
export function makeFinding(
  severity: FindingSeverity,
  code: FindingCode,
  pair: ObjectPair,
  message: string,
  facts: FindingFacts = {},
): Finding {
  return {
    severity,
    code,
    env: pair.env,
    component: pair.component,
    object: pair.id,
    message,
    ...(facts.details !== undefined && facts.details.length > 0 ? { details: [...facts.details] } : {}),
    ...(facts.subjects !== undefined && facts.subjects.length > 0 ? { subjects: [...facts.subjects] } : {}),
    ...(facts.before !== undefined ? { before: facts.before } : {}),
    ...(facts.after !== undefined ? { after: facts.after } : {}),
  };
}
