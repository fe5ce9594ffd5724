/**
 * Where in a human-edited YAML file a provider's `spec.version` is written, down to the byte range
 * of the scalar, found with the `yaml` package's Document API (node ranges): a provider CR's
 * `spec.version`, an RFC 6902 `replace`/`add` of `/spec/version` (or of `/spec` with a version), or a
 * strategic-merge patch's `spec.version` — in a patch file, or inline in overlay.yaml as a block
 * (`patch: |`) or single-line string. Knowing the exact range lets an upgrade change those bytes and
 * nothing else, so comments, quoting and layout survive untouched.
 */
import YAML, { isMap, isPair, isScalar, isSeq, type Node, type Scalar, type YAMLMap } from 'yaml';

/** How the version scalar is written; an edit keeps the style. */
export type ScalarStyle = 'plain' | 'double' | 'single';

/** One place to edit, in file coordinates (UTF-16 offsets into the file text). */
export type VersionEdit =
  | { type: 'replace'; start: number; end: number; style: ScalarStyle; current: string }
  /** Insert a `version:` line at `start` (a line start) indented by `indent`. */
  | { type: 'insert'; start: number; indent: string };

/** The result of looking for the version inside a YAML text: an edit, or why it cannot be edited. */
export type SiteLookup = { edit: VersionEdit; what: string } | { unsupported: string };

/** Finds `spec.version` in a provider CR document node (a block map); inserts after `spec:` when absent. */
export function versionInObject(text: string, object: Node | null | undefined): SiteLookup {
  if (!isMap(object)) return { unsupported: 'the provider document is not a mapping' };
  const spec = pairOf(object, 'spec');
  if (!spec) return { unsupported: 'it has no spec: add `spec:` with `version:` yourself' };
  if (!isMap(spec.value) || spec.value.flow) return { unsupported: 'its spec is not a block mapping' };
  const version = pairOf(spec.value, 'version');
  if (version) return scalarEdit(text, version.value as Node | null, 'spec.version');
  const first = spec.value.items[0];
  const firstKey = first && isScalar(first.key) ? first.key : undefined;
  if (!firstKey?.range) return { unsupported: 'its spec is empty' };
  // Insert on the line after `spec:`, with the indentation of spec's first key.
  const keyLineStart = text.lastIndexOf('\n', firstKey.range[0] - 1) + 1;
  const indent = text.slice(keyLineStart, firstKey.range[0]);
  if (!/^ *$/.test(indent)) return { unsupported: 'its spec does not start on its own line' };
  const specKey = spec.key as Node;
  const afterSpec = text.indexOf('\n', specKey.range![1]) + 1;
  if (afterSpec === 0 || afterSpec > keyLineStart) return { unsupported: 'its spec does not start on its own line' };
  return { edit: { type: 'insert', start: afterSpec, indent }, what: 'spec.version (added)' };
}

/**
 * Finds the version a patch text sets. `text` is the patch itself; ranges are relative to it.
 * RFC 6902: the last operation that touches `/spec/version` (or a parent) must be a `replace`/`add`
 * of `/spec/version`, or of `/spec` with a `version` member. Strategic merge: `spec.version`.
 */
export function versionInPatch(text: string): SiteLookup {
  const doc = YAML.parseDocument(text, { keepSourceTokens: false });
  if (doc.errors.length > 0) return { unsupported: 'the patch is not valid YAML' };
  const root = doc.contents;
  if (isSeq(root)) {
    let last: { op: string; path: string; node: YAMLMap } | undefined;
    for (const item of root.items) {
      if (!isMap(item)) continue;
      const op = scalarText(pairOf(item, 'op')?.value);
      const path = scalarText(pairOf(item, 'path')?.value);
      if (op === undefined || path === undefined) continue;
      if (
        ['', '/spec', '/spec/version'].includes(path) ||
        (op === 'move' && scalarText(pairOf(item, 'from')?.value)?.startsWith('/spec/version'))
      )
        last = { op, path, node: item };
    }
    if (!last) return { unsupported: 'no operation of the patch sets /spec/version' };
    if (last.op !== 'replace' && last.op !== 'add')
      return { unsupported: `the patch's last operation on /spec/version is \`${last.op} ${last.path}\`` };
    const value = pairOf(last.node, 'value')?.value as Node | null | undefined;
    if (last.path === '/spec/version') return scalarEdit(text, value, `${last.op} /spec/version`);
    if (last.path === '/spec' && isMap(value) && pairOf(value, 'version'))
      return scalarEdit(text, pairOf(value, 'version')!.value as Node | null, `${last.op} /spec (version)`);
    return { unsupported: `the patch sets /spec/version through \`${last.op} ${last.path || '/'}\`` };
  }
  if (isMap(root)) {
    const spec = pairOf(root, 'spec')?.value;
    const version = isMap(spec) ? pairOf(spec, 'version') : undefined;
    if (!version) return { unsupported: 'the strategic-merge patch has no spec.version' };
    return scalarEdit(text, version.value as Node | null, 'strategic merge spec.version');
  }
  return { unsupported: 'the patch is neither an operation list nor a mapping' };
}

