/**
 * A total order over objects, so output never depends on artifact or input order beyond what is
 * deliberate: kinds that others depend on first (the kind order kustomize's legacy sorter uses —
 * Namespaces, CRDs, RBAC, config, workloads — with webhook configurations last), then kind name,
 * namespace, name, group and version.
 */
import { apiGroup, apiVersionOnly, nameOf, namespaceOf, type KubeObject } from './object.js';

const FIRST = [
  'Namespace',
  'ResourceQuota',
  'StorageClass',
  'CustomResourceDefinition',
  'ServiceAccount',
  'PodSecurityPolicy',
  'Role',
  'ClusterRole',
  'RoleBinding',
  'ClusterRoleBinding',
  'ConfigMap',
  'Secret',
  'Endpoints',
  'Service',
  'LimitRange',
  'PriorityClass',
  'PersistentVolume',
  'PersistentVolumeClaim',
  'Deployment',
  'StatefulSet',
  'CronJob',
  'PodDisruptionBudget',
];
const LAST = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];
const RANK = new Map<string, number>([
  ...FIRST.map((k, i) => [k, i] as const),
  ...LAST.map((k, i) => [k, 1000 + i] as const),
]);

function rankOf(kind: string): number {
  return RANK.get(kind) ?? 500;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Compares two objects in apply order; a total order (ties only for identical ids). */
export function compareObjects(a: KubeObject, b: KubeObject): number {
  return (
    rankOf(a.kind) - rankOf(b.kind) ||
    compareText(a.kind, b.kind) ||
    compareText(namespaceOf(a), namespaceOf(b)) ||
    compareText(nameOf(a), nameOf(b)) ||
    compareText(apiGroup(a.apiVersion), apiGroup(b.apiVersion)) ||
    compareText(apiVersionOnly(a.apiVersion), apiVersionOnly(b.apiVersion))
  );
}

/** Returns a sorted copy. */
export function sortObjects<T extends { object: KubeObject }>(items: readonly T[]): T[] {
  return [...items].sort((x, y) => compareObjects(x.object, y.object));
}
