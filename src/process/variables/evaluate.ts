/**
 * Template evaluation as envsubst's template.go does it: text is copied, and for each function node
 * every argument is evaluated first (eagerly, even a default that will not be used), then the
 * variable is looked up ("" when unset) and the node's function applied.
 */
import { selectFunction } from './functions.js';
import { SubstringBoundsError } from './substring.js';
import { TemplateError, type FuncNode, type TemplateNode } from './syntax-tree.js';

/** Value source for evaluation; undefined means "not set", which evaluates as "". */
export type Lookup = (name: string) => string | undefined;

/**
 * Evaluates top-level nodes to the output text. Pure apart from calling `lookup`. Throws
 * TemplateError('substring-bounds') where envsubst would crash on a negative substring length.
 */
export function evaluateTemplate(nodes: readonly TemplateNode[], lookup: Lookup): string {
  const out: string[] = [];
  for (const node of nodes) out.push(node.kind === 'text' ? node.value : evaluateFunc(node, lookup));
  return out.join('');
}

function evaluateFunc(node: FuncNode, lookup: Lookup): string {
  const args = node.args.map((arg) => (arg.kind === 'text' ? arg.value : evaluateFunc(arg, lookup)));
  const value = lookup(node.param) ?? '';
  try {
    return selectFunction(node.name, args.length)(value, args);
  } catch (e) {
    if (e instanceof SubstringBoundsError) throw new TemplateError('substring-bounds', node.offset);
    throw e;
  }
}