/**
 * Maps a range of an inline patch string (the `patch:` scalar of overlay.yaml, parsed from `file`)
 * to file offsets: literal block scalars (`|`, `|-`, `|+`) line by line through their indentation,
 * single-line plain or quoted strings directly. Undefined when the mapping is not exact (escapes,
 * folding), checked by comparing the bytes.
 */
export function mapInlineRange(
  file: string,
  outer: Scalar,
  start: number,
  end: number,
): { start: number; end: number } | undefined {
  const inner = String(outer.value);
  const expect = inner.slice(start, end);
  const [from, to] = outer.range ?? [0, 0];
  let mapped: number | undefined;
  if (outer.type === 'BLOCK_LITERAL') {
    const headerEnd = file.indexOf('\n', from);
    if (headerEnd < 0 || /\d/.test(file.slice(from, headerEnd).split('#')[0]!)) return undefined;
    const contentStart = headerEnd + 1;
    const lines = file.slice(contentStart, to).split('\n');
    const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length));
    const lineIndex = inner.slice(0, start).split('\n').length - 1;
    const col = start - (inner.lastIndexOf('\n', start - 1) + 1);
    if (!Number.isFinite(indent) || lineIndex >= lines.length) return undefined;
    mapped = contentStart + lines.slice(0, lineIndex).reduce((n, l) => n + l.length + 1, 0) + indent + col;
  } else if (outer.type === 'PLAIN' || outer.type === 'QUOTE_SINGLE' || outer.type === 'QUOTE_DOUBLE') {
    mapped = from + (outer.type === 'PLAIN' ? 0 : 1) + start;
  }
  if (mapped === undefined || file.slice(mapped, mapped + (end - start)) !== expect) return undefined;
  return { start: mapped, end: mapped + (end - start) };
}

/** Shifts a site found inside an inline patch into file coordinates. */
export function shiftEdit(
  edit: VersionEdit,
  map: (start: number, end: number) => { start: number; end: number } | undefined,
): VersionEdit | undefined {
  if (edit.type !== 'replace') return undefined;
  const mapped = map(edit.start, edit.end);
  return mapped ? { ...edit, ...mapped } : undefined;
}

function scalarEdit(text: string, node: Node | null | undefined, what: string): SiteLookup {
  if (!isScalar(node) || !node.range) return { unsupported: `${what} is not a plain or quoted string` };
  const style: ScalarStyle | undefined =
    node.type === 'PLAIN'
      ? 'plain'
      : node.type === 'QUOTE_DOUBLE'
        ? 'double'
        : node.type === 'QUOTE_SINGLE'
          ? 'single'
          : undefined;
  if (!style) return { unsupported: `${what} is a block scalar` };
  const [start, end] = node.range;
  const source = text.slice(start, end);
  // One line only, so an edit can never change the structure around it.
  if (source.includes('\n')) return { unsupported: `${what} spans several lines` };
  return { edit: { type: 'replace', start, end, style, current: String(node.value) }, what };
}

function pairOf(map: YAMLMap, key: string) {
  return map.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === key);
}

function scalarText(node: unknown): string | undefined {
  return isScalar(node) ? String(node.value) : undefined;
}
