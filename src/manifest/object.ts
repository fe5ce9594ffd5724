/**
 * The plain-object model of a Kubernetes manifest used through the whole pipeline. Objects parsed
 * from release artifacts are shared between environments and must be treated as immutable:
 * transforms return new objects for what they change (see {@link setIn}) and keep the rest.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;
export interface JsonObject {
  [key: string]: JsonValue;
}

export interface ObjectMeta extends JsonObject {}

/** A Kubernetes object as plain data. */
export interface KubeObject extends JsonObject {
  apiVersion: string;
  kind: string;
}

/** Identity of an object: group/version/kind/namespace/name. */
export interface ObjectId {
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
}

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function apiGroup(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

export function apiVersionOnly(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

export function metadataOf(obj: JsonObject): JsonObject {
  const meta = obj.metadata;
  return isJsonObject(meta) ? meta : {};
}

export function nameOf(obj: JsonObject): string {
  const name = metadataOf(obj).name;
  return typeof name === 'string' ? name : '';
}

export function namespaceOf(obj: JsonObject): string {
  const ns = metadataOf(obj).namespace;
  return typeof ns === 'string' ? ns : '';
}

export function labelsOf(obj: JsonObject): Record<string, string> {
  const labels = metadataOf(obj).labels;
  return isJsonObject(labels) ? (labels as Record<string, string>) : {};
}

export function annotationsOf(obj: JsonObject): Record<string, string> {
  const annotations = metadataOf(obj).annotations;
  return isJsonObject(annotations) ? (annotations as Record<string, string>) : {};
}

export function idOf(obj: KubeObject): ObjectId {
  return {
    group: apiGroup(obj.apiVersion),
    version: apiVersionOnly(obj.apiVersion),
    kind: obj.kind,
    namespace: namespaceOf(obj),
    name: nameOf(obj),
  };
}

/** `Kind/namespace/name` or `Kind/name`, the form used in messages. */
export function describeObject(obj: JsonObject): string {
  const kind = typeof obj.kind === 'string' ? obj.kind : '<no kind>';
  const ns = namespaceOf(obj);
  const name = nameOf(obj) || '<no name>';
  return ns ? `${kind}/${ns}/${name}` : `${kind}/${name}`;
}

/**
 * Returns a copy of `obj` with the value at `path` replaced, copying only the containers on the
 * path (structural sharing). Missing intermediate maps are created. Never mutates `obj`.
 */
export function setIn<T extends JsonObject>(
  obj: T,
  path: readonly (string | number)[],
  value: JsonValue | undefined,
): T {
  if (path.length === 0) throw new Error('setIn: empty path');
  const [head, ...rest] = path;
  const copy: JsonObject | JsonValue[] = Array.isArray(obj) ? [...(obj as JsonValue[])] : { ...obj };
  const current = (obj as Record<string | number, JsonValue | undefined>)[head as string];
  const next =
    rest.length === 0
      ? value
      : setIn((isJsonObject(current) || Array.isArray(current) ? current : {}) as JsonObject, rest, value);
  if (next === undefined && !Array.isArray(copy)) delete copy[head as string];
  // defineProperty, not assignment: a key named `__proto__` must become data, not a prototype.
  else
    Object.defineProperty(copy, head as string, { value: next, enumerable: true, writable: true, configurable: true });
  return copy as T;
}

/** Reads the value at `path`, or undefined. */
export function getIn(obj: JsonValue | undefined, path: readonly (string | number)[]): JsonValue | undefined {
  let current: JsonValue | undefined = obj;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, JsonValue>)[key as string];
  }
  return current;
}

/** A deep copy, for the few transforms that rewrite a whole (small) object such as a Deployment. */
export function cloneObject<T extends JsonValue>(value: T): T {
  return structuredClone(value);
}
