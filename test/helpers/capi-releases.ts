/**
 * The kubeadm-flavoured Cluster API release (core, kubeadm bootstrap, kubeadm control plane) as
 * rendered components, loaded from the real artifacts in test/fixtures/repository.
 */
import type { KubeObject } from 'capi-render';
import { fixtureObjects } from './fixtures.js';

/** Component folder → asset file name (without `.yaml.gz`), as clusterctl names them. */
export const KUBEADM_ASSETS = {
  'cluster-api': 'core-components',
  'bootstrap-kubeadm': 'bootstrap-components',
  'control-plane-kubeadm': 'control-plane-components',
} as const;

/** Versions with all three artifacts in the fixtures. */
export type KubeadmVersion = 'v1.8.0' | 'v1.10.4' | 'v1.11.0' | 'v1.12.0';

/** The objects of each component of one release, `${VAR:=default}` resolved to the default. */
export function loadKubeadmRelease(version: KubeadmVersion): Record<keyof typeof KUBEADM_ASSETS, KubeObject[]> {
  const load = (component: keyof typeof KUBEADM_ASSETS): KubeObject[] =>
    fixtureObjects(`repository/${component}/${version}/${KUBEADM_ASSETS[component]}.yaml.gz`);
  return {
    'cluster-api': load('cluster-api'),
    'bootstrap-kubeadm': load('bootstrap-kubeadm'),
    'control-plane-kubeadm': load('control-plane-kubeadm'),
  };
}
