/**
 * The behaviour capi-render reproduces, chosen in capi-render.yaml (`emulate:`): clusterctl v1.14, or
 * cluster-api-operator v0.28, which runs clusterctl's library at v1.12.10 (its go.mod). Each fact
 * below is one place where the two differ, with the upstream change it comes from; everything the
 * two share (the v1beta2 contract, metadata.yaml rules, the 3-minor skip rule, the operator's
 * ProviderSpec semantics) is not a setting. Pure data, imported by every stage that differs.
 */

/** The values `emulate:` accepts. */
export const BASELINE_IDS = ['clusterctl-v1.14', 'operator-v0.28'] as const;

export type BaselineId = (typeof BASELINE_IDS)[number];

/** The newest clusterctl: what a repository without `emulate:` reproduces. */
export const DEFAULT_BASELINE: BaselineId = 'clusterctl-v1.14';

export interface Baseline {
  id: BaselineId;
  /** For messages and the lock: `clusterctl v1.14.0`, `cluster-api-operator v0.28.0 (clusterctl v1.12.10)`. */
  title: string;
  /** The clusterctl code that runs: the tag whose built-in provider list is embedded. */
  clusterctl: 'v1.14.0' | 'v1.12.10';
  /** The operator release, when the operator is emulated. */
  operator?: 'v0.28.0';
  /** cmd/clusterctl/client/config/cert_manager_client.go CertManagerDefaultVersion of that clusterctl. */
  certManagerDefaultVersion: string;
  /**
   * The `controller-gen.kubebuilder.io/version` annotation of clusterctl's inventory CRD
   * (cmd/clusterctl/config/manifest/clusterctl-api.yaml; the only line that differs between the tags).
   */
  inventoryCrdGenerator: string;
  /** `images.<key>.name` renames an image (cluster-api #13014, v1.13); clusterctl v1.12 drops the field. */
  imageNameOverride: boolean;
  /** `cert-manager.externallyProvisioned` exists (cluster-api #13739, v1.14). */
  certManagerExternallyProvisioned: boolean;
}

const BASELINES: Readonly<Record<BaselineId, Baseline>> = Object.freeze({
  'clusterctl-v1.14': Object.freeze({
    id: 'clusterctl-v1.14',
    title: 'clusterctl v1.14.0',
    clusterctl: 'v1.14.0',
    certManagerDefaultVersion: 'v1.21.1',
    inventoryCrdGenerator: 'v0.21.0',
    imageNameOverride: true,
    certManagerExternallyProvisioned: true,
  }),
  'operator-v0.28': Object.freeze({
    id: 'operator-v0.28',
    title: 'cluster-api-operator v0.28.0 (clusterctl v1.12.10)',
    clusterctl: 'v1.12.10',
    operator: 'v0.28.0',
    certManagerDefaultVersion: 'v1.20.3',
    inventoryCrdGenerator: 'v0.19.0',
    imageNameOverride: false,
    certManagerExternallyProvisioned: false,
  }),
});

/** The facts of baseline `id`; undefined (a missing setting) is the default. */
export function baselineOf(id: BaselineId | undefined): Baseline {
  return BASELINES[id ?? DEFAULT_BASELINE];
}

/** True for a value `emulate:` accepts. */
export function isBaselineId(value: unknown): value is BaselineId {
  return typeof value === 'string' && (BASELINE_IDS as readonly string[]).includes(value);
}
