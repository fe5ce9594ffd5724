/**
 * Dumps shaped like kubectl's output: `kubectl get a,b,c -A -o yaml` prints
 * one client-side `v1 List` (items grouped by resource type, each type sorted by namespace and
 * name, every map's keys sorted, `metadata.resourceVersion: ""`); the per-resource loop prints a
 * `---` stream of such Lists, including empty ones for types with no objects.
 */
import jsYaml from 'js-yaml';

type Obj = Record<string, any>;

const DUMP_OPTIONS: jsYaml.DumpOptions = {
  sortKeys: true,
  noArrayIndent: true,
  lineWidth: -1,
  noRefs: true,
  quotingType: '"',
};

const typeOf = (o: Obj) => `${o.kind}.${o.apiVersion.includes('/') ? o.apiVersion.split('/')[0] : ''}`;

/** Objects grouped by resource type (types in name order), each group sorted by namespace/name. */
export function groupByType(objects: readonly Obj[]): Obj[][] {
  const groups = new Map<string, Obj[]>();
  for (const o of objects) groups.set(typeOf(o), [...(groups.get(typeOf(o)) ?? []), o]);
  const key = (o: Obj) => `${o.metadata.namespace ?? ''}/${o.metadata.name}`;
  return [...groups.keys()].sort().map((t) => groups.get(t)!.sort((a, b) => (key(a) < key(b) ? -1 : 1)));
}

/** One `v1 List` of every object. */
export function listDump(objects: readonly Obj[]): string {
  return jsYaml.dump(
    { apiVersion: 'v1', items: groupByType(objects).flat(), kind: 'List', metadata: { resourceVersion: '' } },
    DUMP_OPTIONS,
  );
}

/** A `---` stream with one List per resource type, an empty List (a type with no labelled objects) and an empty document. */
export function streamDump(objects: readonly Obj[]): string {
  const lists = groupByType(objects).map((items) =>
    jsYaml.dump({ apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } }, DUMP_OPTIONS),
  );
  const empty = jsYaml.dump(
    { apiVersion: 'v1', items: [], kind: 'List', metadata: { resourceVersion: '' } },
    DUMP_OPTIONS,
  );
  return ['', empty, ...lists].map((doc) => `---\n${doc}`).join('');
}
