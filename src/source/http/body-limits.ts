/**
 * How much of each kind of network body capi-render reads (docs/sources-and-lock.md, "Network
 * answers are bounded"). Every body is read through bounded-body.ts with one of these; a body
 * past its limit is an error (a message body is cut instead), never a reason to hold more memory.
 */

const KiB = 1024;
const MiB = 1024 * KiB;

/** One kind of body: how many bytes are read at most, and how messages name the limit. */
export interface BodyLimit {
  /** The most bytes read; a body of exactly this many bytes is accepted. */
  readonly maxBytes: number;
  /** The limit as a message ends a sentence with: `the 4 MiB limit for manifests and indexes`. */
  readonly phrase: string;
  /** What to do about a body over it. */
  readonly hint: string;
}

function limit(maxBytes: number, kind: string, hint: string): BodyLimit {
  return { maxBytes, phrase: `the ${formatBytes(maxBytes)} limit for ${kind}`, hint };
}

/**
 * Image manifests and indexes, OCI referrers lists (an index): what the distribution spec asks every registry to
 * accept (containerd caps manifests near it).
 */
export const MANIFEST_LIMIT = limit(
  4 * MiB,
  'manifests and indexes',
  'a manifest is a few kilobytes: check the registry, and any proxy between here and it',
);

/** A registry's JSON answers besides manifests: tag-list pages (1000 tags are ~50 KiB) and token answers (a token is a few KiB). */
export const REGISTRY_JSON_LIMIT = limit(
  4 * MiB,
  'registry tag lists and token answers',
  'check the registry and its token service, and any proxy between here and them',
);

/**
 * GitHub and GitLab API answers: one page of 100 releases or packages. A GitHub release carries its
 * notes (up to 125 000 characters) and every asset's record, so a page of a busy project runs to
 * megabytes; 32 MiB leaves a wide margin and still bounds what a broken server can cost.
 */
export const API_PAGE_LIMIT = limit(
  32 * MiB,
  'GitHub and GitLab API answers',
  'check the API base URL, and any proxy between here and it',
);

/**
 * A release file: a GitHub release asset, a GitLab package file, a layer of an OCI provider
 * artifact. Provider components are a few MiB (cluster-api v1.12.0's core-components.yaml is
 * 1.4 MB); 128 MiB is ample and keeps a runaway download from exhausting memory.
 */
export const RELEASE_ASSET_LIMIT = limit(
  128 * MiB,
  'release files',
  'a provider release file is a few MiB: check the URL, the release, and any proxy between here and it',
);

/** Signature payloads and Sigstore bundles (a few KiB each): `maxBytes` as the reader chooses, 4 MiB by default. */
export function signatureLimit(maxBytes = 4 * MiB): BodyLimit {
  return limit(
    maxBytes,
    'signatures and Sigstore bundles',
    'a signature or bundle is a few KiB: check what the signature manifest points to',
  );
}

/**
 * A layer `mirror --images` copies: read into memory, then uploaded (never more than its declared
 * size, and its digest checked). The layers of provider and cert-manager images are tens of MiB; a
 * manifest declaring more than this is refused before anything is read.
 */
export const MIRRORED_BLOB_LIMIT = limit(
  1024 * MiB,
  'image layers mirror --images copies',
  'copy an image with larger layers with skopeo or crane; mirror --images copies each layer through memory',
);

/** A blob whose descriptor gives no size (only a caller's own reads; a manifest's descriptors always have one). */
export const UNSIZED_BLOB_LIMIT = limit(
  4 * MiB,
  'blobs without a declared size',
  'check the registry, and any proxy between here and it',
);

/** An error answer read only for its message: cut at this size, never an error of its own. */
export const MESSAGE_LIMIT_BYTES = 64 * KiB;

/** A blob read by its descriptor: exactly `size` bytes, the digest checked afterwards. */
export function blobLimit(size: number): BodyLimit {
  return {
    maxBytes: size,
    phrase: `the ${size} bytes its descriptor declares`,
    hint: 'the registry sent other content than the manifest describes; check the registry, and any proxy between here and it',
  };
}

/** `4 MiB`, `64 KiB`, `1234 bytes`: whole units only where they are exact. */
export function formatBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes / MiB} MiB`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes / KiB} KiB`;
  return `${bytes} bytes`;
}
