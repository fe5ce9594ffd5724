/**
 * The least-privilege RBAC a GitOps applier needs for a render: a ClusterRole for cluster-scoped
 * requests and a Role per namespace for namespaced ones, each bound to the applier's ServiceAccount.
 *
 * Design notes: docs/internals.md "rbac/compute-applier-rbac.ts".
 */
import { SpecError, error } from '../errors.js';
import { nameOf, namespaceOf, type JsonObject, type KubeObject } from '../manifest/object.js';
import { resolveApplierOptions, type ResolvedApplier } from './applier-options.js';
import { collectApplierNotes } from './applier-notes.js';
import { listRequiredPermissions, RBAC_GROUP } from './applier-requirements.js';
import { compareText } from './permission.js';
import { buildPolicyRules } from './policy-rules.js';
import { summarizeProviderGrants } from './provider-grants.js';
import type { ApplierRbac, ApplierRbacOptions, Permission, PolicyRule, RbacComponent } from './rbac-types.js';

const RBAC_V1 = `${RBAC_GROUP}/v1`;
const MANAGED_BY = { 'app.kubernetes.io/managed-by': 'capi-render' };

/**
 * Computes the applier's role for `components` (see the module doc for the layout), the grants of
 * every provider's own RBAC, and notes for the reviewer. Pure and deterministic: rules are merged
 * where identical and sorted; objects come in apply order. Throws a SpecError (code `rbac`) for an
 * object of unknown kind, without a name or namespace, with a bad roleRef, or one that the emitted
 * objects' names would overwrite.
 */
export function computeApplierRbac(components: readonly RbacComponent[], options: ApplierRbacOptions): ApplierRbac {
  const applier = resolveApplierOptions(options);
  const required = listRequiredPermissions(components, applier, options.retired ?? []);
  const byNamespace = new Map<string, Permission[]>();
  for (const p of required) {
    const list = byNamespace.get(p.namespace) ?? [];
    list.push(p);
    byNamespace.set(p.namespace, list);
  }
  const namespaces = [...byNamespace.keys()].filter((n) => n !== '').sort(compareText);
  assertNoCollision(components, applier, namespaces);

  const rendered = new Set(
    components.flatMap((c) => c.objects.filter((o) => o.kind === 'Namespace' && o.apiVersion === 'v1').map(nameOf)),
  );
  const objects: KubeObject[] = namespaces
    .filter((n) => rendered.has(n))
    .map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  const cluster = byNamespace.get('') ?? [];
  if (cluster.length > 0) objects.push(...roleAndBinding('ClusterRole', '', buildPolicyRules(cluster), applier));
  for (const namespace of namespaces)
    objects.push(...roleAndBinding('Role', namespace, buildPolicyRules(byNamespace.get(namespace) ?? []), applier));

  return { objects, grants: summarizeProviderGrants(components), notes: collectApplierNotes(components, applier) };
}

function roleAndBinding(
  kind: 'ClusterRole' | 'Role',
  namespace: string,
  rules: PolicyRule[],
  applier: ResolvedApplier,
): KubeObject[] {
  const metadata = (): JsonObject =>
    namespace
      ? { name: applier.roleName, namespace, labels: { ...MANAGED_BY } }
      : { name: applier.roleName, labels: { ...MANAGED_BY } };
  return [
    { apiVersion: RBAC_V1, kind, metadata: metadata(), rules: rules.map(ruleObject) },
    {
      apiVersion: RBAC_V1,
      kind: kind === 'Role' ? 'RoleBinding' : 'ClusterRoleBinding',
      metadata: metadata(),
      roleRef: { apiGroup: RBAC_GROUP, kind, name: applier.roleName },
      subjects: [
        { kind: 'ServiceAccount', name: applier.serviceAccount.name, namespace: applier.serviceAccount.namespace },
      ],
    },
  ];
}

function ruleObject(rule: PolicyRule): JsonObject {
  const out: JsonObject = {};
  if (rule.apiGroups !== undefined) out.apiGroups = [...rule.apiGroups];
  if (rule.resources !== undefined) out.resources = [...rule.resources];
  if (rule.resourceNames !== undefined) out.resourceNames = [...rule.resourceNames];
  if (rule.nonResourceURLs !== undefined) out.nonResourceURLs = [...rule.nonResourceURLs];
  out.verbs = [...rule.verbs];
  return out;
}

/** The emitted role objects must not replace a rendered RBAC object of the same kind and name. */
function assertNoCollision(
  components: readonly RbacComponent[],
  applier: ResolvedApplier,
  namespaces: readonly string[],
): void {
  const ours = new Set(
    ['ClusterRole/', 'ClusterRoleBinding/', ...namespaces.flatMap((n) => [`Role/${n}`, `RoleBinding/${n}`])].map(
      (k) => `${k}/${applier.roleName}`,
    ),
  );
  const clashes = components.flatMap((c) =>
    c.objects.filter(
      (o) =>
        o.apiVersion === RBAC_V1 &&
        ours.has(`${o.kind}/${o.kind.startsWith('Cluster') ? '' : namespaceOf(o)}/${nameOf(o)}`),
    ),
  );
  if (clashes.length === 0) return;
  throw new SpecError(
    clashes.map((o) =>
      error('rbac', `the applier's ${o.kind} would overwrite the rendered ${o.kind} named ${applier.roleName}`, {
        object: namespaceOf(o) ? `${o.kind}/${namespaceOf(o)}/${nameOf(o)}` : `${o.kind}/${nameOf(o)}`,
        field: 'roleName',
        hint: 'choose another roleName',
      }),
    ),
  );
}
