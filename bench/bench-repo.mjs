/**
 * The repository every bench case builds from: capi-render.yaml reading the release fixtures, and the
 * four providers (cluster-api core, kubeadm bootstrap and control plane, CAPD) at v1.12.0 with
 * cert-manager v1.19.4. The overlays are the caller's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Writes the configuration and the providers of a bench repository into `dir`. */
export function writeBenchProviders(dir, fixtures) {
  mkdirSync(path.join(dir, 'providers'), { recursive: true });
  writeFileSync(
    path.join(dir, 'capi-render.yaml'),
    `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\nrepositories:\n  - path: ${fixtures}\n`,
  );
  const cr = (kind, n, ns) =>
    `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: ${kind}\nmetadata:\n  name: ${n}\n  namespace: ${ns}\nspec:\n  version: v1.12.0\n`;
  writeFileSync(
    path.join(dir, 'providers/providers.yaml'),
    [
      cr('CoreProvider', 'cluster-api', 'capi-system'),
      cr('BootstrapProvider', 'kubeadm', 'capi-kubeadm-bootstrap-system'),
      cr('ControlPlaneProvider', 'kubeadm', 'capi-kubeadm-control-plane-system'),
      cr('InfrastructureProvider', 'docker', 'capd-system'),
    ].join('---\n'),
  );
}
