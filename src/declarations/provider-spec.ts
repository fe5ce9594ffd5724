/**
 * Types of the cluster-api-operator's provider CRs (operator.cluster.x-k8s.io/v1alpha2), as read
 * from providers/. Field names follow the operator's `ProviderSpec` exactly; capi-render adds no
 * fields to the CRs (its extensions, such as version ranges, are values of existing fields).
 */
import type { JsonObject } from '../manifest/object.js';
import type { ProviderKind } from './provider-kinds.js';

export interface SecretReference {
  name: string;
  namespace?: string;
}

export interface ConfigMapReference {
  name: string;
  namespace?: string;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }[];
}

export interface FetchConfiguration {
  url?: string;
  selector?: LabelSelector;
  oci?: string;
}

export interface ContainerSpec {
  name: string;
  imageUrl?: string;
  args?: Record<string, string>;
  env?: JsonObject[];
  resources?: JsonObject;
  command?: string[];
}

export interface DeploymentSpec {
  replicas?: number;
  nodeSelector?: Record<string, string>;
  tolerations?: JsonObject[];
  affinity?: JsonObject;
  containers?: ContainerSpec[];
  serviceAccountName?: string;
  imagePullSecrets?: JsonObject[];
}

export interface LeaderElectionConfiguration {
  leaderElect?: boolean;
  leaseDuration?: string;
  renewDeadline?: string;
  retryPeriod?: string;
  resourceLock?: string;
  resourceName?: string;
  resourceNamespace?: string;
}

export interface ManagerSpec {
  syncPeriod?: string;
  leaderElection?: LeaderElectionConfiguration;
  cacheNamespace?: string;
  gracefulShutDown?: string;
  controller?: { groupKindConcurrency?: Record<string, number>; cacheSyncTimeout?: number; recoverPanic?: boolean };
  metrics?: { bindAddress?: string; diagnosticsAddress?: string; insecureDiagnostics?: boolean };
  health?: { healthProbeBindAddress?: string; readinessEndpointName?: string; livenessEndpointName?: string };
  webhook?: { port?: number; host?: string; certDir?: string };
  profilerAddress?: string;
  maxConcurrentReconciles?: number;
  verbosity?: number;
  featureGates?: Record<string, boolean>;
  additionalArgs?: Record<string, string>;
}

export interface PatchTarget {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
}

export interface Patch {
  patch: string;
  target?: PatchTarget;
}

export interface AdditionalDeployment {
  manager?: ManagerSpec;
  deployment?: DeploymentSpec;
}

export interface ProviderSpecFields {
  version?: string;
  manager?: ManagerSpec;
  deployment?: DeploymentSpec;
  configSecret?: SecretReference;
  fetchConfig?: FetchConfiguration;
  additionalManifests?: ConfigMapReference;
  manifestPatches?: string[];
  patches?: Patch[];
  additionalDeployments?: Record<string, AdditionalDeployment>;
}

/** A provider CR after schema validation: kind, name, namespace and spec. */
export interface ProviderCR {
  kind: ProviderKind;
  name: string;
  namespace: string;
  spec: ProviderSpecFields;
  /** The input file and line the CR was declared at (for messages). */
  file: string;
  line: number;
}
