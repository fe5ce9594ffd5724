import jsYaml from 'js-yaml';
import { BoundedMap } from '../bounded-map.js';
import { createFastDumper } from './fast-dump.js';
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
 * dumping) is dumped once. The output is exactly serializeObject's.
 */
export interface CachedSerializer {
  serialize(value: KubeObjectLike): string;
}

type KubeObjectLike = JsonValue & object;

/** Texts remembered by content: objects a fleet shares hit the identity cache; these are the rest. */
const BY_CONTENT_ENTRIES = 4096;

export function createCachedSerializer(): CachedSerializer {
  const byIdentity = new WeakMap<object, string>();
  // Bounded: with distinct values every environment brings objects of its own, each remembered twice (JSON and YAML).
  const byJson = new BoundedMap<string, string>(BY_CONTENT_ENTRIES);
  // Same bytes as serializeObject (proved by test/unit/fast-dump.test.ts), several times faster.
  const dumper = createFastDumper({ dumpOptions: OUTPUT_DUMP_OPTIONS, compareKeys });
  return {
    serialize(value) {
      let text = byIdentity.get(value);
      if (text !== undefined) return text;
      const json = JSON.stringify(value);
      text = byJson.get(json);
      if (text === undefined) {
        text = dumper.dump(value);
        byJson.set(json, text);
      }
      byIdentity.set(value, text);
      return text;
    },
  };
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
