/** The cluster dump fixtures (test/fixtures/live/), as objects to mutate and as files to pass to the CLI. */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { fixtureText } from './fixtures.js';

type Obj = Record<string, any>;

/** The items of a `<variant>.list.yaml` dump. */
export function dumpItems(variant: string): Obj[] {
  return (jsYaml.load(fixtureText(`live/${variant}.list.yaml`), { schema: jsYaml.CORE_SCHEMA }) as Obj).items as Obj[];
}

/** Writes `items` as a kubectl `v1 List` into `dir/name` and returns the path. */
export function writeDump(dir: string, name: string, items: readonly Obj[]): string {
  const file = path.join(dir, name);
  writeFileSync(
    file,
    jsYaml.dump(
      { apiVersion: 'v1', items, kind: 'List', metadata: { resourceVersion: '' } },
      { lineWidth: -1, noRefs: true },
    ),
  );
  return file;
}

/** Writes a fixture dump unchanged into `dir` and returns the path. */
export function copyDump(dir: string, file: string): string {
  const target = path.join(dir, file);
  writeFileSync(target, fixtureText(`live/${file}`));
  return target;
}

/** The live object of `kind` and `name` (and namespace, when given). */
export function findItem(items: readonly Obj[], kind: string, name: string, namespace?: string): Obj {
  const found = items.find(
    (o) =>
      o.kind === kind && o.metadata.name === name && (namespace === undefined || o.metadata.namespace === namespace),
  );
  if (!found) throw new Error(`no ${kind} ${name} in the dump`);
  return found;
}
