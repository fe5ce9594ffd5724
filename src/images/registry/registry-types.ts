/**
 * The registry client's public shapes: where an image lives, what a tag resolves to, what a copy
 * reports, the client's options and calls, and the manifests and referrers signatures are read from.
 */
/** Where an image lives. */
export interface ImageLocation {
  /** `host[:port]` as written in the image reference; `docker.io` is talked to at its API host. */
  registry: string;
  /** The path inside the registry, e.g. `cluster-api/cluster-api-controller`, `library/nginx`. */
  repository: string;
}

/** What a tag points to. */
export interface ResolvedImage {
  /** `sha256:…` of the index (manifest list) for a multi-platform image, of the manifest otherwise. */
  digest: string;
  mediaType: string;
  /** `os/architecture[/variant]` of an index's entries, attestations (`unknown/unknown`) left out; `[]` for a single manifest. */
  platforms: string[];
}

/** How far a copy is; sent after the manifests are read and after each blob. */
export interface CopyProgress {
  /** The source, `registry/repository@sha256:…`. */
  image: string;
  /** Bytes of the blobs done so far — copied, mounted, or already in the target. */
  copiedBytes: number;
  totalBytes: number;
  blobsDone: number;
  blobsTotal: number;
}

export interface ImageRegistryOptions {
  /** HOME, DOCKER_CONFIG, DOCKER_AUTH_CONFIG and PATH are read from here only, never from process.env. */
  env: Readonly<Record<string, string | undefined>>;
  /** The proxy-aware fetch (source/http/network-fetch.ts). Default: the global fetch. */
  fetch?: typeof fetch;
  /** `host[:port]` entries talked to over plain HTTP; they never get credentials. */
  insecureRegistries?: readonly string[];
  /** Per registry host (from a pull secret the user references); wins over the docker config. Secret. */
  credentials?: Readonly<Record<string, { username: string; password: string }>>;
  onProgress?: (p: CopyProgress) => void;
  /** Per request (and per credential helper run). Default: 30 000 ms. */
  timeoutMs?: number;
}

export interface ImageRegistry {
  /**
   * One GET of /v2/<repo>/manifests/<tag> with all four manifest types in Accept (at most 4 MiB
   * read): the digest is that of the bytes, and a Docker-Content-Digest that disagrees is refused
   * (`digest-mismatch`). An index's platforms come with the same answer.
   */
  resolve(image: ImageLocation & { tag: string }): Promise<ResolvedImage>;
  /**
   * Copies index + every child manifest (attestation manifests included) + every blob by digest into
   * `to`, tagging the result with `tag` (without one, the top manifest is pushed by its digest: a
   * referrer); skips blobs the target has (so an interrupted copy resumes), mounts across repositories
   * of the same registry; returns the digest written (must equal `from.digest`).
   */
  copy(from: ImageLocation & { digest: string }, to: ImageLocation & { tag?: string }): Promise<string>;
  /** Pushes a manifest (an index capi-render made, such as a referrers fallback index) under a tag or its digest; returns the digest the registry stored. */
  pushManifest(image: ImageLocation & { reference: string }, bytes: Uint8Array, mediaType: string): Promise<string>;
  /** How many HTTP requests went to each registry host so far (for tests and the bench). */
  requestCount(host: string): number;
  /**
   * A manifest (image manifest or index) by tag or digest, verified against the digest asked for
   * or announced; undefined when the registry has no such manifest (404). For reading signatures:
   * the `sha256-<hex>.sig` tag, the referrers fallback tag, a referrer by digest.
   */
  manifest(image: ImageLocation & { reference: string }): Promise<ImageManifest | undefined>;
  /**
   * The referrers of a manifest (OCI 1.1): `GET /v2/<repo>/referrers/<digest>` (with `artifactType`
   * as a filter, applied here too whether or not the registry did, and `Link` pages followed on the
   * registry's origin); a registry without the referrers API answers 404 (some 400, 405 or 501), and then the
   * `sha256-<hex>` fallback tag's index is read instead (absent: no referrers).
   */
  referrers(image: ImageLocation & { digest: string }, options?: { artifactType?: string }): Promise<ImageReferrers>;
  /**
   * A blob's bytes, verified against digest (and size); never more than its size is read, and a size (or,
   * without one, a body) over `maxBytes` (default 4 MiB) is refused.
   */
  blob(image: ImageLocation & { digest: string; size?: number }, options?: { maxBytes?: number }): Promise<Uint8Array>;
  /** An image layer or config by its descriptor, for writing it to a folder: exactly `size` bytes (refused above the mirror's layer limit), verified. */
  layer(image: ImageLocation & { digest: string; size: number }): Promise<Uint8Array>;
  /** Uploads a blob unless the repository has it already (a HEAD first); returns its digest. */
  pushBlob(image: ImageLocation, bytes: Uint8Array): Promise<string>;
}

/** A manifest read by {@link ImageRegistry.manifest}: bytes verified against `digest`. */
export interface ImageManifest {
  digest: string;
  mediaType: string;
  bytes: Uint8Array;
  json: Record<string, unknown>;
}

/** One entry of a referrers list (an OCI index's `manifests`). */
export interface ReferrerDescriptor {
  mediaType: string;
  digest: string;
  size: number;
  artifactType?: string;
  annotations?: Record<string, string>;
}

/** What {@link ImageRegistry.referrers} found, and where. */
export interface ImageReferrers {
  /** `api`: the referrers API answered; `fallback-tag`: it is missing (404) and the `sha256-<hex>` tag was read; `none`: neither exists. */
  source: 'api' | 'fallback-tag' | 'none';
  /** The tag read for `fallback-tag` and `none` (`sha256-<hex>`). */
  fallbackTag: string;
  /** In the registry's order; only those of the asked `artifactType` when one was given. */
  manifests: ReferrerDescriptor[];
}
