/**
 * Every leaf of a record capi-render reads back, and the edits a hostile pull request (or a broken
 * cache) could make to it: another valid value of its kind, the leaf deleted, its entry duplicated.
 * Pure: a mutation is a function from the record's text to the edited text.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import YAML from 'yaml';

/** One leaf: where it is (`environments[0].providers[2].version`), its pattern (`environments[].providers[].version`) and value. */
export interface Leaf {
  path: (string | number)[];
  pattern: string;
  value: string | number | boolean | null;
}

export type MutationKind = 'other-value' | 'deleted' | 'duplicated';

export interface RecordMutation {
  record: string;
  leaf: string;
  pattern: string;
  kind: MutationKind;
  apply(text: string): string;
}

/** Every leaf of a YAML document (an element of a list of plain values is a leaf of its own). */
export function leavesOf(value: unknown, at: (string | number)[] = []): Leaf[] {
  if (Array.isArray(value)) return value.flatMap((item, i) => leavesOf(item, [...at, i]));
  if (typeof value === 'object' && value !== null)
    return Object.entries(value).flatMap(([k, v]) => leavesOf(v, [...at, k]));
  return [{ path: at, pattern: patternOf(at), value: value as Leaf['value'] }];
}

export function patternOf(at: readonly (string | number)[]): string {
  return at.map((p, i) => (typeof p === 'number' ? '[]' : i === 0 ? p : `.${p}`)).join('');
}

