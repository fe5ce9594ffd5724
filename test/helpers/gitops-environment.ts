/**
 * A RenderedEnvironment built from the real v1.12.0 artifacts (core, bootstrap-kubeadm,
 * control-plane-kubeadm, infrastructure-docker; optionally cert-manager v1.19.4) for the GitOps
 * stage tests. Variables take their `${NAME:=default}` defaults; objects get clusterctl's two
 * labels and lose `status`/`creationTimestamp: null` as the render pipeline does; everything is
 * deep-frozen so a mutation by the code under test throws.
 */
import type { KubeObject } from 'capi-render';
import { labelsOf, setIn } from '../../src/manifest/object.js';
import type { RenderedComponent, RenderedEnvironment } from '../../src/plan/output-plan.js';
import { cleanObjects } from '../../src/process/clean-objects.js';
import { deepFreeze } from './core-components.js';
import { CERT_MANAGER, CORE_COMPONENTS, DOCKER_COMPONENTS, fixtureObjects } from './fixtures.js';

export const BOOTSTRAP_COMPONENTS = 'repository/bootstrap-kubeadm/v1.12.0/bootstrap-components.yaml.gz';
export const CONTROL_PLANE_COMPONENTS = 'repository/control-plane-kubeadm/v1.12.0/control-plane-components.yaml.gz';

/** The provider components of the environment, in install order, with their fixture files. */
export const PROVIDER_FIXTURES: readonly { name: string; file: string }[] = [
  { name: 'cluster-api', file: CORE_COMPONENTS },
  { name: 'bootstrap-kubeadm', file: BOOTSTRAP_COMPONENTS },
  { name: 'control-plane-kubeadm', file: CONTROL_PLANE_COMPONENTS },
  { name: 'infrastructure-docker', file: DOCKER_COMPONENTS },
];

/** Objects of one fixture file as the render pipeline would hand them over (labelled, cleaned, frozen). */
export function componentObjects(file: string, providerLabel?: string): KubeObject[] {
  const loaded = fixtureObjects(file).map((object, document) => ({ object, origin: { source: file, document } }));
  return cleanObjects(loaded).map(({ object }) => {
    const labelled = providerLabel
      ? setIn(object, ['metadata', 'labels'], {
          ...labelsOf(object),
          'cluster.x-k8s.io/provider': providerLabel,
          'clusterctl.cluster.x-k8s.io': '',
        })
      : object;
    return deepFreeze(labelled);
  });
}

/** Builds the environment; `certManager` adds the cert-manager component first. */
export function fixtureEnvironment(name = 'mgmt', options: { certManager?: boolean } = {}): RenderedEnvironment {
  const components: RenderedComponent[] = PROVIDER_FIXTURES.map((p) => ({
    name: p.name,
    objects: componentObjects(p.file, p.name),
  }));
  if (options.certManager) components.unshift({ name: 'cert-manager', objects: componentObjects(CERT_MANAGER) });
  return { name, components };
}
