/**
 * A small model of the Kubernetes RBAC authorizer (plugin/pkg/auth/authorizer/rbac): which rules a
 * ServiceAccount holds through a set of Role/ClusterRole/binding objects, and whether a rule allows a
 * request. It reads the objects as the API server would and shares no code with the role builder,
 * so a verification through it is an independent check of what was built.
 */
import { getIn, isJsonObject, nameOf, namespaceOf, type JsonValue, type KubeObject } from '../manifest/object.js';
import type { Permission, PolicyRule, ServiceAccountRef } from './rbac-types.js';

const RBAC_V1 = 'rbac.authorization.k8s.io/v1';

/** A rule held through one binding. `namespace` '' means the binding is a ClusterRoleBinding. */
export interface HeldRule {
  namespace: string;
  rule: PolicyRule;
  /** `RoleBinding/ns/name → Role/name`, for reports. */
  via: string;
}

/** What a ServiceAccount holds through `objects`, and the bindings that could not be followed. */
export interface HeldRules {
  rules: HeldRule[];
  /** Bindings of the ServiceAccount whose role is not among the objects. */
  dangling: string[];
  /** Bindings that also bind subjects other than the ServiceAccount. */
  sharedBindings: string[];
  /** The roles those bindings reach: `ClusterRole/name`, `Role/namespace/name`. */
  boundRoles: string[];
}

/** The rules `sa` holds through the RBAC objects among `objects` (other kinds are ignored). */
export function listHeldRules(objects: readonly KubeObject[], sa: ServiceAccountRef): HeldRules {
  const rbac = objects.filter((o) => o.apiVersion === RBAC_V1);
  const clusterRoles = new Map(rbac.filter((o) => o.kind === 'ClusterRole').map((o) => [nameOf(o), o]));
  const roles = new Map(rbac.filter((o) => o.kind === 'Role').map((o) => [`${namespaceOf(o)}/${nameOf(o)}`, o]));
  const held: HeldRules = { rules: [], dangling: [], sharedBindings: [], boundRoles: [] };
  for (const binding of rbac) {
    if (binding.kind !== 'ClusterRoleBinding' && binding.kind !== 'RoleBinding') continue;
    const namespace = binding.kind === 'RoleBinding' ? namespaceOf(binding) : '';
    const subjects = asArray(binding.subjects);
    const bindsSa = subjects.some((s) => subjectMatches(s, sa, namespace));
    if (!bindsSa) continue;
    const bindingId = namespace
      ? `${binding.kind}/${namespace}/${nameOf(binding)}`
      : `${binding.kind}/${nameOf(binding)}`;
    if (subjects.some((s) => !subjectIsExactly(s, sa, namespace))) held.sharedBindings.push(bindingId);
    const refKind = getIn(binding, ['roleRef', 'kind']);
    const refName = String(getIn(binding, ['roleRef', 'name']) ?? '');
    const role =
      refKind === 'ClusterRole'
        ? clusterRoles.get(refName)
        : refKind === 'Role' && namespace
          ? roles.get(`${namespace}/${refName}`)
          : undefined;
    const via = `${bindingId} → ${String(refKind)}/${refName}`;
    if (role === undefined) {
      held.dangling.push(via);
      continue;
    }
    held.boundRoles.push(refKind === 'Role' ? `Role/${namespace}/${refName}` : `ClusterRole/${refName}`);
    for (const r of asArray(role.rules)) held.rules.push({ namespace, rule: toPolicyRule(r), via });
  }
  return held;
}

/** True when `rule` allows the request `p` (RuleAllows: verb, group, resource and name all match). */
export function ruleAllows(rule: PolicyRule, p: Permission): boolean {
  const has = (list: readonly string[] | undefined, value: string) =>
    (list ?? []).includes('*') || (list ?? []).includes(value);
  if (!has(rule.verbs, p.verb) || !has(rule.apiGroups, p.group) || !has(rule.resources, p.resource)) return false;
  const names = rule.resourceNames ?? [];
  // A request without a name (POST create, list, watch) only matches a rule without resourceNames.
  return names.length === 0 || (p.name !== null && names.includes(p.name));
}

/** True when a held rule allows `p`: a ClusterRoleBinding's anywhere, a RoleBinding's in its namespace. */
export function isHeldAllowed(held: readonly HeldRule[], p: Permission): boolean {
  return held.some((h) => (h.namespace === '' || h.namespace === p.namespace) && ruleAllows(h.rule, p));
}

/**
 * Does `subject` apply to the ServiceAccount (appliesTo in the authorizer)? A ServiceAccount subject
 * without a namespace means the binding's own; the SA's user name and its implicit groups count too.
 */
function subjectMatches(subject: JsonValue, sa: ServiceAccountRef, bindingNamespace: string): boolean {
  if (!isJsonObject(subject)) return false;
  const name = subject.name;
  switch (subject.kind) {
    case 'ServiceAccount':
      return (
        name === sa.name &&
        (typeof subject.namespace === 'string' && subject.namespace !== '' ? subject.namespace : bindingNamespace) ===
          sa.namespace
      );
    case 'User':
      return name === `system:serviceaccount:${sa.namespace}:${sa.name}`;
    case 'Group':
      return (
        name === 'system:serviceaccounts' ||
        name === `system:serviceaccounts:${sa.namespace}` ||
        name === 'system:authenticated'
      );
    default:
      return false;
  }
}

function subjectIsExactly(subject: JsonValue, sa: ServiceAccountRef, bindingNamespace: string): boolean {
  return isJsonObject(subject) && subject.kind === 'ServiceAccount' && subjectMatches(subject, sa, bindingNamespace);
}

function toPolicyRule(value: JsonValue): PolicyRule {
  const strings = (v: JsonValue | undefined) => asArray(v).filter((x): x is string => typeof x === 'string');
  const r = isJsonObject(value) ? value : {};
  const out: PolicyRule = { verbs: strings(r.verbs) };
  if (r.apiGroups !== undefined) out.apiGroups = strings(r.apiGroups);
  if (r.resources !== undefined) out.resources = strings(r.resources);
  if (r.resourceNames !== undefined) out.resourceNames = strings(r.resourceNames);
  if (r.nonResourceURLs !== undefined) out.nonResourceURLs = strings(r.nonResourceURLs);
  return out;
}

function asArray(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}
