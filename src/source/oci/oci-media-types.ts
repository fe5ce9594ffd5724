/**
 * Media types and annotation keys of the OCI image spec v1.1 and Docker's schema 2, and the ones
 * the cluster-api-operator's `publish` plugin (cmd/plugin/cmd/publish.go, oras-go v2.6.2
 * PackManifest with PackManifestVersion1_1) writes.
 */

/** OCI image manifest v1 (what oras PackManifest v1.1 writes). */
export const MEDIA_TYPE_OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
/** The short-lived OCI 1.1 release-candidate artifact manifest (`blobs` instead of `layers`). */
export const MEDIA_TYPE_OCI_ARTIFACT_MANIFEST = 'application/vnd.oci.artifact.manifest.v1+json';
/** Docker image manifest schema 2. */
export const MEDIA_TYPE_DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
/** Indexes point to manifests, not files: refused as a provider artifact. */
export const MEDIA_TYPE_OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
/** Docker's index, refused likewise. */
export const MEDIA_TYPE_DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
/** The OCI 1.1 empty JSON blob `{}`, the config of an artifact. */
export const MEDIA_TYPE_EMPTY_JSON = 'application/vnd.oci.empty.v1+json';

/** The manifest kinds a provider artifact may be; sent as `Accept` on manifest requests. */
export const ACCEPTED_MANIFEST_TYPES: readonly string[] = [
  MEDIA_TYPE_OCI_MANIFEST,
  MEDIA_TYPE_OCI_ARTIFACT_MANIFEST,
  MEDIA_TYPE_DOCKER_MANIFEST,
];

/** The layer annotation that names the file a layer holds (`ocispec.AnnotationTitle`). */
export const ANNOTATION_TITLE = 'org.opencontainers.image.title';

/** What the operator's `publish` uses: the artifactType of the manifest… */
export const PUBLISH_ARTIFACT_TYPE = 'application/vnd.acme.config';
/** …and the media type of every file layer. */
export const PUBLISH_LAYER_MEDIA_TYPE = 'application/vnd.test.file';

/** The OCI empty descriptor (`ocispec.DescriptorEmptyJSON`): the 2-byte blob `{}`, inlined as `data`. */
export const EMPTY_JSON_CONFIG = {
  mediaType: MEDIA_TYPE_EMPTY_JSON,
  digest: 'sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a',
  size: 2,
  data: 'e30=',
} as const;

/**
 * The four container image manifest types, sent together as `Accept` when resolving an image: a
 * registry answers a request that omits the index types with one platform's manifest (and its
 * digest) or with MANIFEST_UNKNOWN, so all four always go together.
 */
export const IMAGE_MANIFEST_TYPES: readonly string[] = [
  MEDIA_TYPE_OCI_INDEX,
  MEDIA_TYPE_OCI_MANIFEST,
  MEDIA_TYPE_DOCKER_MANIFEST_LIST,
  MEDIA_TYPE_DOCKER_MANIFEST,
];
