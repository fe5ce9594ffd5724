/**
 * One file out of a fetched provider artifact, whichever layout it has (detected by the layer's
 * media type, oci-capi-layout.ts): the operator's, where the file is the layer titled by its name,
 * or cluster-api's proposal, where the file sits at the root of the one gzip'd tar layer. Names are
 * tried in the caller's precedence order and, as in the operator, an empty file counts as absent.
 * Each layer is downloaded (and its digest verified) once per reader however many files it serves,
 * and none over the release-file limit (128 MiB) is asked for.
 */
import { RELEASE_ASSET_LIMIT } from '../http/body-limits.js';
import { readArchiveFiles } from './oci-archive.js';
import { ociArtifactLayout, type OciArtifactLayout } from './oci-capi-layout.js';
import type { FetchedManifest, OciClient } from './oci-client.js';
import { selectOciLayer, titleOf } from './oci-file-names.js';

/** A file found in an artifact. */
export interface OciArtifactFile {
  bytes: Uint8Array;
  /** The name it was found under (a layer title or an archive entry). */
  name: string;
  layout: OciArtifactLayout;
}

/** Reads files of the artifacts of one repository. */
export interface OciArtifactFileReader {
  /** The first of `names` the artifact holds non-empty, or undefined. */
  read(fetched: FetchedManifest, names: readonly string[]): Promise<OciArtifactFile | undefined>;
  /** Every non-empty file name the artifact holds, sorted: for a hint when a file is missing. */
  names(fetched: FetchedManifest): Promise<string[]>;
}

/** A reader over `client` for `repository`; archives are kept in the reader, never in module state. */
export function createOciArtifactFileReader(client: OciClient, repository: string): OciArtifactFileReader {
  const archives = new Map<string, Promise<Map<string, Uint8Array>>>();

  function archiveOf(fetched: FetchedManifest): Promise<Map<string, Uint8Array>> {
    const layer = fetched.manifest.layers[0]!;
    let pending = archives.get(layer.digest);
    if (!pending) {
      const what = `layer ${layer.digest} of ${repository}@${fetched.digest}`;
      pending = client
        .getBlob(repository, layer.digest, layer.size, { limit: RELEASE_ASSET_LIMIT })
        .then((bytes) => readArchiveFiles(bytes, what));
      // A failure is not kept: the next read asks the registry again.
      pending.catch(() => archives.delete(layer.digest));
      archives.set(layer.digest, pending);
    }
    return pending;
  }

  return {
    async read(fetched, names) {
      const layout = ociArtifactLayout(fetched.manifest);
      if (layout === 'cluster-api') {
        const files = await archiveOf(fetched);
        for (const name of names) {
          const bytes = files.get(name);
          if (bytes && bytes.length > 0) return { bytes, name, layout };
        }
        return undefined;
      }
      const chosen = selectOciLayer(fetched.manifest.layers, names);
      if (!chosen) return undefined;
      const bytes = await client.getBlob(repository, chosen.layer.digest, chosen.layer.size, {
        limit: RELEASE_ASSET_LIMIT,
      });
      return { bytes, name: chosen.title, layout };
    },
    async names(fetched) {
      if (ociArtifactLayout(fetched.manifest) === 'cluster-api') {
        const files = await archiveOf(fetched);
        return [...files]
          .filter(([, bytes]) => bytes.length > 0)
          .map(([name]) => name)
          .sort();
      }
      const titles = fetched.manifest.layers
        .filter((l) => l.size > 0)
        .map(titleOf)
        .filter((t): t is string => !!t);
      return [...new Set(titles)].sort();
    },
  };
}
