/**
 * The name of an image reference before its tag and digest, the part signature rules and the
 * release-name mapping compare. Kept apart from the verification code so that naming an image never
 * loads the Sigstore libraries.
 */

/** `registry.k8s.io/capi/x:v1@sha256:…` → `registry.k8s.io/capi/x`. */
export function imageName(reference: string): string {
  const at = reference.indexOf('@');
  const withoutDigest = at >= 0 ? reference.slice(0, at) : reference;
  const colon = withoutDigest.lastIndexOf(':');
  return colon > withoutDigest.lastIndexOf('/') ? withoutDigest.slice(0, colon) : withoutDigest;
}
