/**
 * How far one parsed YAML document expands, aliases included, measured the way clusterctl's and the
 * operator's YAML decoder limits it. js-yaml hands an alias back as the same object as its anchor, so
 * a ten-level "billion laughs" costs nothing to parse and everything to walk later (substituting
 * variables, serialising): what is checked here is the walk every later step would make.
 *
 * Design notes: docs/internals.md "manifest/alias-expansion.ts".
 */

const RATIO_RANGE_LOW = 400_000;
const RATIO_RANGE_HIGH = 4_000_000;

/** The share of decoded nodes go-yaml lets come from aliases, after `decoded` nodes. */
export function allowedAliasRatio(decoded: number): number {
  if (decoded <= RATIO_RANGE_LOW) return 0.99;
  if (decoded >= RATIO_RANGE_HIGH) return 0.1;
  return 0.99 - (0.89 * (decoded - RATIO_RANGE_LOW)) / (RATIO_RANGE_HIGH - RATIO_RANGE_LOW);
}

/** Why a document's expansion is refused: go-yaml's aliasing rule, or the caller's budget of values. */
export type ExpansionProblem = 'excessive-aliasing' | 'too-many-values';

/**
 * Walks one document in document order (as a decoder meets its nodes), spending one unit of `budget`
 * per value (map keys count towards the aliasing share only, as go-yaml decodes them too); returns the
 * first problem met, or undefined. A container met a second time is an alias: it and everything under
 * it count as aliased.
 */
export function measureExpansion(document: unknown, budget: { remaining: number }): ExpansionProblem | undefined {
  const seen = new Set<object>();
  const values: unknown[] = [document];
  const viaAlias: boolean[] = [false];
  let decoded = 0;
  let aliased = 0;
  while (values.length > 0) {
    const value = values.pop();
    let alias = viaAlias.pop() as boolean;
    let keys: string[] | undefined;
    let items: unknown[] | undefined;
    if (Array.isArray(value)) items = value;
    else if (value !== null && typeof value === 'object') keys = Object.keys(value);
    if ((items || keys) && !alias) {
      if (seen.has(value as object)) alias = true;
      else seen.add(value as object);
    }
    const nodes = 1 + (keys?.length ?? 0);
    decoded += nodes;
    if (alias) aliased += nodes;
    if (--budget.remaining < 0) return 'too-many-values';
    if (aliased > 100 && decoded > 1000 && aliased / decoded > allowedAliasRatio(decoded)) return 'excessive-aliasing';
    // Children pushed last-first, so they come off the stack in document order.
    if (items) {
      for (let i = items.length - 1; i >= 0; i--) {
        values.push(items[i]);
        viaAlias.push(alias);
      }
    } else if (keys) {
      for (let i = keys.length - 1; i >= 0; i--) {
        values.push((value as Record<string, unknown>)[keys[i]!]);
        viaAlias.push(alias);
      }
    }
  }
  return undefined;
}
