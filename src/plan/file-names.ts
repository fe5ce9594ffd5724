/**
 * Deterministic file names for rendered objects: `<kind>-<name>.yaml`, lowercased, reduced to
 * `[a-z0-9._-]`. When two objects of one folder would share a name (same kind and name in two
 * namespaces or groups), every object of that clash gets `<kind>.<group>-<namespace>-<name>.yaml`.
 * A clash that remains is an error. Names can never escape their folder.
 */
import { SpecError, error } from '../errors.js';
import { apiGroup, describeObject, nameOf, namespaceOf, type KubeObject } from '../manifest/object.js';

function sanitize(part: string): string {
  const cleaned = part
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/\.{2,}/g, '.')
    // Leading dots would make hidden files; leading/trailing separators are noise.
    .replace(/^[.-]+|[.-]+$/g, '');
  return cleaned || '_';
}

function shortName(obj: KubeObject): string {
  return `${sanitize(obj.kind)}-${sanitize(nameOf(obj))}.yaml`;
}

function longName(obj: KubeObject): string {
  const group = apiGroup(obj.apiVersion) || 'core';
  return `${sanitize(obj.kind)}.${sanitize(group)}-${sanitize(namespaceOf(obj) || 'cluster')}-${sanitize(nameOf(obj))}.yaml`;
}

/** Assigns a file name to each object of one folder; `folder` is used in the clash error. */
export function assignFileNames(objects: readonly KubeObject[], folder: string): string[] {
  const short = objects.map(shortName);
  const counts = new Map<string, number>();
  for (const name of short) counts.set(name, (counts.get(name) ?? 0) + 1);
  const names = objects.map((o, i) => ((counts.get(short[i]!) ?? 0) > 1 ? longName(o) : short[i]!));
  const seen = new Map<string, KubeObject>();
  names.forEach((name, i) => {
    const other = seen.get(name);
    if (other) {
      throw new SpecError(
        error(
          'output',
          `${describeObject(other)} and ${describeObject(objects[i]!)} would both be written to ${folder}/${name}`,
          {
            object: describeObject(objects[i]!),
            hint: 'two objects with the same kind, group, namespace and name cannot both be rendered; remove the duplicate',
          },
        ),
      );
    }
    seen.set(name, objects[i]!);
  });
  return names;
}

/** A folder or environment name must be one safe path segment. */
export function assertSafeSegment(segment: string, what: string): void {
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(segment) || segment.includes('..')) {
    throw new SpecError(
      error('input-path', `${what} "${segment}" is not usable as a folder name`, {
        hint: 'use letters, digits, ".", "_" and "-", starting with a letter or digit',
      }),
    );
  }
}
