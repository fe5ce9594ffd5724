/**
 * The provider artifact layout of cluster-api's OCI proposal — read from the proposal itself,
 * kubernetes-sigs/cluster-api PR #14033 (commit 26cb51dc, 2026-08-04, status "provisional", NOT
 * merged), docs/proposals/20260804-provider-manifests-as-oci-artifacts.md, sections "OCI artifact
 * format", "Naming and tagging conventions" and "clusterctl support" (issue #13729):
 *
 * - one artifact per provider per version: a plain OCI image manifest, no `artifactType`, no custom
 *   media types;
 * - exactly one layer, `application/vnd.oci.image.layer.v1.tar+gzip`, a gzip'd tar holding the
 *   release's files at its root: `metadata.yaml` and the components file (`core-components.yaml`,
 *   `bootstrap-components.yaml`, `control-plane-components.yaml`, …; cluster templates are "TBD");
 * - manifest annotations (required; consumers validate them): `org.opencontainers.image.title`
 *   `{type}-{name}`, `org.opencontainers.image.version` the version (== tag),
 *   `org.opencontainers.image.source` the source repository, `cluster-api.sigs.k8s.io/provider-type`
 *   (`core`, `bootstrap`, `controlPlane`, `infrastructure`, `ipam`, `runtimeextension`, `addon`) and
 *   `cluster-api.sigs.k8s.io/provider-name`;
 * - repository `{registry}/{project}/manifests/{type}-{name}`, tag exactly the version (`v1.15.0`),
 *   never moved, no `latest` tag (versions come from the tag list); `@sha256:…` pins a digest;
 * - clusterctl reads it through a provider URL `oci://{registry}/{repository}` (oci-url.ts).
 *
 * The proposal leaves the config blob unspecified; capi-render writes the OCI image config (what a
 * "standard OCI image manifest" with a tar+gzip layer carries) and reads any config. It is told apart
 * from the operator's layout (one titled layer per file, oci-file-names.ts) by its layer's media
 * type: a manifest whose only layer is a gzip'd tar is an archive, anything else is read by titles.
 *
 * Two findings, for whoever follows the proposal: (1) it says the operator's `fetchConfig.oci`
 * reads this layout unchanged, but the operator v0.28 (internal/controller/oci_source.go, mapStore)
 * keeps each layer's bytes under its `org.opencontainers.image.title` and never unpacks a tar, so it
 * would not find `metadata.yaml` here; capi-render reads it anyway. (2) `{type}` is the hyphenated
 * one in paths and file names (`control-plane-kubeadm`) but `controlPlane` in the annotation.
 * If the proposal changes before it merges, what changes here is only this file's constants, the
 * detection rule below and the writer (publish/provider-artifact.ts): the reader, lock, cache and
 * mirror paths are the ones every OCI artifact takes.
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
