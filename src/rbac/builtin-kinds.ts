/**
 * REST resource (plural) and scope of the kinds an install can contain without shipping their CRD:
 * the Kubernetes built-in API groups, plus cert-manager's, whose CRDs are a prerequisite of every
 * provider but are often installed outside capi-render (clusterctl's "bring your own cert-manager",
 * `externallyProvisioned`), and the External Secrets Operator's ExternalSecret, which
 * `secrets.mode: external-secrets` renders. A CRD in the render always takes precedence over this table.
 *
 * Keyed by API group and kind: the version does not matter to RBAC, and a kind in the wrong group
 * (`apps/v1 Service`) must not be mistaken for the built-in one.
 */

/** Where a kind lives in the API: its REST resource and whether objects of it are namespaced. */
export interface KindResource {
  group: string;
  resource: string;
  namespaced: boolean;
}

type Entry = [kind: string, resource: string, namespaced: boolean];

const GROUPS: Record<string, Entry[]> = {
  '': [
    ['ConfigMap', 'configmaps', true],
    ['Endpoints', 'endpoints', true],
    ['LimitRange', 'limitranges', true],
    ['Namespace', 'namespaces', false],
    ['PersistentVolume', 'persistentvolumes', false],
    ['PersistentVolumeClaim', 'persistentvolumeclaims', true],
    ['Pod', 'pods', true],
    ['ResourceQuota', 'resourcequotas', true],
    ['Secret', 'secrets', true],
    ['Service', 'services', true],
    ['ServiceAccount', 'serviceaccounts', true],
  ],
  admissionregistration: [
    ['MutatingAdmissionPolicy', 'mutatingadmissionpolicies', false],
    ['MutatingAdmissionPolicyBinding', 'mutatingadmissionpolicybindings', false],
    ['MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false],
    ['ValidatingAdmissionPolicy', 'validatingadmissionpolicies', false],
    ['ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings', false],
    ['ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false],
  ],
  apiextensions: [['CustomResourceDefinition', 'customresourcedefinitions', false]],
  apiregistration: [['APIService', 'apiservices', false]],
  apps: [
    ['DaemonSet', 'daemonsets', true],
    ['Deployment', 'deployments', true],
    ['ReplicaSet', 'replicasets', true],
    ['StatefulSet', 'statefulsets', true],
  ],
  autoscaling: [['HorizontalPodAutoscaler', 'horizontalpodautoscalers', true]],
  batch: [
    ['CronJob', 'cronjobs', true],
    ['Job', 'jobs', true],
  ],
  coordination: [['Lease', 'leases', true]],
  flowcontrol: [
    ['FlowSchema', 'flowschemas', false],
    ['PriorityLevelConfiguration', 'prioritylevelconfigurations', false],
  ],
  networking: [
    ['Ingress', 'ingresses', true],
    ['IngressClass', 'ingressclasses', false],
    ['NetworkPolicy', 'networkpolicies', true],
  ],
  node: [['RuntimeClass', 'runtimeclasses', false]],
  policy: [['PodDisruptionBudget', 'poddisruptionbudgets', true]],
  rbac: [
    ['ClusterRole', 'clusterroles', false],
    ['ClusterRoleBinding', 'clusterrolebindings', false],
    ['Role', 'roles', true],
    ['RoleBinding', 'rolebindings', true],
  ],
  scheduling: [['PriorityClass', 'priorityclasses', false]],
  storage: [
    ['CSIDriver', 'csidrivers', false],
    ['StorageClass', 'storageclasses', false],
  ],
  // cert-manager's stable API (cert-manager.io/v1): every provider renders an Issuer and a
  // Certificate, and the cert-manager CRDs may well not be part of this render.
  'cert-manager': [
    ['Certificate', 'certificates', true],
    ['CertificateRequest', 'certificaterequests', true],
    ['ClusterIssuer', 'clusterissuers', false],
    ['Issuer', 'issuers', true],
  ],
  // The ExternalSecret that secrets.mode external-secrets renders in place of a Secret: its CRD is
  // the External Secrets Operator's, installed outside capi-render.
  'external-secrets.io': [['ExternalSecret', 'externalsecrets', true]],
};

/** Short group keys above → full API group names; '' (core) and the `.k8s.io`/`.io` groups. */
const FULL_GROUP: Record<string, string> = {
  '': '',
  admissionregistration: 'admissionregistration.k8s.io',
  apiextensions: 'apiextensions.k8s.io',
  apiregistration: 'apiregistration.k8s.io',
  apps: 'apps',
  autoscaling: 'autoscaling',
  batch: 'batch',
  coordination: 'coordination.k8s.io',
  flowcontrol: 'flowcontrol.apiserver.k8s.io',
  networking: 'networking.k8s.io',
  node: 'node.k8s.io',
  policy: 'policy',
  rbac: 'rbac.authorization.k8s.io',
  scheduling: 'scheduling.k8s.io',
  storage: 'storage.k8s.io',
  'cert-manager': 'cert-manager.io',
};

const TABLE: ReadonlyMap<string, KindResource> = new Map(
  Object.entries(GROUPS).flatMap(([short, entries]) => {
    const group = FULL_GROUP[short] ?? short;
    return entries.map(([kind, resource, namespaced]): [string, KindResource] => [
      kindKey(group, kind),
      { group, resource, namespaced },
    ]);
  }),
);

/** The map key of a kind: `group/Kind` (`/Namespace` for the core group). */
export function kindKey(group: string, kind: string): string {
  return `${group}/${kind}`;
}

/** The built-in resource of `kind` in `group`, or undefined when the kind is not built in. */
export function lookupBuiltinKind(group: string, kind: string): KindResource | undefined {
  return TABLE.get(kindKey(group, kind));
}
