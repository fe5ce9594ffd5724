/**
 * RBAC rules expanded to single permissions — (apiGroup, resource, verb), optionally limited to
 * one resourceName, or (nonResourceURL, verb) — so two versions of a role can be compared
 * permission by permission, with wildcards and subresource wildcards (`*\/scale`) honoured the way
 * the API server's authorizer matches them.
 */
import { isJsonObject } from '../../manifest/object.js';
import { compareText } from '../util-compare.js';

/** One permission. Exactly one of `resource` (with `apiGroup`) or `url` is set. */
export interface Permission {
  verb: string;
  apiGroup?: string;
  resource?: string;
  resourceName?: string;
  url?: string;
}

/** Verbs that let a subject grant itself more than it has (Kubernetes RBAC escalation checks). */
const ESCALATING_VERBS = new Set(['escalate', 'bind', 'impersonate']);

/** Every permission the `rules` of a Role or ClusterRole grant; malformed rules grant nothing. */
export function expandRules(rules: unknown): Permission[] {
  const out: Permission[] = [];
  for (const rule of Array.isArray(rules) ? rules.filter(isJsonObject) : []) {
    const verbs = strings(rule.verbs);
    for (const url of strings(rule.nonResourceURLs)) for (const verb of verbs) out.push({ verb, url });
    const names = strings(rule.resourceNames);
    for (const apiGroup of strings(rule.apiGroups)) {
      for (const resource of strings(rule.resources)) {
        for (const verb of verbs) {
          if (names.length === 0) out.push({ verb, apiGroup, resource });
          else for (const resourceName of names) out.push({ verb, apiGroup, resource, resourceName });
        }
      }
    }
  }
  return out;
}

/** True when `granted` allows everything `wanted` allows (wildcards, `*\/sub`, URL `prefix*`). */
export function coversPermission(granted: Permission, wanted: Permission): boolean {
  if (granted.verb !== '*' && granted.verb !== wanted.verb) return false;
  if (granted.url !== undefined || wanted.url !== undefined) {
    if (granted.url === undefined || wanted.url === undefined) return false;
    return granted.url === wanted.url || (granted.url.endsWith('*') && wanted.url.startsWith(granted.url.slice(0, -1)));
  }
  if (granted.apiGroup !== '*' && granted.apiGroup !== wanted.apiGroup) return false;
  if (!coversResource(granted.resource!, wanted.resource!)) return false;
  return granted.resourceName === undefined || granted.resourceName === wanted.resourceName;
}

/** The permissions of `next` not covered by any of `previous`, without duplicates. */
export function uncoveredPermissions(next: readonly Permission[], previous: readonly Permission[]): Permission[] {
  const seen = new Set<string>();
  return next.filter((p) => {
    const key = formatPermission(p);
    if (seen.has(key) || previous.some((q) => coversPermission(q, p))) return false;
    seen.add(key);
    return true;
  });
}

/** True for wildcard grants and for escalate/bind/impersonate. */
export function isDangerousPermission(p: Permission): boolean {
  return (
    p.verb === '*' ||
    ESCALATING_VERBS.has(p.verb) ||
    p.apiGroup === '*' ||
    (p.resource ?? '').startsWith('*') ||
    p.url === '*'
  );
}

/** `verb resource[.group]`, `verb resource[.group] (name=x)` or `verb nonResourceURL`, as in `kubectl auth can-i`. */
export function formatPermission(p: Permission): string {
  if (p.url !== undefined) return `${p.verb} ${p.url}`;
  const name = p.resourceName === undefined ? '' : ` (name=${p.resourceName})`;
  return `${p.verb} ${formatTarget(p)}${name}`;
}

/**
 * Permissions grouped per target for a report: `clusters.cluster.x-k8s.io: create, delete, get`,
 * `secrets (name=x): get`, `/metrics: get`. Targets and verbs sorted.
 */
export function summarizePermissions(list: readonly Permission[]): string[] {
  const verbs = verbsByTarget(list);
  return [...verbs.keys()].map((target) => `${target}: ${verbs.get(target)!.join(', ')}`);
}

/**
 * The verbs granted per target (`secrets`, `clusters.cluster.x-k8s.io/status`, `secrets (name=x)`,
 * `/metrics`), targets and verbs sorted: what a list of rules grants, however it is grouped into rules.
 */
export function verbsByTarget(list: readonly Permission[]): Map<string, string[]> {
  const verbs = new Map<string, Set<string>>();
  for (const p of list) {
    const target = p.url ?? `${formatTarget(p)}${p.resourceName === undefined ? '' : ` (name=${p.resourceName})`}`;
    verbs.set(target, (verbs.get(target) ?? new Set()).add(p.verb));
  }
  return new Map(
    [...verbs.keys()].sort(compareText).map((target) => [target, [...verbs.get(target)!].sort(compareText)]),
  );
}

function formatTarget(p: Permission): string {
  // kubectl's resource.group form; a subresource follows the group (`clusters.cluster.x-k8s.io/status`).
  const [resource, ...sub] = p.resource!.split('/');
  const group = p.apiGroup ? `.${p.apiGroup}` : '';
  return `${resource}${group}${sub.length > 0 ? `/${sub.join('/')}` : ''}`;
}

function coversResource(granted: string, wanted: string): boolean {
  if (granted === '*' || granted === wanted) return true;
  // `*/scale` grants the scale subresource of every resource.
  return granted.startsWith('*/') && wanted.includes('/') && wanted.slice(wanted.indexOf('/')) === granted.slice(1);
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}
