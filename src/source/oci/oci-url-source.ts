/**
 * An `oci://` provider URL (oci-url.ts) as a ReleaseSource, as cluster-api's OCI proposal describes
 * clusterctl's client (PR #14033, not merged): versions are the repository's tags; a file comes from
 * the artifact tagged with the version (or pinned with `@sha256:…`) by its exact name. Cluster-api
 * layout artifacts must carry the proposal's annotations for this provider and version; the
 * operator's layout is read too. Artifact URLs are `oci://<registry>/<repository>@<digest>#<file>`,
 * so a moved tag is a digest mismatch, never a silent update.
 */
import { FetchError, error, type Location } from '../../errors.js';
import type { FetchProgressListener } from '../fetch-progress.js';
import { releaseSourceId, type Artifact, type ReleaseSource } from '../release-source.js';
import { sortVersions } from '../../declarations/versions.js';
import { createOciArtifactFileReader, type OciArtifactFileReader } from './oci-artifact-files.js';
import { ANNOTATION_VERSION, checkCapiAnnotations, ociArtifactLayout } from './oci-capi-layout.js';
import { createOciClient, type FetchedManifest, type OciClient } from './oci-client.js';
import type { OciCredentials } from './oci-credentials.js';
import { ociFileCandidates } from './oci-file-names.js';
import { formatOciUrl, parseOciUrl } from './oci-url.js';

/** What the source of one `oci://` provider URL needs. */
export interface OciUrlSourceInput {
  url: string;
  /** The operator's GetType() of the provider (`core`, `control-plane`, …). */
  providerType: string;
  providerName: string;
  /** The components file to read (clusterctl's components path for this provider). */
  componentsFile: string;
  /** Resolved once for the URL's registry, on the first request (the CLI: configSecret OCI_* keys, else the Docker credential chain). */
  credentials?: (registry: string) => Promise<OciCredentials | undefined>;
  /** Default: the global `fetch` (the CLI passes its proxy-aware one). */
  fetchImpl?: typeof fetch;
  timeoutMs?: number;
  /** Where the URL is written, for a parse error. */
  where?: Location;
  onProgress?: FetchProgressListener;
}

/** The source, and the version the URL's tag names (used when the CR gives none). */
export interface OciUrlSource {
  source: ReleaseSource;
  defaultVersion?: string;
}

/** Builds the source; parses the URL now (SpecError when invalid), makes no request until used. */
export function createOciUrlSource(input: OciUrlSourceInput): OciUrlSource {
  const url = parseOciUrl(input.url, input.where ?? {});
  const shown = formatOciUrl({ ...url, tag: undefined, digest: undefined });
  let connected: Promise<{ client: OciClient; reader: OciArtifactFileReader }> | undefined;
  const connect = () =>
    (connected ??= (async () => {
      const credentials = await input.credentials?.(url.registry);
      const client = createOciClient({
        registry: url.registry,
        plainHttp: url.plainHttp,
        credentials,
        fetchImpl: input.fetchImpl,
        timeoutMs: input.timeoutMs,
        onProgress: input.onProgress,
      });
      return { client, reader: createOciArtifactFileReader(client, url.repository) };
    })());
  const manifests = new Map<string, Promise<FetchedManifest>>();
  const manifestOf = (reference: string): Promise<FetchedManifest> => {
    let pending = manifests.get(reference);
    if (!pending) {
      pending = connect().then(({ client }) => client.getManifest(url.repository, reference));
      pending.catch(() => manifests.delete(reference));
      manifests.set(reference, pending);
    }
    return pending;
  };

  const source: ReleaseSource = {
    // The provider is part of the identity: what is read (and checked) depends on it, and the build
    // shares a source's files by id — two providers naming one repository must not share them.
    id: releaseSourceId(
      'oci',
      `${url.registry}/${url.repository}${url.digest ? `@${url.digest}` : ''}#${input.providerType}-${input.providerName}`,
    ),
    description: `OCI repository ${url.digest ? `${shown}@${url.digest}` : shown}`,
    remote: true,
    async listVersions() {
      if (url.digest) {
        // A pinned artifact offers the one version it says it is, when it says so.
        const pinned = (await manifestOf(url.digest)).manifest.annotations?.[ANNOTATION_VERSION];
        if (pinned) return [pinned];
      }
      const { client } = await connect();
      return sortVersions(await client.listTags(url.repository));
    },
    async readFile(version, fileName): Promise<Artifact> {
      const fetched = await manifestOf(url.digest ?? version);
      const what = `artifact ${shown}@${fetched.digest} (${version})`;
      const layout = ociArtifactLayout(fetched.manifest);
      if (layout === 'cluster-api')
        checkCapiAnnotations(fetched.manifest, { type: input.providerType, name: input.providerName, version }, what);
      const names =
        layout === 'cluster-api'
          ? [fileName]
          : [
              ...new Set([
                fileName,
                ...ociFileCandidates(input.providerType, input.providerName, version, fileName).titles,
              ]),
            ];
      const { reader } = await connect();
      const found = await reader.read(fetched, names);
      if (!found) {
        const present = await reader.names(fetched);
        throw new FetchError(
          error('source-not-found', `${what} has no ${names.join(' or ')}`, {
            hint:
              present.length > 0 ? `the artifact has: ${present.join(', ')}` : 'the artifact holds no non-empty files',
          }),
        );
      }
      const artifactUrl = `oci://${url.registry}/${url.repository}@${fetched.digest}#${found.name}`;
      try {
        input.onProgress?.({ type: 'download', url: artifactUrl, bytes: found.bytes.length });
      } catch {
        // A broken listener must not break a fetch.
      }
      return { bytes: found.bytes, url: artifactUrl };
    },
  };
  return url.tag === undefined ? { source } : { source, defaultVersion: url.tag };
}
