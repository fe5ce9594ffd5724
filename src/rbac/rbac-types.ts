/**
 * Plain-data types of the RBAC computations: the applier's options and result, the permission
 * tuples the computations reason about, and the per-provider grant summary. No logic here.
 */
import type { KubeObject } from '../manifest/object.js';

/** The objects of one rendered component (a deployable folder: `cluster-api`, `cert-manager`, …). */
export interface RbacComponent {
  name: string;
  objects: readonly KubeObject[];
}

/** A ServiceAccount that applies the rendered output. */
export interface ServiceAccountRef {
  name: string;
  namespace: string;
}

/**
 * Who applies the output. `argocd` is Argo CD's `argocd-application-controller` in `argocd`;
 * `flux` is Flux's `kustomize-controller` in `flux-system` (the defaults of both projects' installs).
 * Use an explicit ServiceAccount for Argo CD's sync impersonation or Flux's `spec.serviceAccountName`.
 */
export type ApplierIdentity = 'argocd' | 'flux' | { serviceAccount: ServiceAccountRef };

export interface ApplierRbacOptions {
  applier: ApplierIdentity;
  /** The applier deletes objects that leave the render (Argo CD prune, Flux garbage collection). Default: true. */
  prune?: boolean;
  /** The applier uses server-side apply (Flux always does; Argo CD with `ServerSideApply=true`). Default: true. */
  serverSideApply?: boolean;
  /**
   * Grant cluster-wide list+watch on every rendered kind, for appliers that keep a watch cache of the
   * cluster (Argo CD). Default: true for `argocd` and for an explicit ServiceAccount (the safe choice
   * when the applier is unknown), false for `flux` (it reads each object by name).
   */
  watch?: boolean;
  /**
   * The applier health-checks what it applied (Flux `wait: true`, which capi-render's Kustomizations
   * set): list+watch on every rendered kind where the objects are (kstatus' caching reader lists
   * each kind per namespace), and on the ReplicaSets and Pods a Deployment's (Pods a StatefulSet's)
   * status is computed from. Default: true for `flux`, false otherwise (Argo CD computes health
   * from its watch cache, covered by `watch`).
   */
  healthChecks?: boolean;
  /** Name of the emitted ClusterRole, Roles and bindings. Default: `capi-render-applier`. */
  roleName?: string;
  /**
   * Objects the cluster holds from the previous render that this render drops. The applier must be
   * able to read and delete them to prune them; the role computed from the new render alone names
   * only the new objects. Default: none.
   */
  retired?: readonly RbacComponent[];
}

/**
 * One permission an API request needs, in the terms the RBAC authorizer checks: the request's
 * namespace ('' for a cluster-scoped object or a request across all namespaces), API group,
 * resource, verb and object name (null when the request carries no name: a POST create, a list, a
 * watch).
 */
export interface Permission {
  namespace: string;
  group: string;
  resource: string;
  verb: string;
  name: string | null;
}

/** An rbac.authorization.k8s.io/v1 PolicyRule as plain data. */
export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

/** The least-privilege RBAC of a GitOps applier for a render. */
export interface ApplierRbac {
  /**
   * In apply order: a copy of each Namespace the render creates and binds into (so the RoleBindings
   * can be created before the first sync), the ClusterRole and ClusterRoleBinding, then a Role and
   * RoleBinding per namespace.
   */
  objects: KubeObject[];
  /** What each provider's own RBAC grants its controllers, in component order. */
  grants: ProviderGrant[];
  /** Facts a reviewer must know about this output (sorted). */
  notes: string[];
}

/**
 * One (group, resource) line of a grant: verbs merged, names as the rule restricts them.
 * `resource` may be `resource/subresource`, `*`, or a non-resource URL (starting with `/`, with group '').
 */
export interface RuleSummary {
  group: string;
  resource: string;
  /** Sorted. */
  verbs: string[];
  /** Sorted; empty means every name. */
  resourceNames: string[];
}

/** What one component's RBAC objects grant the subjects they bind. */
export interface ProviderGrant {
  component: string;
  /** Bound subjects, e.g. `ServiceAccount capi-system/capi-manager`, sorted. */
  subjects: string[];
  /** Granted in every namespace and on cluster-scoped resources (ClusterRoleBindings). */
  clusterScoped: RuleSummary[];
  /** Granted in one namespace (RoleBindings), sorted by namespace. */
  namespaced: { namespace: string; rules: RuleSummary[] }[];
  /** Grants that amount to, or lead to, more privilege than they read as (wildcards, secrets, escalate …). */
  escalations: string[];
}

/** The outcome of {@link verifyApplierRbac}: both lists sorted, both empty when the role is exact. */
export interface RbacVerification {
  /** Permissions the applier needs that the role objects do not grant, and ordering problems. */
  missing: string[];
  /** What the role objects grant beyond what the applier needs. */
  extra: string[];
}
