/**
 * Puts the lock and the cache between a build and a source: a locked artifact is served from the
 * content-addressed cache when it is there, every fetched artifact must match the digest the lock
 * recorded (a re-tagged release is a hard error, never a silent update), and `--offline` never lets
 * a remote source open a connection.
 *
 * What a remote source answers online is also indexed in the cache (its version list with the
 * fetch time, and each file's URL and digest), so `plan --offline` can report from the last online
 * run and say how old that is. Resolving a version never uses a saved list, so two machines with
 * different caches still resolve alike.
 */
import { FetchError, error } from '../errors.js';
import { sha256Hex, type ArtifactCache } from './artifact-cache.js';
import type { ReleaseIndexCache } from './release-index-cache.js';
import type { Artifact, ReleaseList, ReleaseSource } from './release-source.js';
import { missingFromLocalRepositories, type LocalSearch } from './local-repository.js';

/** What the lock records of one release file (lock/lock-types.ts LockedArtifact fits). */
export interface PinnedFile {
  url: string;
  sha256: string;
}

export interface PinContext {
  locked(source: string, version: string, file: string): PinnedFile | undefined;
  cache?: ArtifactCache;
  /** What remote sources answered on online runs (for `plan --offline`). Default: none. */
  index?: ReleaseIndexCache;
  /** The time a saved version list is stamped with. Default: the system clock. */
  now?: () => Date;
  offline: boolean;
}

/** `local`: where the configured local repositories were searched before this source was chosen (for `--offline` errors). */
export function pinSource(source: ReleaseSource, ctx: PinContext, local?: LocalSearch): ReleaseSource {
  // A source that cannot list answers from what it was given: no network, nothing worth saving.
  const listsOnline = Boolean(source.remote) && !source.unlisted;
  // Writing the index is best effort: a cache that cannot be written costs `plan --offline` only.
  const remember = (write: Promise<void> | undefined): Promise<void> =>
    (write ?? Promise.resolve()).catch(() => undefined);

  const listVersions = async (): Promise<string[]> => {
    if (listsOnline && ctx.offline) {
      throw new FetchError(
        error(
          'offline',
          `--offline: resolving a version needs the release list of ${source.description}, which is not recorded in capi-render.lock`,
          {
            hint: 'run once without --offline (or pin an exact spec.version that the lock and cache already hold)',
          },
        ),
      );
    }
    const versions = await source.listVersions();
    if (listsOnline) {
      const fetchedAt = (ctx.now ?? (() => new Date()))().toISOString();
      await remember(ctx.index?.putList({ source: source.id, fetchedAt, versions }));
    }
    return versions;
  };

  return {
    id: source.id,
    description: source.description,
    remote: source.remote,
    ...(source.unlisted ? { unlisted: source.unlisted } : {}),
    listVersions,
    async listReleases(): Promise<ReleaseList> {
      if (!(listsOnline && ctx.offline)) return { versions: await listVersions() };
      const saved = await ctx.index?.getList(source.id);
      if (saved) return { versions: saved.versions, cachedAt: saved.fetchedAt };
      throw new FetchError(
        error('offline', `--offline: no release list of ${source.description} was saved by an earlier online run`, {
          hint: `run capi-render plan (or build) once online; the list is then kept in the cache${ctx.cache ? ` (${ctx.cache.dir})` : ''} with its fetch time`,
        }),
      );
    },
    async readFile(version, fileName): Promise<Artifact> {
      const locked = ctx.locked(source.id, version, fileName);
      if (source.remote && ctx.cache) {
        // The lock's digest first; offline, also what an earlier online run read (a plan's newest metadata.yaml).
        const fetched = await ctx.index?.getFile(source.id, version, fileName);
        const known = locked ?? (ctx.offline ? fetched : undefined);
        const cached = known ? await ctx.cache.get(known.sha256) : undefined;
        // The bytes are the locked ones (the cache is content-addressed); where they came from is what
        // this machine saw when it fetched them, never the lock's claim — else it is fetched again.
        // Offline there is nothing to fetch from: the lock's url is kept, as the cache has no other.
        if (known && cached && fetched?.sha256 === known.sha256) return { bytes: cached, url: fetched.url };
        if (known && cached && ctx.offline) return { bytes: cached, url: known.url };
      }
      if (source.remote && ctx.offline) {
        // What a site without network can do: put the file where a local repository is looked for.
        const missing = local ? missingFromLocalRepositories(local, version, fileName) : undefined;
        const pinned = locked
          ? `capi-render.lock pins its sha256 ${locked.sha256}`
          : 'capi-render.lock does not pin it yet';
        throw new FetchError(
          error(
            'offline',
            `--offline: ${fileName} of ${source.description} ${version} is not in the cache${ctx.cache ? ` (${ctx.cache.dir})` : ''}${missing ? ` and ${missing.looked}` : ''}`,
            {
              hint: missing ? `${missing.hint}; ${pinned}` : `build once online to fill the cache; ${pinned}`,
            },
          ),
        );
      }
      const artifact = await source.readFile(version, fileName);
      const sha256 = sha256Hex(artifact.bytes);
      if (locked && locked.sha256 !== sha256) {
        throw new FetchError(
          error(
            'digest-mismatch',
            `${fileName} of ${source.description} ${version} has sha256 ${sha256}, but capi-render.lock pinned ${locked.sha256}`,
            {
              file: 'capi-render.lock',
              hint: 'the release was changed after it was locked (re-tagged upstream, or the local copy edited); verify the new content, then delete this artifact entry from capi-render.lock to accept it',
            },
          ),
        );
      }
      if (source.remote && ctx.cache) {
        await ctx.cache.put(artifact.bytes);
        await remember(ctx.index?.putFile(source.id, version, fileName, { url: artifact.url, sha256 }));
      }
      return artifact;
    },
  };
}
