/**
 * `spec.fetchConfig.oci` as a ReleaseSource: the cluster-api-operator's OCI source
 * (internal/controller/oci_source.go) over the distribution API. Versions are the repository's tags;
 * a file comes from the reference's own tag when it has one (`pinnedVersion`), else the version's tag,
 * by the operator's file-name precedence ({@link ociFileCandidates}) — from the layer so titled, or
 * from the one tar+gzip layer of cluster-api's proposed layout (oci-capi-layout.ts).
 * Artifact URLs are `oci://<registry>/<repository>@<manifest digest>#<layer title>`: a digest, not the
 * tag, so a tag moved to new content gives a new URL and the lock notices.
 */
import type { FetchProgressListener } from '../fetch-progress.js';
import { FetchError, error, peerWording, type Location } from '../../errors.js';
import { releaseSourceId, type Artifact, type ReleaseSource } from '../release-source.js';
import { sortVersions } from '../../declarations/versions.js';
import { createOciClient, type FetchedManifest } from './oci-client.js';
import type { OciCredentials } from './oci-credentials.js';
import { computeOciDigest } from './oci-digest.js';
import { createOciArtifactFileReader } from './oci-artifact-files.js';
import { ociFileCandidates } from './oci-file-names.js';
import { formatOciReference, parseOciReference } from './oci-reference.js';

/** What the OCI source of one provider needs. */
export interface OciSourceInput {
  /** The `spec.fetchConfig.oci` text. */
  reference: string;
  /** The operator's GetType(): `core`, `bootstrap`, `control-plane`, `infrastructure`, `ipam`, `runtimeextension`, `addon`. */
  providerType: string;
  /** The provider CR's name (the operator's ProviderName()). */
  providerName: string;
  credentials?: OciCredentials;
  /** Default: the global `fetch`. */
  fetchImpl?: typeof fetch;
  /** Per registry request. Default: 30 000 ms. */
  timeoutMs?: number;
  /** Where the reference is declared (object, field, file:line), for a parse error. */
  where?: Location;
  /** Progress listener: registry requests, and one `download` per file read. Default: none. */
  onProgress?: FetchProgressListener;
}

/** The source, and the version the reference pins, if any. */
export interface OciSource {
  source: ReleaseSource;
  /** The reference's tag: the version to render instead of spec.version. */
  pinnedVersion?: string;
}

/**
 * Builds the source. Throws SpecError `source-unsupported` for a reference that is not one of the
 * operator's forms; makes no request until a method is called. Holds a per-source cache of the
 * manifests it fetched, so metadata.yaml and the components of one version come from one manifest.
 *
 * `readFile(version, file)`: `version` names the versioned layer titles — pass spec.version when the
 * CR has one, as the operator does (it fetches the reference's tag but names files by spec.version).
 */
export function createOciSource(input: OciSourceInput): OciSource {
  const ref = parseOciReference(input.reference, input.where ?? {});
  const client = createOciClient({
    registry: ref.registry,
    plainHttp: ref.plainHttp,
    credentials: input.credentials,
    fetchImpl: input.fetchImpl,
    timeoutMs: input.timeoutMs,
    onProgress: input.onProgress,
  });
  const shown = formatOciReference({ ...ref, tag: undefined });
  const manifests = new Map<string, Promise<FetchedManifest>>();
  const reader = createOciArtifactFileReader(client, ref.repository);

  function manifestOf(tag: string): Promise<FetchedManifest> {
    let pending = manifests.get(tag);
    if (!pending) {
      pending = client.getManifest(ref.repository, tag);
      // A failure is not cached: the next call asks the registry again.
      pending.catch(() => manifests.delete(tag));
      manifests.set(tag, pending);
    }
    return pending;
  }

  const source: ReleaseSource = {
    // The provider is part of the identity: one image may hold several providers' files (the
    // operator's `{type}-{name}-{version}-…` names), and the build shares a source's files by id.
    id: releaseSourceId('oci', `${ref.registry}/${ref.repository}#${input.providerType}-${input.providerName}`),
    description: `OCI repository ${shown}`,
    remote: true,
    async listVersions() {
      return sortVersions(await client.listTags(ref.repository));
    },
    async readFile(version, fileName): Promise<Artifact> {
      const tag = ref.tag ?? version;
      const fetched = await manifestOf(tag);
      const wanted = ociFileCandidates(input.providerType, input.providerName, version, fileName);
      const chosen = await reader.read(fetched, wanted.titles);
      if (!chosen)
        throw missingLayer(`${shown}:${tag}`, fetched, wanted.role, wanted.titles, await reader.names(fetched));
      const bytes = chosen.bytes;
      const url = `oci://${ref.registry}/${ref.repository}@${fetched.digest}#${chosen.name}`;
      try {
        input.onProgress?.({ type: 'download', url, bytes: bytes.length });
      } catch {
        // A broken listener must not break a fetch.
      }
      return { bytes, url };
    },
  };
  return ref.tag === undefined ? { source } : { source, pinnedVersion: ref.tag };
}

/** What an OCI artifact URL and its bytes say, for the lock: registry, repository, digests and title. */
export interface OciArtifactDescription {
  registry: string;
  repository: string;
  manifestDigest: string;
  /** The file's digest: in the operator's layout the layer's (the source verified it), in cluster-api's the archive entry's. */
  layerDigest: string;
  title: string;
}

/** Describes an Artifact read from an OCI source; undefined when its URL is not an `oci://` one. */
export function describeOciArtifact(artifact: Artifact): OciArtifactDescription | undefined {
  const match = /^oci:\/\/([^/]+)\/(.+)@(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})#(.+)$/.exec(artifact.url);
  if (!match) return undefined;
  const [, registry = '', repository = '', manifestDigest = '', title = ''] = match;
  return { registry, repository, manifestDigest, layerDigest: computeOciDigest(artifact.bytes), title };
}

function missingLayer(
  shown: string,
  fetched: FetchedManifest,
  role: string,
  titles: readonly string[],
  present: readonly string[],
): FetchError {
  // The operator's wording (oci_source.go): "collected artifact needs to provide <role> as A or B file".
  return new FetchError(
    error(
      'source-not-found',
      peerWording(
        'cluster-api-operator',
        `collected artifact needs to provide ${role} as ${titles.join(' or ')} file`,
        `artifact ${shown}@${fetched.digest}`,
      ),
      {
        hint:
          present.length > 0
            ? `the artifact has: ${present.join(', ')}`
            : 'the artifact has no titled, non-empty layers (nor an archive holding such files)',
      },
    ),
  );
}
