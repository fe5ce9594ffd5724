import jsYaml from 'js-yaml';
import { createFastDumper } from './fast-dump.js';
import { createTextMemo } from './text-memo.js';
import type { JsonValue } from './object.js';

/**
 * The one YAML serialisation used for every rendered object, so output is byte-identical on every
 * machine. Keys: `apiVersion`, `kind`, `metadata` first, then the rest sorted by code unit (the
 * same relative order in every map, like sigs.k8s.io/yaml). Sequences are not indented under
 * their key (kubectl style), lines are never folded, and strings a YAML 1.1 reader (the Go
 * parsers in kubectl, Argo CD and Flux) would retype — `on`, `yes`, `y`, `0775`, `1.10`, dates —
 * are quoted. No anchors or aliases, LF line ends, exactly one trailing newline.
 */
export function serializeObject(value: JsonValue): string {
  return jsYaml.dump(value, OUTPUT_DUMP_OPTIONS);
}

/**
 * serializeObject with memory, for builds that write many environments: the same object (by
 * identity) or an equal one (same JSON text — JSON.stringify is several times faster than YAML
 * dumping) is dumped once, and the JSON text is computed only for objects that can equal an earlier
 * one (text-memo.ts). The output is exactly serializeObject's.
 */
export interface CachedSerializer {
  serialize(value: KubeObjectLike): string;
}

type KubeObjectLike = JsonValue & object;

export function createCachedSerializer(): CachedSerializer {
  // Same bytes as serializeObject (proved by test/unit/fast-dump.test.ts), several times faster.
  const dumper = createFastDumper({ dumpOptions: OUTPUT_DUMP_OPTIONS, compareKeys });
  const memo = createTextMemo({ make: (value) => dumper.dump(value), json: (value) => JSON.stringify(value) });
  return { serialize: (value) => memo.textOf(value) };
}

/** Joins serialised documents into one multi-document stream (`---` between documents). */
export function joinDocuments(documents: readonly string[]): string {
  return documents.join('---\n');
}

/**
 * Serialises a machine-written file (the lock) whose keys follow a fixed reading order: keys in
 * `order` first, in that order, the rest sorted. Same scalar rules as {@link serializeObject}.
 */
export function serializeWithKeyOrder(value: JsonValue, order: readonly string[]): string {
  const rank = new Map(order.map((k, i) => [k, i]));
  return jsYaml.dump(value, {
    ...OUTPUT_DUMP_OPTIONS,
    sortKeys: (a: string, b: string) =>
      (rank.get(a) ?? order.length) - (rank.get(b) ?? order.length) || (a < b ? -1 : a > b ? 1 : 0),
  });
}

const FIRST_KEYS: Record<string, number> = { apiVersion: 0, kind: 1, metadata: 2 };

export function compareKeys(a: string, b: string): number {
  const ra = FIRST_KEYS[a] ?? 3;
  const rb = FIRST_KEYS[b] ?? 3;
  if (ra !== rb) return ra - rb;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The js-yaml options of every serialised file; the fast emitter reproduces them (its differential test imports them). */
export const OUTPUT_DUMP_OPTIONS: jsYaml.DumpOptions = {
  lineWidth: -1,
  noRefs: true,
  noArrayIndent: true,
  sortKeys: compareKeys,
  schema: jsYaml.DEFAULT_SCHEMA,
};
