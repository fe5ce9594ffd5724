/**
 * The `imagePolicy:` setting (capi-render.yaml, then each overlay field by field): what a build
 * does with container images. Owned here, composed into the settings by config/config-types.ts.
 */
import type { VerifyRule } from './verify/verify-rules-schema.js';

/** What the build does with container images (docs/images.md "Images: pinning, signatures, SBOM"). */
export interface ImagePolicyConfig {
  /** Resolve every image of the output to its digest and render `repo:tag@sha256:…`, locked. Default false. */
  pinDigests?: boolean;
  /** `host:port` of registries reached over plain HTTP (never with credentials). Default: none. */
  insecureRegistries?: string[];
  /** A `kubernetes.io/dockerconfigjson` Secret among the inputs with registry credentials. Default: none (docker config and anonymous). */
  pullSecret?: { name: string; namespace: string };
  /** Signature rules: the first whose `images` glob matches an image must be satisfied (cosign keyless or key). Needs pinDigests. Default: none. */
  verify?: VerifyRule[];
  /** A Sigstore trusted_root.json (repository-relative) instead of the public-good root shipped with capi-render. */
  trustedRoot?: string;
}
