/**
 * capi-render.lock: what every build pinned. Reviewed in pull requests, so it is YAML, sorted, and
 * free of anything run-dependent (no timestamps, no absolute paths of this machine).
 */

export const LOCK_FILE = 'capi-render.lock';
export const LOCK_API_VERSION = 'capi-render/v1alpha1';

/** One fetched file; artifacts are listed once however many environments use them. */
export interface LockedArtifact {
  /**
   * The source's stable id (`github:owner/repo`, `local:label` for a configured local repository,
   * `local:root/label` for a file:// URL, `configmap:ns/{selector}`, `oci:…`).
   */
  source: string;
  version: string;
  file: string;
  url: string;
  sha256: string;
}

export interface LockedProvider {
  /** `Kind/namespace/name` of the provider CR. */
  provider: string;
  /** spec.version as written ('' when empty): a range or `latest` is re-resolved only when this changes. */
  requested: string;
  version: string;
  contract: string;
  source: string;
  /** Names of the variables whose values were used (never the values). */
  variables: string[];
}

export interface LockedEnvironment {
  name: string;
  /**
   * sha256 over everything the environment's output depends on (tool version, capi-render.yaml,
   * templates, its overlays and bases, its lock entries). Equal on the next build → nothing to do.
   * Absent when a variable comes from the process environment (those values are never hashed).
   */
  inputs?: string;
  providers: LockedProvider[];
  /**
   * Names of the CustomResourceDefinitions the environment's output holds, sorted. A build that
   * would drop one fails unless the removal is deliberate: pruning a CRD deletes every object of
   * its kind. Absent in locks written before capi-render recorded it.
   */
  crds?: string[];
  /** The images its output runs that were pinned to a digest (imagePolicy.pinDigests), by LockedImage.image, sorted; digests in LockFile.images. */
  images?: string[];
}

/**
 * One pinned container image: the reference its provider releases, and the digest it runs. The
 * output names the image where it is pulled from (after `images:` overrides) with this digest; a
 * mirror's location is configuration, not part of the pin, so adding or changing an override
 * changes no entry.
 */
export interface LockedImage {
  /**
   * `registry/repository:tag` as the provider releases it: the one released image `images:`
   * overrides turned into the rendered one (images/pin-images.ts lockKey). The rendered reference
   * itself when no override made it (a patch set it) or when overrides turned two released images
   * into it. Locks written before named the rendered reference: still read, re-keyed by the next build.
   */
  image: string;
  /** sha256 of the manifest the tag pointed to (the index of a multi-platform image). */
  digest: string;
  /**
   * The signature check this digest passed (imagePolicy.verify), when a rule applies to it. Bound to
   * the digest (the evidence signs it), not to the registry the signature was read from: the same
   * signature verifies the same digest wherever it is pulled from.
   */
  verified?: LockedVerification;
}

/** What an image's signature was verified against, and what passed. */
export interface LockedVerification {
  /** The rule's id (its fields, and its key's bytes for a key rule): a changed rule must be verified again. */
  rule: string;
  method: 'keyless' | 'key';
  /** Where the signature that passed was: a Sigstore bundle referrer, or cosign's `.sig` tag. */
  format: 'bundle' | 'legacy-tag';
  /** Keyless: the certificate's identity and OIDC issuer. */
  identity?: string;
  issuer?: string;
  /**
   * The signature that passed, as found (images/verify/verification-evidence.ts): every build,
   * `check` and `--frozen` verify it again offline against the rule and the trusted root, so this
   * record proves itself. Absent in locks written before capi-render kept it: `build` then verifies
   * the image again from its registry, `check` and `--frozen` refuse.
   */
  evidence?: string;
}

/** sha256 of one input file (line endings and BOM normalised), so a changed input can be named. */
export interface LockedInputFile {
  /** Repository-relative, `/`-separated. */
  file: string;
  sha256: string;
}

/**
 * The baseline a lock was made under: the clusterctl whose code and provider list are reproduced,
 * the operator release when the operator is emulated (absent for clusterctl), the contract and the
 * operator API of the provider CRs.
 */
export interface LockEmulates {
  clusterctl: string;
  operator?: string;
  contract: string;
  operatorApi: string;
}

export interface LockFile {
  apiVersion: typeof LOCK_API_VERSION;
  kind: 'Lock';
  /** What capi-render reproduces (capi-render.yaml `emulate:`); written by every build. */
  emulates?: LockEmulates;
  environments: LockedEnvironment[];
  artifacts: LockedArtifact[];
  /** Pinned images, listed once however many environments run them. Absent when nothing is pinned. */
  images?: LockedImage[];
  /** Every input file capi-render reads (capi-render.yaml, providers/, overlays/, templates/), sorted. */
  inputFiles?: LockedInputFile[];
}

export function emptyLock(): LockFile {
  return { apiVersion: LOCK_API_VERSION, kind: 'Lock', environments: [], artifacts: [] };
}
