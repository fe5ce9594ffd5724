/**
 * A valid capi-render.lock with every field the lock defines, once: the lock-schema tests edit it a
 * line at a time (their line numbers count from its first line), and the precompiled-validator
 * tests vary it.
 */
const H = (c: string) => c.repeat(64);

export const FULL_LOCK = `# header
apiVersion: capi-render/v1alpha1
kind: Lock
emulates:
  clusterctl: v1.12.10
  operator: v0.28.0
environments:
- name: dev
  inputs: ${H('e')}
  providers:
  - provider: CoreProvider/capi-system/cluster-api
    requested: v1.12.0
    version: v1.12.0
    contract: v1beta2
    source: github:kubernetes-sigs/cluster-api
    variables:
    - CLUSTER_TOPOLOGY
  crds:
  - clusters.cluster.x-k8s.io
  images:
  - registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0
artifacts:
- source: github:kubernetes-sigs/cluster-api
  version: v1.12.0
  file: core-components.yaml
  url: https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/core-components.yaml
  sha256: ${H('a')}
inputFiles:
- file: capi-render.yaml
  sha256: ${H('b')}
images:
- image: registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0
  digest: sha256:${H('c')}
  verified:
    rule: ${H('d')}
    method: keyless
    format: bundle
    identity: https://github.com/kubernetes-sigs/cluster-api/.github/workflows/release.yaml@refs/tags/v1.12.0
    issuer: https://token.actions.githubusercontent.com
    evidence: e30=
`;
