/**
 * Per-object results of a build's processing steps, remembered by the input object's identity and a
 * key naming the step and everything else it depends on. Objects are immutable and parsed once per
 * build, so an object every environment shares (a CRD) goes through each step once and comes out as
 * the same object everywhere — and is therefore serialised, flavoured and written once. Results live
 * as long as their input object (a WeakMap): parts substituted per environment are forgotten with
 * their environment.
 *
 * A step may use the memo only for work that depends on nothing but the object and the key.
 */
import type { KubeObject } from './object.js';

export interface ObjectMemo {
  /** `fn(object)` for each object, in order (so the first failure is the one a plain map would raise). */
  map<T>(objects: readonly KubeObject[], key: string, fn: (object: KubeObject) => T): T[];
  /** One value per key for the whole build (an object every environment gets, made once). */
  value<T>(key: string, make: () => T): T;
}

export function createObjectMemo(): ObjectMemo {
  const perObject = new WeakMap<KubeObject, Map<string, unknown>>();
  const values = new Map<string, unknown>();
  return {
    map<T>(objects: readonly KubeObject[], key: string, fn: (object: KubeObject) => T): T[] {
      return objects.map((object) => {
        let results = perObject.get(object);
        if (!results) perObject.set(object, (results = new Map()));
        if (results.has(key)) return results.get(key) as T;
        const result = fn(object);
        results.set(key, result);
        return result;
      });
    },
    value<T>(key: string, make: () => T): T {
      if (values.has(key)) return values.get(key) as T;
      const made = make();
      values.set(key, made);
      return made;
    },
  };
}

/** Remembers nothing: every step runs on every object (tests, and callers without a build). */
export const NO_OBJECT_MEMO: ObjectMemo = {
  map: (objects, _key, fn) => objects.map((o) => fn(o)),
  value: (_key, make) => make(),
};
