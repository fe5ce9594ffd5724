/**
 * Helpers over {@link Permission} tuples: a stable identity, a total order and the one-line text
 * used in verification reports.
 */
import type { Permission } from './rbac-types.js';

/** Identity of a permission; equal keys mean the same request attributes. */
export function permissionKey(p: Permission): string {
  return [p.namespace, p.group, p.resource, p.verb, p.name ?? '\u0000'].join('\u0001');
}

/** Total order: namespace ('' first), group, resource, verb, name (null first). */
export function comparePermissions(a: Permission, b: Permission): number {
  return (
    compareText(a.namespace, b.namespace) ||
    compareText(a.group, b.group) ||
    compareText(a.resource, b.resource) ||
    compareText(a.verb, b.verb) ||
    compareText(a.name ?? '', b.name ?? '') ||
    Number(a.name !== null) - Number(b.name !== null)
  );
}

/** `patch deployments.apps capi-controller-manager in capi-system`, `list namespaces (any name) cluster-wide`. */
export function formatPermission(p: Permission): string {
  const resource = p.group === '' ? p.resource : `${p.resource}.${p.group}`;
  const name = p.name === null ? '(any name)' : p.name;
  const scope = p.namespace === '' ? 'cluster-wide' : `in ${p.namespace}`;
  return `${p.verb} ${resource} ${name} ${scope}`;
}

/** The permissions without duplicates, in {@link comparePermissions} order. */
export function uniquePermissions(permissions: Iterable<Permission>): Permission[] {
  const byKey = new Map<string, Permission>();
  for (const p of permissions) byKey.set(permissionKey(p), p);
  return [...byKey.values()].sort(comparePermissions);
}

/** Code-unit string order, independent of locale (Intl collation differs between machines). */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
