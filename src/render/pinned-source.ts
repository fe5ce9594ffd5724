/**
 * Puts the lock and the cache between a build and a source: a locked artifact is served from the
 * content-addressed cache when it is there, every fetched artifact must match the digest the lock
 * recorded (a re-tagged release is a hard error, never a silent update), and `--offline` never lets
 * a remote source open a connection.
 */
import { FetchError, error } from '../errors.js';
import type { LockedArtifact } from '../lock/lock-types.js';
import { sha256Hex, type ArtifactCache } from '../source/artifact-cache.js';
import type { Artifact, ReleaseSource } from '../source/release-source.js';

export interface PinContext {
  locked(source: string, version: string, file: string): LockedArtifact | undefined;
  cache?: ArtifactCache;
  offline: boolean;
}

export function pinSource(source: ReleaseSource, ctx: PinContext): ReleaseSource {
  return {
    id: source.id,
    description: source.description,
    remote: source.remote,
    async listVersions() {
      if (source.remote && ctx.offline) {
        throw new FetchError(
          error('offline', `--offline: resolving a version needs the release list of ${source.description}, which is not recorded in capi-render.lock`, {
            hint: 'run once without --offline (or pin an exact spec.version that the lock and cache already hold)',
          }),
        );
      }
      return source.listVersions();
    },
    async readFile(version, fileName): Promise<Artifact> {
      const locked = ctx.locked(source.id, version, fileName);
      if (source.remote && ctx.cache && locked) {
        const cached = await ctx.cache.get(locked.sha256);
        if (cached) return { bytes: cached, url: locked.url };
      }
      if (source.remote && ctx.offline) {
        throw new FetchError(
          error('offline', `--offline: ${fileName} of ${source.description} ${version} is not in the cache${ctx.cache ? ` (${ctx.cache.dir})` : ''}`, {
            hint: locked
              ? `its sha256 is ${locked.sha256}; build once online, or copy it into the cache with \`capi-render mirror\``
              : 'it is not in capi-render.lock either; build once online first',
          }),
        );
      }
      const artifact = await source.readFile(version, fileName);
      const sha256 = sha256Hex(artifact.bytes);
      if (locked && locked.sha256 !== sha256) {
        throw new FetchError(
          error('digest-mismatch', `${fileName} of ${source.description} ${version} has sha256 ${sha256}, but capi-render.lock pinned ${locked.sha256}`, {
            file: 'capi-render.lock',
            hint: 'the release was changed after it was locked (re-tagged upstream, or the local copy edited); verify the new content, then delete this artifact entry from capi-render.lock to accept it',
          }),
        );
      }
      if (source.remote && ctx.cache) await ctx.cache.put(artifact.bytes);
      return artifact;
    },
  };
}
