/**
 * What `init` asks of its flags before writing anything: the infrastructure provider must be one
 * clusterctl knows (or one the local repository holds), and with `--local-repository` every version
 * init pins must be one that repository has — a scaffold whose first build fails is no scaffold.
 * Versions left open are filled with the newest the local repository holds, so Renovate sees a
 * concrete version (it skips `latest`). Every version is written in a form the build reads as meant
 * (see initVersion): `1.12.0` as the tag `v1.12.0`, a bare `1.12` as the range `~1.12` — unquoted in
 * YAML, `1.12` would even be the number 1.12.
 */
import { readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { UsageError } from '../errors.js';
import { BUILTIN_PROVIDERS } from '../source/github/builtin-providers.js';
import { canonicalVersion, parseVersion, sortVersions } from '../declarations/versions.js';
import { parseVersionRequest, type VersionRequest } from '../resolve/select-version.js';
import { didYouMean } from '../declarations/schema/suggest-field.js';

export interface InitFlags {
  version?: string;
  infrastructure?: string;
  infrastructureVersion?: string;
  certManagerVersion?: string;
  /** As given: repository-relative or absolute. */
  localRepository?: string;
  /** Accept a local repository outside the repository (`--allow-outside`). */
  allowOutside?: boolean;
}

export interface InitChoices {
  version?: string;
  infrastructure: string;
  infrastructureVersion?: string;
  certManagerVersion?: string;
  /** `repositories[].path` as written into capi-render.yaml (see localRepositoryPath). */
  localRepository?: string;
  /** `owner/repo` of the infrastructure provider's GitHub releases (Renovate's depName). */
  infrastructureRepository: string;
  /** One line per version written otherwise than given (`--version 1.12: written as ~1.12 …`). */
  notes: string[];
}

/**
 * A version flag as init writes it, or a UsageError when it is no version the build accepts: an
 * exact version as its release is tagged (`1.12.0` → `v1.12.0`: clusterctl's providers tag with a
 * leading v, and the build looks the tag up as written); a bare major or major.minor (`1.12`,
 * `v1.12`) as the range it means, spelt as ranges are documented (`~1.12`: the newest v1.12.x);
 * other ranges and `latest` as given.
 */
export function initVersion(flag: string, value: string | undefined, notes: string[]): string | undefined {
  if (value === undefined || value === '' || value === 'latest') return value;
  if (parseVersionRequest(value) === null)
    throw new UsageError(`${flag} ${value}: not a version or range (e.g. v1.12.0, ~1.12, latest)`);
  const series = /^v?(\d+(?:\.\d+)?)$/.exec(value);
  const written = parseVersion(value) ? canonicalVersion(value) : series ? `~${series[1]}` : value;
  if (written !== value) {
    notes.push(
      `${flag} ${value}: written as ${written} (${series ? `the newest v${series[1]}.x release; the first build pins it in capi-render.lock` : 'releases are tagged with a leading v'})`,
    );
  }
  return written;
}

/** Checks the flags against clusterctl's provider list and the local repository; UsageError on a mistake. */
export function chooseInitVersions(flags: InitFlags, repoRoot: string): InitChoices {
  const notes: string[] = [];
  const requested = {
    version: initVersion('--version', flags.version, notes),
    infrastructureVersion: initVersion('--infrastructure-version', flags.infrastructureVersion, notes),
    certManagerVersion: initVersion('--cert-manager-version', flags.certManagerVersion, notes),
  };
  const infrastructure = flags.infrastructure ?? 'docker';
  const local = flags.localRepository === undefined ? undefined : path.resolve(repoRoot, flags.localRepository);
  const localVersions = (label: string): string[] | undefined => {
    try {
      return sortVersions(
        readdirSync(path.join(local!, label), { withFileTypes: true })
          .filter((e) => e.isDirectory() && parseVersion(e.name))
          .map((e) => e.name),
      );
    } catch {
      return undefined;
    }
  };
  if (local !== undefined && !isDirectory(local)) {
    throw new UsageError(
      `--local-repository ${flags.localRepository}: no such folder (a clusterctl local repository holds <root>/<provider-label>/<version>/<file>)`,
    );
  }
  const written =
    local === undefined
      ? undefined
      : localRepositoryPath(flags.localRepository!, local, repoRoot, Boolean(flags.allowOutside));
  const known = BUILTIN_PROVIDERS.filter((p) => p.type === 'InfrastructureProvider');
  const entry = known.find((p) => p.name === infrastructure);
  const inLocal = local !== undefined && localVersions(`infrastructure-${infrastructure}`) !== undefined;
  if (!entry && !inLocal) {
    const names = known.map((p) => p.name);
    throw new UsageError(
      `--infrastructure ${infrastructure}: not in clusterctl's provider list${local ? ' nor in the local repository' : ''}${didYouMean(infrastructure, names)} (known: ${names.join(', ')})`,
    );
  }
  const repository = entry ? /^https:\/\/github\.com\/([^/]+\/[^/]+)\//.exec(entry.url)?.[1] : undefined;
  const pick = (flag: string, label: string, requested: string | undefined): string | undefined => {
    if (local === undefined) return requested;
    const available = localVersions(label);
    if (available === undefined || available.length === 0) return requested;
    if (requested === undefined || requested === 'latest' || requested === '') return available.at(-1);
    const request = parseVersionRequest(requested)!;
    const matching = available.filter((v) => satisfies(v, request));
    if (matching.length === 0)
      throw new UsageError(`${flag} ${requested}: the local repository has ${label} ${available.join(', ')} only`);
    // An exact version is written as the repository tags it (the build reads that folder).
    return request.kind === 'exact' && !matching.includes(requested) ? matching.at(-1) : requested;
  };
  const version = pick('--version', 'cluster-api', requested.version);
  const infrastructureDefault = requested.infrastructureVersion ?? (infrastructure === 'docker' ? version : undefined);
  return {
    version,
    infrastructure,
    infrastructureVersion: pick(
      requested.infrastructureVersion ? '--infrastructure-version' : '--version',
      `infrastructure-${infrastructure}`,
      infrastructureDefault,
    ),
    certManagerVersion: pick('--cert-manager-version', 'cert-manager', requested.certManagerVersion),
    ...(written !== undefined ? { localRepository: written } : {}),
    infrastructureRepository: repository ?? `kubernetes-sigs/cluster-api-provider-${infrastructure}`,
    notes,
  };
}

/**
 * `--local-repository` as capi-render.yaml gets it: relative to the repository, `/`-separated, so
 * every checkout (a colleague's, CI's, the Argo CD or Flux repo-server's) finds it. A folder outside
 * the repository (links resolved) is refused unless `allowOutside`: the build would then depend on
 * this machine's layout. Allowed, it is written as given: an absolute path as such (a build host's
 * shared mirror), a relative one relative to the repository.
 */
export function localRepositoryPath(flag: string, folder: string, repoRoot: string, allowOutside: boolean): string {
  const root = realOrResolved(repoRoot);
  const real = realOrResolved(folder);
  const relative = path.relative(root, real);
  const inside = relative !== '..' && !relative.startsWith(`..${path.sep}`) && !path.isAbsolute(relative);
  if (inside) return relative === '' ? '.' : relative.split(path.sep).join('/');
  if (!allowOutside) {
    throw new UsageError(
      `--local-repository ${flag} is outside the repository (${repoRoot}): a build would depend on this machine's layout, and CI and the Argo CD / Flux repo-server will not have it; copy the releases inside (\`capi-render mirror --to vendor/releases\` fills a folder) or pass --allow-outside`,
    );
  }
  return path.isAbsolute(flag) ? folder : path.relative(path.resolve(repoRoot), folder).split(path.sep).join('/');
}

function realOrResolved(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/** An exact tag matches itself (with or without `v`); a range matches as the build reads it. */
function satisfies(tag: string, request: VersionRequest): boolean {
  const version = parseVersion(tag);
  if (!version) return false;
  if (request.kind === 'exact') return version.compare(parseVersion(request.version)!) === 0;
  return request.kind === 'latest' || semver.satisfies(version, request.range);
}

function isDirectory(dir: string): boolean {
  try {
    readdirSync(dir);
    return true;
  } catch {
    return false;
  }
}
