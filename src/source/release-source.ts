/**
 * Where provider release artifacts come from. Every source — a clusterctl local repository,
 * ConfigMaps in the operator's air-gapped format, GitHub releases, an OCI registry — implements
 * this one interface, so resolution, locking and caching never care which one they talk to.
 * Implementations hold no module state; anything cached lives in an object passed in.
 */

/**
 * Every kind of release source capi-render reads, the prefix of a source's id (`github:…`). Each
 * source builds its id with {@link releaseSourceId}, so this list is the one place a new kind is
 * named, and whatever describes a source by its kind (the SBOM's package URLs) must cover it.
 */
export const RELEASE_SOURCE_KINDS = ['github', 'gitlab', 'oci', 'configmap', 'local'] as const;

export type ReleaseSourceKind = (typeof RELEASE_SOURCE_KINDS)[number];

/** A source's id: `<kind>:<what it reads>`. */
export function releaseSourceId(kind: ReleaseSourceKind, rest: string): string {
  return `${kind}:${rest}`;
}

/** The kind an id names, or undefined for a source of a library caller's own (any other prefix). */
export function releaseSourceKind(id: string): ReleaseSourceKind | undefined {
  const prefix = id.slice(0, id.indexOf(':'));
  return (RELEASE_SOURCE_KINDS as readonly string[]).includes(prefix) ? (prefix as ReleaseSourceKind) : undefined;
}

/** The bytes of one file of one release, with where they came from. */
export interface Artifact {
  /** The file's content, exactly as published (already decompressed if the source stores it gzip'd). */
  bytes: Uint8Array;
  /** A stable address for the lock file and messages (URL, file path or object reference). */
  url: string;
}

/** A version listing and where it came from. */
export interface ReleaseList {
  versions: string[];
  /**
   * ISO-8601 time the list was fetched, when it was read from the cache instead of the source
   * (`plan --offline`); undefined for a list read just now.
   */
  cachedAt?: string;
}

/**
 * Why a source cannot enumerate its releases (a library caller's source: capi-render's own sources
 * all list, GitLab through its Packages API where clusterctl knows only the URL's version).
 * `latest`, ranges and `plan` then say so instead of choosing from a list of one.
 */
export interface UnlistedVersions {
  /** One sentence naming the source and why, for messages. */
  reason: string;
}

export interface ReleaseSource {
  /**
   * Stable identity of the source for the lock file, e.g. `github:kubernetes-sigs/cluster-api`,
   * `local:cluster-api` (a configured local repository: the kind and the label, never its path),
   * `configmap:capi-system/{provider.cluster.x-k8s.io/name=cluster-api}`.
   */
  readonly id: string;
  /** Text for messages: what a user would recognise. */
  readonly description: string;
  /** True when reading the source needs the network (GitHub, OCI); `--offline` then relies on the cache. */
  readonly remote?: boolean;
  /** Set when the source cannot list its releases (see {@link UnlistedVersions}). */
  readonly unlisted?: UnlistedVersions;
  /** Every version the source offers, as published (tags); order is not significant. */
  listVersions(): Promise<string[]>;
  /**
   * The version list with its provenance. Sources wrapped by the build's lock and cache rules
   * implement it; under `--offline` it answers from the list cached on the last online run (with
   * its fetch time) where {@link listVersions} refuses. For reports (`plan`), never for resolving.
   */
  listReleases?(): Promise<ReleaseList>;
  /**
   * One file of one version: the components file or `metadata.yaml`. Throws a FetchError with
   * code `source-not-found` (naming the source, version and file) when it does not exist.
   */
  readFile(version: string, fileName: string): Promise<Artifact>;
}
