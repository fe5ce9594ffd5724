/**
 * One build's view of release artifacts: every (source, version, file) is fetched at most once,
 * whatever number of environments use it, and every fetched file's sha256 is recorded for the lock.
 * The store is an object owned by the build — never module state.
 */
import { createHash } from 'node:crypto';
import type { Artifact, ReleaseSource } from './release-source.js';

export interface FetchedArtifact extends Artifact {
  text: string;
  sha256: string;
}

export class ArtifactStore {
  readonly #files = new Map<string, Promise<FetchedArtifact>>();

  /** The file's content (UTF-8 text) and digest; repeated calls share one fetch. */
  read(source: ReleaseSource, version: string, fileName: string): Promise<FetchedArtifact> {
    const key = `${source.id}\u0000${version}\u0000${fileName}`;
    let pending = this.#files.get(key);
    if (!pending) {
      pending = source.readFile(version, fileName).then((a) => ({
        ...a,
        text: new TextDecoder('utf-8').decode(a.bytes),
        sha256: createHash('sha256').update(a.bytes).digest('hex'),
      }));
      this.#files.set(key, pending);
    }
    return pending;
  }
}
