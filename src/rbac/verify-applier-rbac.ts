/**
 * Checks a set of role objects against what the applier needs for a render, through the RBAC
 * authorizer model: every needed request must be allowed (`missing` lists those that are not) and
 * the objects must grant nothing else (`extra`). For tests and `capi-render rbac --verify`, which
 * can be pointed at a hand-edited or older role.
 */
import { nameOf, namespaceOf, type KubeObject } from '../manifest/object.js';
import { resolveApplierOptions } from './applier-options.js';
import { listRequiredPermissions } from './applier-requirements.js';
import { compareText, formatPermission, permissionKey, uniquePermissions } from './permission.js';
import { isHeldAllowed, listHeldRules, type HeldRule } from './rbac-authorizer.js';
import type { ApplierRbac, ApplierRbacOptions, Permission, RbacComponent, RbacVerification } from './rbac-types.js';

/**
 * Verifies `rbac.objects` for `components` under `options` (the same options the role was computed
 * with). Both lists are sorted and empty when the role is exact. Throws like computeApplierRbac for
 * objects it cannot resolve.
 */
export function verifyApplierRbac(
  components: readonly RbacComponent[],
  rbac: Pick<ApplierRbac, 'objects'>,
  options: ApplierRbacOptions,
): RbacVerification {
  const applier = resolveApplierOptions(options);
  const required = listRequiredPermissions(components, applier, options.retired ?? []);
  const held = listHeldRules(rbac.objects, applier.serviceAccount);

  const missing = required.filter((p) => !isHeldAllowed(held.rules, p)).map(formatPermission);
  missing.push(...held.dangling.map((via) => `the role of ${via} is not among the objects`));
  missing.push(...namespaceOrderProblems(components, rbac.objects));

  const needed = new Set(required.map(permissionKey));
  const granted = expandHeldRules(held.rules);
  const extra = granted.permissions.filter((p) => !needed.has(permissionKey(p))).map(formatPermission);
  extra.push(...granted.unbounded);
  extra.push(...held.sharedBindings.map((b) => `${b} also binds other subjects`));
  extra.push(...unboundRoles(rbac.objects, held.boundRoles));
  return { missing: sortUnique(missing), extra: sortUnique(extra) };
}

/**
 * Every permission the applier holds through `objects`, expanded to tuples (sorted). Rules with a
 * wildcard or non-resource URLs cannot be expanded and are reported in `unbounded` instead.
 */
export function listGrantedPermissions(
  objects: readonly KubeObject[],
  options: ApplierRbacOptions,
): { permissions: Permission[]; unbounded: string[] } {
  return expandHeldRules(listHeldRules(objects, resolveApplierOptions(options).serviceAccount).rules);
}

/** True when the applier, holding `objects`, is allowed the request `permission`. */
export function isApplierAllowed(
  objects: readonly KubeObject[],
  options: ApplierRbacOptions,
  permission: Permission,
): boolean {
  return isHeldAllowed(listHeldRules(objects, resolveApplierOptions(options).serviceAccount).rules, permission);
}

function expandHeldRules(held: readonly HeldRule[]): { permissions: Permission[]; unbounded: string[] } {
  const permissions: Permission[] = [];
  const unbounded: string[] = [];
  for (const { namespace, rule, via } of held) {
    const groups = rule.apiGroups ?? [];
    const resources = rule.resources ?? [];
    if ((rule.nonResourceURLs ?? []).length > 0)
      unbounded.push(`non-resource URLs ${(rule.nonResourceURLs ?? []).join(', ')} via ${via}`);
    if ([...groups, ...resources, ...rule.verbs].includes('*')) {
      unbounded.push(
        `wildcard rule (apiGroups ${groups.join(',')}; resources ${resources.join(',')}; verbs ${rule.verbs.join(',')}) via ${via}`,
      );
      continue;
    }
    const names: (string | null)[] = (rule.resourceNames ?? []).length > 0 ? (rule.resourceNames ?? []) : [null];
    for (const group of groups)
      for (const resource of resources)
        for (const verb of rule.verbs)
          for (const name of names) permissions.push({ namespace, group, resource, verb, name });
  }
  return { permissions: uniquePermissions(permissions), unbounded };
}

/**
 * A Role or RoleBinding in a namespace the render creates can only be applied after that
 * namespace exists, so the objects must create it first.
 */
function namespaceOrderProblems(components: readonly RbacComponent[], objects: readonly KubeObject[]): string[] {
  const created = new Set(
    components.flatMap((c) => c.objects.filter((o) => o.apiVersion === 'v1' && o.kind === 'Namespace').map(nameOf)),
  );
  const available = new Set<string>();
  const problems: string[] = [];
  for (const o of objects) {
    if (o.apiVersion === 'v1' && o.kind === 'Namespace') available.add(nameOf(o));
    const ns = namespaceOf(o);
    if ((o.kind === 'Role' || o.kind === 'RoleBinding') && created.has(ns) && !available.has(ns)) {
      problems.push(
        `Namespace ${ns} must precede ${o.kind}/${ns}/${nameOf(o)} (the render creates ${ns}; the role is applied before it)`,
      );
    }
  }
  return problems;
}

function unboundRoles(objects: readonly KubeObject[], boundRoles: readonly string[]): string[] {
  const bound = new Set(boundRoles);
  return objects
    .filter((o) => o.apiVersion === 'rbac.authorization.k8s.io/v1' && (o.kind === 'Role' || o.kind === 'ClusterRole'))
    .map((o) => (o.kind === 'Role' ? `Role/${namespaceOf(o)}/${nameOf(o)}` : `ClusterRole/${nameOf(o)}`))
    .filter((id) => !bound.has(id))
    .map((id) => `${id} is bound to no binding of the applier`);
}

function sortUnique(list: readonly string[]): string[] {
  return [...new Set(list)].sort(compareText);
}
