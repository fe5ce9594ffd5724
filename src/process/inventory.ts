/**
 * clusterctl's inventory: the `providers.clusterctl.cluster.x-k8s.io` CRD and one `Provider` object
 * per installed provider (components.go InventoryObject, cluster/inventory.go). The operator never
 * writes them, which breaks `clusterctl move` and `upgrade plan` on operator-managed clusters
 * (cluster-api-operator#311); capi-render renders them so clusterctl keeps working.
 */
import { readFileSync } from 'node:fs';
import jsYaml from 'js-yaml';
import { setIn, type KubeObject } from '../manifest/object.js';
import { kindInfo, manifestLabel, type ProviderKind } from '../declarations/provider-kinds.js';
import { CLUSTERCTL_CORE_LABEL, commonLabels } from './common-labels.js';
import { packagePath } from '../package-files.js';

/**
 * The inventory CRD, labelled `clusterctl.cluster.x-k8s.io/core: inventory` as clusterctl creates it.
 * `generator` is the controller-gen version the emulated clusterctl's copy names: the file is
 * v1.14.0's, and v1.12.10's differs from it in that annotation only (v0.19.0 against v0.21.0).
 */
export function inventoryCrd(generator?: string): KubeObject {
  const crd = jsYaml.load(readFileSync(packagePath('schemas', 'clusterctl-api.yaml'), 'utf8'), {
    schema: jsYaml.CORE_SCHEMA,
  }) as KubeObject;
  const labelled = setIn(crd, ['metadata', 'labels', CLUSTERCTL_CORE_LABEL], 'inventory');
  return generator === undefined
    ? labelled
    : setIn(labelled, ['metadata', 'annotations', CONTROLLER_GEN_ANNOTATION], generator);
}

const CONTROLLER_GEN_ANNOTATION = 'controller-gen.kubebuilder.io/version';

/** The inventory `Provider` object clusterctl writes for an installed provider. */
export function inventoryObject(kind: ProviderKind, name: string, namespace: string, version: string): KubeObject {
  const label = manifestLabel(kind, name);
  return {
    apiVersion: 'clusterctl.cluster.x-k8s.io/v1alpha3',
    kind: 'Provider',
    metadata: {
      name: label,
      namespace,
      labels: { ...commonLabels(label), [CLUSTERCTL_CORE_LABEL]: 'inventory' },
    },
    providerName: name,
    type: kindInfo(kind).clusterctlType,
    version,
  };
}
