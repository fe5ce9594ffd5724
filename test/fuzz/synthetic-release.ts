/**
 * Small synthetic provider releases for the fuzz campaign: a clusterctl local repository layout
 * (`<root>/<label>/<version>/{<components asset>,metadata.yaml}`) whose components hold a few objects
 * of each shape the pipeline treats specially (Namespace, Deployment with images and args, RBAC, a
 * CRD, a ConfigMap and optionally a Secret), with `${VAR}`, `${VAR:=default}` and nested defaults.
 * Small on purpose: a whole-repository case builds several times in well under a second.
 */
import type { ProviderKind } from 'capi-render';
import { kindInfo, manifestLabel } from '../../src/declarations/provider-kinds.js';

/** What one synthetic release holds. */
export interface SyntheticRelease {
  kind: ProviderKind;
  name: string;
  version: string;
  /** Variables the components use without a default (a build needs them set, else it fails). */
  required: string[];
  /** Emit a Secret whose stringData takes `${<secretVariable>}`. */
  secretVariable?: string | undefined;
  /** Emit a small CRD (a cluster-scoped kind the namespace fix-up must leave alone). */
  crd: boolean;
  /** The contract the metadata.yaml states for the release's series. */
  contract: string;
}

/** `major.minor` of a `vX.Y.Z` version. */
function series(version: string): { major: number; minor: number } {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return { major, minor };
}

/** Variable-name part of a label: `infrastructure-alpha` → `INFRASTRUCTURE_ALPHA`. */
export function variableStem(label: string): string {
  return label.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/** The components text of one release. */
export function componentsText(r: SyntheticRelease): string {
  const label = manifestLabel(r.kind, r.name);
  const ns = `${label}-system`;
  const stem = variableStem(label);
  const labels = `    cluster.x-k8s.io/provider: ${label}\n`;
  const docs = [
    `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${ns}\n  labels:\n${labels}`,
    `apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: ${label}-manager\n  namespace: ${ns}\n`,
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: ${label}-manager-rolebinding\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: ${label}-manager-role\nsubjects:\n- kind: ServiceAccount\n  name: ${label}-manager\n  namespace: ${ns}\n`,
    `apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata:\n  name: ${label}-manager-role\nrules:\n- apiGroups: [""]\n  resources: [configmaps]\n  verbs: [get, list, watch]\n`,
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${label}-controller-manager\n  namespace: ${ns}\n  labels:\n${labels}spec:\n  replicas: 1\n  selector:\n    matchLabels:\n      control-plane: ${label}\n  template:\n    metadata:\n      labels:\n        control-plane: ${label}\n    spec:\n      serviceAccountName: ${label}-manager\n      containers:\n      - name: manager\n        image: registry.example.com/fuzz/${label}-controller:\${${stem}_TAG:=${r.version}}\n        args:\n        - --leader-elect\n        - --feature-gates=MachinePool=\${EXP_MACHINE_POOL:=false}\n        env:\n${r.required.map((v) => `        - name: ${v}\n          value: "\${${v}}"\n`).join('')}        - name: NESTED\n          value: "\${FZ_OUTER:=\${FZ_INNER:=inner-default}}"\n      - name: sidecar\n        image: quay.io/fuzz/sidecar:v0.1.0\n`,
    `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${label}-settings\n  namespace: ${ns}\ndata:\n  release: ${r.version}\n  level: "\${${stem}_LEVEL:=2}"\n`,
  ];
  if (r.crd) {
    // clusterctl wants CRD names <plural>.<group>; a group per provider keeps them apart.
    const plural = 'things';
    const group = `${label}.fuzz.example.com`;
    docs.push(
      `apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: ${plural}.${group}\n  labels:\n${labels}spec:\n  group: ${group}\n  names:\n    kind: Thing\n    listKind: ThingList\n    plural: ${plural}\n    singular: thing\n  scope: Namespaced\n  versions:\n  - name: v1beta1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n`,
    );
  }
  if (r.secretVariable) {
    docs.push(
      `apiVersion: v1\nkind: Secret\nmetadata:\n  name: ${label}-credentials\n  namespace: ${ns}\ntype: Opaque\nstringData:\n  token: "\${${r.secretVariable}}"\n`,
    );
  }
  return docs.join('---\n');
}

/** metadata.yaml covering the release's own series. */
export function metadataText(r: SyntheticRelease): string {
  const { major, minor } = series(r.version);
  return `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n- major: ${major}\n  minor: ${minor}\n  contract: ${r.contract}\n`;
}

/** The files of a release under `root` (repository-relative paths). */
export function releaseFiles(root: string, r: SyntheticRelease): Record<string, string> {
  const label = manifestLabel(r.kind, r.name);
  const dir = `${root}/${label}/${r.version}`;
  return {
    [`${dir}/${kindInfo(r.kind).componentsAsset}`]: componentsText(r),
    [`${dir}/metadata.yaml`]: metadataText(r),
  };
}

/** A small cert-manager release (Namespace, Deployment, a CRD) as `cert-manager/<version>/cert-manager.yaml`. */
export function certManagerFiles(root: string, version: string): Record<string, string> {
  const text = [
    'apiVersion: v1\nkind: Namespace\nmetadata:\n  name: cert-manager\n',
    'apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: certificates.cert-manager.io\nspec:\n  group: cert-manager.io\n  names:\n    kind: Certificate\n    listKind: CertificateList\n    plural: certificates\n    singular: certificate\n  scope: Namespaced\n  versions:\n  - name: v1\n    served: true\n    storage: true\n    schema:\n      openAPIV3Schema:\n        type: object\n        x-kubernetes-preserve-unknown-fields: true\n',
    `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: cert-manager\n  namespace: cert-manager\nspec:\n  replicas: 1\n  selector:\n    matchLabels:\n      app: cert-manager\n  template:\n    metadata:\n      labels:\n        app: cert-manager\n    spec:\n      containers:\n      - name: cert-manager-controller\n        image: quay.io/jetstack/cert-manager-controller:${version}\n`,
  ].join('---\n');
  return { [`${root}/cert-manager/${version}/cert-manager.yaml`]: text };
}
