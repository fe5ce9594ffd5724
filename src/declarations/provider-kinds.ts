/**
 * The seven cluster-api-operator provider kinds and the names each tool uses for their type.
 * The operator's `GetType()` string, clusterctl's provider type and manifest-label prefix, and the
 * default release asset name differ subtly (note `runtimeextension` vs `runtime-extension-` vs
 * `runtime-extensions-components.yaml`), so they all live in this one table.
 */

export const OPERATOR_API_VERSION = 'operator.cluster.x-k8s.io/v1alpha2';
export const OPERATOR_GROUP = 'operator.cluster.x-k8s.io';

export type ProviderKind =
  | 'CoreProvider'
  | 'BootstrapProvider'
  | 'ControlPlaneProvider'
  | 'InfrastructureProvider'
  | 'IPAMProvider'
  | 'RuntimeExtensionProvider'
  | 'AddonProvider';

export interface ProviderKindInfo {
  kind: ProviderKind;
  /** The operator's `GetType()`: ConfigMap labels and OCI file names use it. */
  operatorType: string;
  /** clusterctl's `clusterctlv1.ProviderType`, written into the inventory object's `type`. */
  clusterctlType: ProviderKind;
  /** Prefix of the manifest label (`cluster.x-k8s.io/provider` value, component folder name). */
  labelPrefix: string;
  /** Default components asset name of a release. */
  componentsAsset: string;
  /** clusterctl's install order (`ProviderType.Order()`). */
  order: number;
  /** The CRD file of this kind under schemas/. */
  schemaFile: string;
}

const KINDS: ProviderKindInfo[] = [
  info('CoreProvider', 'core', '', 'core-components.yaml', 0, 'coreproviders'),
  info('BootstrapProvider', 'bootstrap', 'bootstrap-', 'bootstrap-components.yaml', 1, 'bootstrapproviders'),
  info(
    'ControlPlaneProvider',
    'control-plane',
    'control-plane-',
    'control-plane-components.yaml',
    2,
    'controlplaneproviders',
  ),
  info(
    'InfrastructureProvider',
    'infrastructure',
    'infrastructure-',
    'infrastructure-components.yaml',
    3,
    'infrastructureproviders',
  ),
  info('IPAMProvider', 'ipam', 'ipam-', 'ipam-components.yaml', 4, 'ipamproviders'),
  info(
    'RuntimeExtensionProvider',
    'runtimeextension',
    'runtime-extension-',
    'runtime-extensions-components.yaml',
    5,
    'runtimeextensionproviders',
  ),
  info('AddonProvider', 'addon', 'addon-', 'addon-components.yaml', 6, 'addonproviders'),
];

function info(
  kind: ProviderKind,
  operatorType: string,
  labelPrefix: string,
  componentsAsset: string,
  order: number,
  plural: string,
): ProviderKindInfo {
  return {
    kind,
    operatorType,
    clusterctlType: kind,
    labelPrefix,
    componentsAsset,
    order,
    schemaFile: `operator.cluster.x-k8s.io_${plural}.yaml`,
  };
}

const BY_KIND = new Map(KINDS.map((k) => [k.kind, k]));

export const PROVIDER_KINDS: readonly ProviderKindInfo[] = KINDS;

export function isProviderKind(kind: unknown): kind is ProviderKind {
  return typeof kind === 'string' && BY_KIND.has(kind as ProviderKind);
}

export function kindInfo(kind: ProviderKind): ProviderKindInfo {
  const found = BY_KIND.get(kind);
  if (!found) throw new Error(`unknown provider kind ${kind}`);
  return found;
}

/** clusterctl's manifest label: `cluster-api`, `bootstrap-kubeadm`, `infrastructure-docker`, … */
export function manifestLabel(kind: ProviderKind, name: string): string {
  return kindInfo(kind).labelPrefix + name;
}
