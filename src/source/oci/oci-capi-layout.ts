/**
 * The provider artifact layout of cluster-api's OCI proposal (kubernetes-sigs/cluster-api PR #14033,
 * provisional, not merged): one plain OCI image manifest per provider version, one tar+gzip layer
 * holding `metadata.yaml` and the components file, required manifest annotations, and a repository
 * `{registry}/{project}/manifests/{type}-{name}` tagged with the version. It is told apart from the
 * operator's layout (oci-file-names.ts) by its one layer's media type. The layout is described in
 * docs/sources-and-lock.md "OCI artifacts: two layouts and oci:// URLs".
 *
 * Design notes: docs/internals.md "source/oci/oci-capi-layout.ts".
 */
import { FetchError, error } from '../../errors.js';
import type { OciManifest } from './oci-manifest.js';
import { ANNOTATION_TITLE } from './oci-media-types.js';

/** The one layer's media type. */
export const CAPI_LAYER_MEDIA_TYPE = 'application/vnd.oci.image.layer.v1.tar+gzip';
/** Docker's gzip'd layer type, which a registry copy converting to schema 2 would give the layer. */
const DOCKER_LAYER_TAR_GZIP = 'application/vnd.docker.image.rootfs.diff.tar.gzip';

/** The provider version (== the tag). */
export const ANNOTATION_VERSION = 'org.opencontainers.image.version';
/** The provider's source repository. */
export const ANNOTATION_SOURCE = 'org.opencontainers.image.source';
/** `core`, `bootstrap`, `controlPlane`, `infrastructure`, `ipam`, `runtimeextension` or `addon`. */
export const ANNOTATION_PROVIDER_TYPE = 'cluster-api.sigs.k8s.io/provider-type';
/** The provider's name as clusterctl knows it. */
export const ANNOTATION_PROVIDER_NAME = 'cluster-api.sigs.k8s.io/provider-name';

/** The proposal's provider-type annotation value, by the operator's GetType(). */
const ANNOTATION_TYPES: Readonly<Record<string, string>> = {
  core: 'core',
  bootstrap: 'bootstrap',
  'control-plane': 'controlPlane',
  infrastructure: 'infrastructure',
  ipam: 'ipam',
  runtimeextension: 'runtimeextension',
  addon: 'addon',
};

/** Which of the two provider artifact layouts a manifest has. */
export type OciArtifactLayout = 'operator' | 'cluster-api';

/** `cluster-api` when the manifest's only layer is a gzip'd tar; `operator` otherwise. */
export function ociArtifactLayout(manifest: OciManifest): OciArtifactLayout {
  const [only, ...rest] = manifest.layers;
  if (
    only &&
    rest.length === 0 &&
    (only.mediaType === CAPI_LAYER_MEDIA_TYPE || only.mediaType === DOCKER_LAYER_TAR_GZIP)
  )
    return 'cluster-api';
  return 'operator';
}

/** The provider an artifact should identify. `type` is the operator's GetType() (`control-plane`). */
export interface CapiProviderIdentity {
  type: string;
  name: string;
  version: string;
}

/** The proposal's repository name under a prefix: `<prefix>/{type}-{name}`. */
export function capiRepositoryName(identity: Pick<CapiProviderIdentity, 'type' | 'name'>): string {
  return `${identity.type}-${identity.name}`;
}

/** The manifest annotations the proposal requires, for `identity` and `source`. Keys sorted (Go marshals maps so). */
export function capiAnnotations(identity: CapiProviderIdentity, source: string): Record<string, string> {
  const annotations: Record<string, string> = {
    [ANNOTATION_PROVIDER_NAME]: identity.name,
    [ANNOTATION_PROVIDER_TYPE]: ANNOTATION_TYPES[identity.type] ?? identity.type,
    [ANNOTATION_SOURCE]: source,
    [ANNOTATION_TITLE]: capiRepositoryName(identity),
    [ANNOTATION_VERSION]: identity.version,
  };
  return Object.fromEntries(Object.entries(annotations).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * The proposal's consumer check: every required annotation present and naming this provider and
 * version. Throws FetchError `source-unsupported` listing every problem of `what` at once.
 */
export function checkCapiAnnotations(manifest: OciManifest, identity: CapiProviderIdentity, what: string): void {
  const have = manifest.annotations ?? {};
  const want: [string, string | undefined][] = [
    [ANNOTATION_TITLE, capiRepositoryName(identity)],
    [ANNOTATION_VERSION, identity.version],
    [ANNOTATION_SOURCE, undefined],
    [ANNOTATION_PROVIDER_TYPE, ANNOTATION_TYPES[identity.type] ?? identity.type],
    [ANNOTATION_PROVIDER_NAME, identity.name],
  ];
  const problems: string[] = [];
  for (const [key, expected] of want) {
    const value = have[key];
    if (value === undefined || value === '') problems.push(`${key} is missing`);
    else if (expected !== undefined && value !== expected)
      problems.push(`${key} is ${JSON.stringify(value)}, expected ${JSON.stringify(expected)}`);
  }
  if (problems.length === 0) return;
  throw new FetchError(
    error(
      'source-unsupported',
      `${what} does not conform to the cluster-api artifact contract: ${problems.join('; ')}`,
      {
        hint: 'publish it with the provider type, name and version it is used as (capi-render mirror --format oci --oci-layout cluster-api writes the annotations)',
      },
    ),
  );
}
