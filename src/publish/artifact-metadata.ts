/**
 * The source, revision and (optional) created time of a published artifact, from the flags or from
 * git: source = the `origin` remote's URL (credentials removed), revision = `<branch>@sha1:<commit>`
 * (Flux's documented format; `sha1:<commit>` on a detached HEAD), created = the commit time when
 * asked for with `--created commit`. A revision read from git must describe what is published, so
 * uncommitted changes under the environment's output folder are refused.
 */
import { SpecError, UsageError, error } from '../errors.js';
import type { GitRunner } from '../upgrade/git-command.js';

export interface ArtifactMetadataFlags {
  source?: string;
  revision?: string;
  /** `commit`, an RFC 3339 time, or undefined (no created annotation). */
  created?: string;
}

export interface ArtifactMetadata {
  source: string;
  revision: string;
  created?: string;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * Fills what the flags leave open from git. `outputFolder` is the environment's folder relative
 * to the repository root. Throws UsageError for a bad `--created` or when git cannot answer and
 * the flag is missing; SpecError `publish` for uncommitted output.
 */
export async function artifactMetadata(
  flags: ArtifactMetadataFlags,
  git: GitRunner,
  outputFolder: string,
): Promise<ArtifactMetadata> {
  checkCreatedFlag(flags.created);
  const ask = async (args: string[], flag: string): Promise<string> => {
    try {
      return (await git(args)).toString('utf8').trim();
    } catch {
      throw new UsageError(`${flag} is required: git cannot tell it here (${args.join(' ')} failed)`);
    }
  };
  const source = flags.source ?? withoutCredentials(await ask(['remote', 'get-url', 'origin'], '--source'));
  let revision = flags.revision;
  if (revision === undefined) {
    const commit = await ask(['rev-parse', 'HEAD'], '--revision');
    const dirty = await ask(['status', '--porcelain', '--', outputFolder], '--revision');
    if (dirty !== '') {
      throw new SpecError(
        error(
          'publish',
          `${outputFolder} has uncommitted changes, so commit ${commit} does not describe what would be published`,
          {
            file: outputFolder,
            hint: 'commit the build first (or pass --revision to name what this is)',
          },
        ),
      );
    }
    const branch = await git(['symbolic-ref', '-q', '--short', 'HEAD']).then(
      (b) => b.toString('utf8').trim(),
      () => '',
    );
    revision = branch === '' ? `sha1:${commit}` : `${branch}@sha1:${commit}`;
  }
  let created = flags.created;
  if (created === 'commit') {
    const seconds = Number(await ask(['log', '-1', '--format=%ct', 'HEAD'], '--created'));
    created = new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }
  return { source, revision, ...(created !== undefined ? { created } : {}) };
}

/** Throws UsageError unless `created` is undefined, `commit` or an RFC 3339 time (checked before any work). */
export function checkCreatedFlag(created: string | undefined): void {
  if (created !== undefined && created !== 'commit' && (!RFC3339.test(created) || Number.isNaN(Date.parse(created)))) {
    throw new UsageError(
      `--created must be "commit" or an RFC 3339 time such as 2026-01-31T12:00:00Z, not ${JSON.stringify(created)}`,
    );
  }
}

/** `https://user:token@host/x.git` → `https://host/x.git`: a credential never reaches a registry. */
export function withoutCredentials(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username === '' && parsed.password === '') return url;
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return url; // scp-like git@host:org/repo.git carries no secret
  }
}
