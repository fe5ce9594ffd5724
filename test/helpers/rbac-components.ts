/**
 * The v1.12.0 example install as rendered components, for the RBAC tests: core, kubeadm bootstrap,
 * kubeadm control plane and CAPD from the real fixtures, variables at their defaults, each
 * namespaced object placed in its component's Namespace when it has none, the clusterctl inventory
 * CRD in the core component and one inventory Provider per provider. Deep-frozen.
 */
import { isClusterScoped } from '../../src/manifest/cluster-scoped.js';
import type { KubeObject, ProviderKind, RbacComponent } from 'capi-render';
import { nameOf, namespaceOf, setIn } from '../../src/manifest/object.js';
import { inventoryCrd, inventoryObject } from '../../src/process/inventory.js';
import { deepFreeze } from './fixtures.js';
import { fixtureObjects } from './fixtures.js';

const PROVIDERS: [component: string, kind: ProviderKind, provider: string, file: string][] = [
  ['cluster-api', 'CoreProvider', 'cluster-api', 'repository/cluster-api/v1.12.0/core-components.yaml.gz'],
  [
    'bootstrap-kubeadm',
    'BootstrapProvider',
    'kubeadm',
    'repository/bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml.gz',
  ],
  [
    'control-plane-kubeadm',
    'ControlPlaneProvider',
    'kubeadm',
    'repository/control-plane-kubeadm/v1.12.0/control-plane-components.yaml.gz',
  ],
  [
    'infrastructure-docker',
    'InfrastructureProvider',
    'docker',
    'repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml.gz',
  ],
];

/** The four v1.12.0 components, in install order. */
export function loadV112Components(): RbacComponent[] {
  return PROVIDERS.map(([component, kind, provider, file]) => {
    const objects = fixtureObjects(file);
    const namespace = nameOf(objects.find((o) => o.kind === 'Namespace')!);
    const placed: KubeObject[] = objects.map((o) =>
      isClusterScoped(o.kind) || namespaceOf(o) !== '' ? o : setIn(o, ['metadata', 'namespace'], namespace),
    );
    if (kind === 'CoreProvider') placed.push(inventoryCrd());
    placed.push(inventoryObject(kind, provider, namespace, 'v1.12.0'));
    return deepFreeze({ name: component, objects: placed });
  });
}
