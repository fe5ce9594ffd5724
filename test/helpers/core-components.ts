/**
 * The real cluster-api v1.12.0 core components, parsed and deep-frozen, for transform tests.
 * Variables are replaced by their `${VAR:=default}` defaults (the fixture has no bare ${VAR}), so
 * the objects look like clusterctl's output with no variables set.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import jsYaml from 'js-yaml';
import type { KubeObject } from '../../src/manifest/object.js';

const FIXTURE = new URL('../fixtures/repository/cluster-api/v1.12.0/core-components.yaml.gz', import.meta.url);

/** A fresh, deep-frozen copy of every object of the fixture, in document order. */
export function loadCoreComponents(): KubeObject[] {
  const text = gunzipSync(readFileSync(FIXTURE)).toString('utf8').replace(/\$\{[A-Za-z0-9_]+:=([^}]*)\}/g, '$1');
  const docs = jsYaml.loadAll(text, undefined, { schema: jsYaml.CORE_SCHEMA }) as (KubeObject | null)[];
  return docs.filter((d): d is KubeObject => d !== null).map((d) => deepFreeze(d));
}

/** Freezes a value and everything inside it, so any mutation by the code under test throws. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/** Finds the one object with this `Kind/namespace/name` (or `Kind/name`) reference. */
export function findObject(objects: readonly KubeObject[], ref: string): KubeObject {
  const found = objects.filter((o) => refOf(o) === ref);
  if (found.length !== 1) throw new Error(`expected one ${ref}, found ${found.length}`);
  return found[0] as KubeObject;
}

/** `Kind/namespace/name` or `Kind/name`, like describeObject. */
export function refOf(o: KubeObject): string {
  const meta = (o.metadata ?? {}) as { name?: string; namespace?: string };
  return meta.namespace ? `${o.kind}/${meta.namespace}/${meta.name}` : `${o.kind}/${meta.name}`;
}
