/**
 * YAML text for files people edit, with comments saying where values came from. Written with the
 * `yaml` package (the library for human-edited files here), never by string templating.
 */
import YAML, { isMap, isScalar, isSeq, Scalar, type Document } from 'yaml';
import type { JsonValue } from '../../manifest/object.js';

export interface CommentedValue {
  value: JsonValue;
  /** Lines above the document. */
  header?: readonly string[];
  /**
   * Dotted field path → comment. A scalar gets it at the end of its line; a map or list above its key.
   * Paths that do not exist in `value` are ignored.
   */
  comments?: Readonly<Record<string, string>>;
  /** Dotted paths of string values to write as literal blocks (`|-`), e.g. patch text. */
  blocks?: readonly string[];
}

/** The YAML text of `value` with its comments; lists indented under their key, no line folding. */
export function commentedYaml(input: CommentedValue): string {
  const doc = new YAML.Document(input.value);
  if (input.header && input.header.length > 0) doc.commentBefore = input.header.map((line) => ` ${line}`).join('\n');
  for (const [dotted, comment] of Object.entries(input.comments ?? {})) attachComment(doc, dotted.split('.'), comment);
  for (const dotted of input.blocks ?? []) {
    const node = doc.getIn(dotted.split('.'), true);
    if (isScalar(node) && typeof node.value === 'string') node.type = Scalar.BLOCK_LITERAL;
  }
  return doc.toString({ lineWidth: 0, indentSeq: true });
}

function attachComment(doc: Document, path: string[], comment: string): void {
  const node = doc.getIn(path, true);
  if (node === undefined) return;
  if (isScalar(node)) {
    node.comment = ` ${comment}`;
    return;
  }
  const parent = path.length === 1 ? doc.contents : doc.getIn(path.slice(0, -1), true);
  const lines = comment
    .split('\n')
    .map((line) => ` ${line}`)
    .join('\n');
  if (isSeq(parent) && (isMap(node) || isSeq(node))) {
    node.commentBefore = lines;
    return;
  }
  if (!isMap(parent)) return;
  const pair = parent.items.find((p) => (isScalar(p.key) ? p.key.value : p.key) === path[path.length - 1]);
  if (pair && isScalar(pair.key)) pair.key.commentBefore = lines;
}
