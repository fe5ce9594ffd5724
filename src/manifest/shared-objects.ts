/**
 * One object for equal objects across a build's environments. The processing steps are plain
 * functions that copy only what they change, so an object no variable reaches (a CRD) comes out of
 * every environment as a new top level over the same parsed subtrees; sharing it at the stage
 * boundary makes it the same object everywhere — and it is therefore serialised, flavoured and
 * written once (those stages remember results by object identity).
 *
 * Equal means exactly equal: the same keys in the same order and equal values (Object.is for
 * scalars). The comparison stops at the first subtree both sides share, so an object that differs
 * only where a step copied it costs the length of that path.
 */
import { isJsonObject, type JsonValue, type KubeObject } from './object.js';

export interface SharedObjects {
  /** Each object, or an earlier one exactly equal to it. */
  share(objects: readonly KubeObject[]): KubeObject[];
}

/**
 * Variants remembered per object name: environments with distinct values each bring a variant of
 * the objects those values reach, and comparing against every one of them would grow with the fleet.
 */
const VARIANTS_PER_NAME = 4;

export function createSharedObjects(): SharedObjects {
  const variants = new Map<string, KubeObject[]>();
  const shared = new WeakSet<KubeObject>();
  const one = (object: KubeObject): KubeObject => {
    if (shared.has(object)) return object;
    const name = nameOf(object);
    const known = variants.get(name) ?? [];
    const equal = known.find((k) => sameValue(k, object));
    if (equal) return equal;
    variants.set(name, [object, ...known].slice(0, VARIANTS_PER_NAME));
    shared.add(object);
    return object;
  };
  return { share: (objects) => objects.map(one) };
}

function nameOf(object: KubeObject): string {
  const meta = isJsonObject(object.metadata) ? object.metadata : {};
  const namespace = typeof meta.namespace === 'string' ? meta.namespace : '';
  const name = typeof meta.name === 'string' ? meta.name : '';
  return JSON.stringify([object.apiVersion, object.kind, namespace, name]);
}

function sameValue(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => sameValue(v, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length || ka.some((k, i) => k !== kb[i])) return false;
  const ra = a as Record<string, JsonValue>;
  const rb = b as Record<string, JsonValue>;
  return ka.every((k) => sameValue(ra[k], rb[k]));
}