export function pathText(at: readonly (string | number)[]): string {
  return at.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/**
 * The three edits of each leaf of a lock text, made on the text's lines as capi-render writes them
 * (one scalar per line), so that nothing but the leaf changes. `others(leaf)` proposes another valid
 * value for a leaf (a version that exists, the digest of another image, another artifact's
 * sha256…); without one, a value of the same shape is made up.
 */
export function lockMutations(
  record: string,
  text: string,
  others: (leaf: Leaf, all: Leaf[]) => Leaf['value'] | undefined,
): RecordMutation[] {
  const leaves = leavesOf(jsYaml.load(text));
  const out: RecordMutation[] = [];
  for (const leaf of leaves) {
    const name = pathText(leaf.path);
    const line = lineOf(text, leaf.path);
    if (line === undefined) continue;
    const other = others(leaf, leaves) ?? madeUp(leaf.value);
    out.push({
      record,
      leaf: name,
      pattern: leaf.pattern,
      kind: 'other-value',
      apply: (t) => replaceValue(t, line, other),
    });
    out.push({ record, leaf: name, pattern: leaf.pattern, kind: 'deleted', apply: (t) => deleteLine(t, line) });
    out.push({ record, leaf: name, pattern: leaf.pattern, kind: 'duplicated', apply: (t) => duplicateItem(t, line) });
  }
  return out;
}

/** 0-based line of the scalar at `at` in a lock text. */
function lineOf(text: string, at: readonly (string | number)[]): number | undefined {
  const doc = YAML.parseDocument(text);
  const node = doc.getIn(at, true) as { range?: [number, number, number] } | undefined;
  if (!node?.range) return undefined;
  return text.slice(0, node.range[0]).split('\n').length - 1;
}

/** The scalar of line `line` (after `key: ` or `- `) replaced by `value`, written as the lock writes scalars. */
function replaceValue(text: string, line: number, value: Leaf['value']): string {
  const lines = text.split('\n');
  const m = /^(\s*(?:- )?(?:[A-Za-z0-9]+: )?)(.*)$/.exec(lines[line]!)!;
  lines[line] = `${m[1]}${jsYaml.dump(value, { lineWidth: -1 }).trimEnd()}`;
  return lines.join('\n');
}

/** Line `line` removed; when it opens a list item (`- key: v`), the item's next line opens it instead. */
function deleteLine(text: string, line: number): string {
  const lines = text.split('\n');
  const current = lines[line]!;
  const dash = /^(\s*)- [A-Za-z0-9]+: /.exec(current);
  if (dash) {
    const inner = `${dash[1]}  `;
    const next = lines[line + 1];
    if (next !== undefined && next.startsWith(inner) && !next.startsWith(`${inner} `)) {
      lines.splice(line, 2, `${dash[1]}- ${next.slice(inner.length)}`);
      return lines.join('\n');
    }
  }
  lines.splice(line, 1);
  return lines.join('\n');
}

/** The list item line `line` belongs to written twice (the innermost item: an entry, or a plain value). */
function duplicateItem(text: string, line: number): string {
  const lines = text.split('\n');
  let start = line;
  while (start >= 0 && !/^\s*- /.test(lines[start]!)) start--;
  if (start < 0) return text;
  const indent = /^(\s*)- /.exec(lines[start]!)![1]!.length;
  let end = start + 1;
  while (
    end < lines.length &&
    lines[end] !== '' &&
    (lines[end]!.match(/^\s*/)![0].length > indent ||
      (lines[end]!.match(/^\s*/)![0].length === indent && !lines[end]!.slice(indent).startsWith('- ') && false))
  )
    end++;
  lines.splice(end, 0, ...lines.slice(start, end));
  return lines.join('\n');
}

/** The edits of each line of an ownership record: another path, deleted, duplicated. */
export function ownershipMutations(
  record: string,
  text: string,
  otherPath: (line: string) => string,
): RecordMutation[] {
  const lines = text.split('\n');
  const out: RecordMutation[] = [];
  lines.forEach((line, i) => {
    if (line === '' || line.startsWith('#')) return;
    const edit = (fn: (all: string[]) => string[]) => (t: string) => fn(t.split('\n')).join('\n');
    out.push({
      record,
      leaf: `line ${i + 1}`,
      pattern: 'line',
      kind: 'other-value',
      apply: edit((all) => all.map((l, j) => (j === i ? otherPath(l) : l))),
    });
    out.push({
      record,
      leaf: `line ${i + 1}`,
      pattern: 'line',
      kind: 'deleted',
      apply: edit((all) => all.filter((_, j) => j !== i)),
    });
    out.push({
      record,
      leaf: `line ${i + 1}`,
      pattern: 'line',
      kind: 'duplicated',
      apply: edit((all) => all.flatMap((l, j) => (j === i ? [l, l] : [l]))),
    });
  });
  return out;
}

/**
 * One representative mutation per pattern, the kind taking turns from pattern to pattern (a lighter
 * sample than {@link representatives}, for a repository whose builds are slow).
 */
export function onePerPattern(mutations: readonly RecordMutation[]): RecordMutation[] {
  const kinds = ['other-value', 'deleted', 'duplicated'] as const;
  const patterns = [...new Set(mutations.map((m) => `${m.record} ${m.pattern}`))];
  return patterns.flatMap((key, i) => {
    const wanted = kinds[i % kinds.length];
    const found =
      mutations.find((m) => `${m.record} ${m.pattern}` === key && m.kind === wanted) ??
      mutations.find((m) => `${m.record} ${m.pattern}` === key);
    return found ? [found] : [];
  });
}

/** One representative mutation per (pattern, kind): the first leaf of each pattern. */
export function representatives(mutations: readonly RecordMutation[]): RecordMutation[] {
  const seen = new Set<string>();
  return mutations.filter((m) => {
    const key = `${m.record} ${m.pattern} ${m.kind}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function madeUp(value: Leaf['value']): Leaf['value'] {
  if (typeof value === 'string') {
    if (/^[0-9a-f]{64}$/.test(value)) return value.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    if (/^sha256:[0-9a-f]{12,64}$/.test(value))
      return `sha256:${value.slice(7).replace(/^./, (c) => (c === '0' ? '1' : '0'))}`;
    return `${value}x`;
  }
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'boolean') return !value;
  return 'x';
}

/**
 * The edits of every file of a cache folder, as `latin1` text (so binary entries survive): deleted
 * (emptied), corrupted (a byte in its middle changed), truncated to half, swapped for another entry
 * of the same folder, and for the JSON records (output fingerprint, build stamp, release index,
 * plugin streams) every leaf given a made-up value of its shape. `record` is relative to the cache.
 */
export function cacheMutations(cacheDir: string): RecordMutation[] {
  const out: RecordMutation[] = [];
  for (const folder of readdirSync(cacheDir, { withFileTypes: true })) {
    if (!folder.isDirectory()) continue;
    const files = readdirSync(path.join(cacheDir, folder.name)).sort();
    const pattern = folder.name.replace(/-v8-.*$/, '');
    files.forEach((name, i) => {
      const record = `${folder.name}/${name}`;
      const text = readFileSync(path.join(cacheDir, record), 'latin1');
      const other =
        files.length > 1
          ? readFileSync(path.join(cacheDir, folder.name, files[(i + 1) % files.length]!), 'latin1')
          : undefined;
      const mid = Math.floor(text.length / 2);
      out.push({ record, leaf: 'file', pattern, kind: 'deleted', apply: () => '' });
      out.push({
        record,
        leaf: 'file',
        pattern,
        kind: 'other-value',
        apply: (t) =>
          t.length === 0 ? 'x' : `${t.slice(0, mid)}${String.fromCharCode(t.charCodeAt(mid) ^ 1)}${t.slice(mid + 1)}`,
      });
      out.push({ record, leaf: 'half', pattern, kind: 'other-value', apply: (t) => t.slice(0, mid) });
      if (other !== undefined) out.push({ record, leaf: 'swapped', pattern, kind: 'duplicated', apply: () => other });
      if (!name.endsWith('.json')) return;
      let doc: unknown;
      try {
        doc = JSON.parse(text);
      } catch {
        return;
      }
      for (const leaf of leavesOf(doc)) {
        out.push({
          record,
          leaf: pathText(leaf.path),
          pattern: `${pattern} ${leaf.pattern}`,
          kind: 'other-value',
          apply: (t) => JSON.stringify(setLeaf(JSON.parse(t), leaf.path, madeUp(leaf.value))),
        });
      }
    });
  }
  return out;
}

function setLeaf(root: unknown, at: readonly (string | number)[], value: unknown): unknown {
  let node = root as Record<string | number, unknown>;
  for (const p of at.slice(0, -1)) node = node[p] as Record<string | number, unknown>;
  node[at.at(-1)!] = value;
  return root;
}
