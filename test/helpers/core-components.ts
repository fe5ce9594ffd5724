/**
 * The real cluster-api v1.12.0 core components, parsed and deep-frozen, for transform tests.
 * Variables are replaced by their `${VAR:=default}` defaults (the fixture has no bare ${VAR}), so
 * the objects look like clusterctl's output with no variables set.
 */
import type { KubeObject } from 'capi-render';
import { CORE_COMPONENTS, deepFreeze, fixtureObjects } from './fixtures.js';

export { deepFreeze };

/** A fresh, deep-frozen copy of every object of the fixture, in document order. */
export function loadCoreComponents(): KubeObject[] {
  return fixtureObjects(CORE_COMPONENTS).map((d) => deepFreeze(d));
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
