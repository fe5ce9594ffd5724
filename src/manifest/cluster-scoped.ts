/**
 * Which kinds are cluster-scoped. clusterctl decides this from a fixed list, not from API discovery
 * (cmd/clusterctl/internal/util/objs.go), and namespace fix-ups must match it exactly. Kinds outside
 * the list that are cluster-scoped in reality (ClusterIssuer, APIService, …) would wrongly get a
 * namespace from clusterctl; capi-render knows them too so it can keep them cluster-scoped and warn.
 */

const CLUSTERCTL_CLUSTER_SCOPED = new Set([
  'Namespace',
  'Node',
  'PersistentVolume',
  'PodSecurityPolicy',
  'CertificateSigningRequest',
  'ClusterRoleBinding',
  'ClusterRole',
  'VolumeAttachment',
  'StorageClass',
  'CSIDriver',
  'CSINode',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'CustomResourceDefinition',
  'PriorityClass',
  'RuntimeClass',
]);

/** Cluster-scoped kinds clusterctl's list misses but which real artifacts ship. */
const ALSO_CLUSTER_SCOPED = new Set([
  'APIService',
  'ClusterIssuer',
  'IngressClass',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
  'FlowSchema',
  'PriorityLevelConfiguration',
]);

/** True when clusterctl's fix-up treats the kind as cluster-scoped. */
export function isClusterctlClusterScoped(kind: string): boolean {
  return CLUSTERCTL_CLUSTER_SCOPED.has(kind);
}

/** True when the kind is known to be cluster-scoped (clusterctl's list plus the extra ones). */
export function isClusterScoped(kind: string): boolean {
  return CLUSTERCTL_CLUSTER_SCOPED.has(kind) || ALSO_CLUSTER_SCOPED.has(kind);
}
