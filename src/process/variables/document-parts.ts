/**
 * A components template cut into YAML documents before substitution, so that only the documents
 * that reference a variable are substituted (and parsed) per environment; the others — CRDs, most of
 * an artifact's bytes — have the same text in every environment, are parsed once and keep their
 * parsed objects shared.
 *
 * Design notes: docs/internals.md "process/variables/document-parts.ts".
 */
import type { TemplateNode } from './syntax-tree.js';

/** One document (or run of documents) of a template. */
export interface DocumentPart {
  /** The part's nodes in order; concatenating every part's nodes gives the template's nodes. */
  readonly nodes: readonly TemplateNode[];
  /** The part's text when it references no variable: it is the same in every environment. */
  readonly constant: string | undefined;
  /** Every variable name the part references, also inside defaults and arguments; sorted, unique. */
  readonly names: readonly string[];
}

/** The line break before a separator line (a lookahead, so that `---` lines in a row all match). */
const SEPARATOR_LINE = /\n(?=---[ \t]*\r?\n)/g;
/** Lines that make parsing depend on what precedes them across a cut. */
const CROSS_DOCUMENT_LINE = /(?:^|\n)(?:%|\.\.\.(?:[ \t\r\n]|$))/;
const COMMENTS_ONLY = /^(?:\uFEFF)?(?:[ \t]*(?:#[^\n]*)?\r?\n)*[ \t]*(?:#[^\n]*)?$/;

/** Cuts `nodes` (a parsed template, top level) at literal separator lines; see the module comment. */
export function splitDocumentParts(nodes: readonly TemplateNode[]): DocumentPart[] {
  if (nodes.some((n) => n.kind === 'text' && CROSS_DOCUMENT_LINE.test(n.value))) return [makePart(nodes)];
  const parts: TemplateNode[][] = [[]];
  for (const node of nodes) {
    if (node.kind !== 'text') {
      parts[parts.length - 1]!.push(node);
      continue;
    }
    let from = 0;
    for (const match of node.value.matchAll(SEPARATOR_LINE)) {
      const cut = match.index + 1;
      if (cut > from) parts[parts.length - 1]!.push({ kind: 'text', value: node.value.slice(from, cut) });
      parts.push([]);
      from = cut;
    }
    if (from < node.value.length) parts[parts.length - 1]!.push({ kind: 'text', value: node.value.slice(from) });
  }
  const made = parts.map(makePart);
  const first = made[0]!;
  if (made.length > 1 && (first.constant === undefined || COMMENTS_ONLY.test(first.constant))) {
    made.splice(0, 2, makePart([...first.nodes, ...made[1]!.nodes]));
  }
  return made;
}

/** Whether a substituted part's text could parse differently on its own than inside the whole text. */
export function crossesDocuments(text: string): boolean {
  return CROSS_DOCUMENT_LINE.test(text);
}

function makePart(nodes: readonly TemplateNode[]): DocumentPart {
  const names = new Set<string>();
  const walk = (list: readonly TemplateNode[]) => {
    for (const n of list) {
      if (n.kind === 'func') {
        names.add(n.param);
        walk(n.args);
      }
    }
  };
  walk(nodes);
  const constant =
    names.size === 0 && nodes.every((n) => n.kind === 'text')
      ? nodes.map((n) => (n.kind === 'text' ? n.value : '')).join('')
      : undefined;
  return { nodes, constant, names: [...names].sort() };
}
