/**
 * Which variables a template uses and whether each has a default, by clusterctl's rules
 * (yamlprocessor/simple_processor.go inspectVariables/traverse):
 * - only top-level `${...}` count; a variable that appears only inside another's arguments
 *   (`${A:=${B}}` → B) is not listed and is never "missing" (it evaluates to "" when unset);
 * - the first occurrence decides; later ones are ignored;
 * - the "default" is the arguments' text with nested functions written as `${NAME}`, so any
 *   function with arguments (`${V:1}`, `${V/a/b}`, `${V#x}`) counts as having a default, and
 *   `${V:=}`, `${#V}`, `${V^^}` do not.
 */
import type { TemplateNode } from './syntax-tree.js';

/** One variable as clusterctl records it. */
export interface VariableInfo {
  readonly name: string;
  /** The default text clusterctl builds; "" means required. */
  readonly defaultText: string;
  /** Offset of the first occurrence's `${` in the parsed text. */
  readonly offset: number;
}

/** Variables of the top-level nodes, sorted by name (Go byte order), unique. Pure. */
export function collectVariables(nodes: readonly TemplateNode[]): VariableInfo[] {
  const seen = new Map<string, VariableInfo>();
  for (const node of nodes) {
    if (node.kind !== 'func' || seen.has(node.param)) continue;
    const defaultText = node.args.map((arg) => (arg.kind === 'text' ? arg.value : `\${${arg.param}}`)).join('');
    seen.set(node.param, { name: node.param, defaultText, offset: node.offset });
  }
  return [...seen.values()].sort((a, b) => compareGoStrings(a.name, b.name));
}

/**
 * Go's string order (sort.Strings): by UTF-8 bytes, which is code-point order. JS's default sort
 * compares UTF-16 units and differs for characters above U+FFFF.
 */
export function compareGoStrings(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only a surrogate against a unit at or above U+E000 sorts differently by code point.
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    if (xs !== ys && (xs ? y : x) >= 0xe000) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
