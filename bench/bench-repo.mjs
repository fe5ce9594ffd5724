/**
 * The repository every bench case builds from: capi-render.yaml reading the release fixtures, and the
 * four providers (cluster-api core, kubeadm bootstrap and control plane, CAPD) at v1.12.0 with
 * cert-manager v1.19.4. The overlays are the caller's.
 */
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';

/**
 * A copy of the fixture repository under `dest` with every `<file>.gz` stored as `<file>`: the
 * releases as their projects publish them, which is what kustomize reads in the bench too. The
 * fixtures are kept gzip-compressed only to keep the git repository small; a build reading them
 * would also time gunzip, which no user's local repository makes it do. Returns `dest`.
 */
export function plainReleases(fixtures, dest) {
  for (const entry of readdirSync(fixtures, { withFileTypes: true })) {
    const from = path.join(fixtures, entry.name);
    if (entry.isDirectory()) {
      plainReleases(from, path.join(dest, entry.name));
      continue;
    }
    mkdirSync(dest, { recursive: true });
    if (entry.name.endsWith('.gz'))
      writeFileSync(path.join(dest, entry.name.slice(0, -3)), gunzipSync(readFileSync(from)));
    else copyFileSync(from, path.join(dest, entry.name));
  }
  return dest;
}

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
