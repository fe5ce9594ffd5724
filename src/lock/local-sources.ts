/**
 * Locks written before a configured local repository was named without its path recorded it as
 * `local:<repositories[].path>/<label>`, with files at `<path>/<label>/<version>/<file>`. Such a lock is
 * still read: an entry whose path is one of capi-render.yaml's `repositories:` is the same release
 * source as `local:<label>` today, so its pins (versions, digests) are reused as they are, and the
 * next build writes them in the new form. An entry whose path is no configured repository any more
 * (moved in the same change as the upgrade) is another source, re-resolved as any changed source is.
 */
import { configuredLocalSourceId } from '../source/local-repository.js';
import { warning, type Diagnostic } from '../errors.js';
import { LOCK_FILE, type LockFile } from './lock-types.js';

/** The lock with path-named configured repository sources renamed; `renamed` lists the old ids, sorted. */
export function withPathlessLocalSources(
  lock: LockFile,
  repositories: readonly { path: string }[],
): { lock: LockFile; renamed: string[] } {
  const roots = repositories.map((r) => r.path.replace(/\/+$/, '') || r.path);
  const renamed = new Set<string>();
  const rename = (id: string): string => {
    for (const root of roots) {
      const prefix = `local:${root}/`;
      const label = id.startsWith(prefix) ? id.slice(prefix.length) : '';
      if (/^[^/]+$/.test(label)) {
        renamed.add(id);
        return configuredLocalSourceId(label);
      }
    }
    return id;
  };
  const environments = lock.environments.map((e) => ({
    ...e,
    providers: e.providers.map((p) => ({ ...p, source: rename(p.source) })),
  }));
  const artifacts = lock.artifacts.map((a) => {
    const source = rename(a.source);
    if (source === a.source) return a;
    // The file's address as a configured repository's is recorded: `<label>/<version>/<file>`.
    return { ...a, source, url: `${source.slice('local:'.length)}/${a.version}/${a.file}` };
  });
  if (renamed.size === 0) return { lock, renamed: [] };
  return { lock: { ...lock, environments, artifacts }, renamed: [...renamed].sort() };
}

/** The one line a build (and `check`) says about such a lock. */
export function pathNamedLocalSources(renamed: readonly string[]): Diagnostic {
  const shown =
    renamed.length > 2 ? `${renamed.slice(0, 2).join(', ')} and ${renamed.length - 2} more` : renamed.join(', ');
  return warning(
    'lock',
    `${LOCK_FILE} names local repositories by their path (${shown}, written by an older capi-render): their pins are kept and recorded as local:<label>, since where a local repository lives is capi-render.yaml's repositories[].path, not part of the pin`,
    {
      file: LOCK_FILE,
      hint: 'run `capi-render build` and commit capi-render.lock',
    },
  );
}
