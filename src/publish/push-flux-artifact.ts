/**
 * Pushes a packed Flux artifact with capi-render's OCI client: the config and layer blobs (each
 * skipped when the registry has it), then the manifest under the tag. The reference is
 * `registry/repository:tag` as everywhere in capi-render (`http://` for a plain-HTTP registry), or
 * Flux's `oci://registry/repository:tag`.
 */
import { SpecError, error } from '../errors.js';
import { createOciClient } from '../source/oci/oci-client.js';
import type { OciCredentials } from '../source/oci/oci-credentials.js';
import { MEDIA_TYPE_OCI_MANIFEST } from '../source/oci/oci-media-types.js';
import { formatOciReference, parseOciReference, type OciReference } from '../source/oci/oci-reference.js';
import type { FluxArtifact } from './flux-artifact.js';
import {
  attachSignatures,
  type ArtifactSigner,
  type PreparedSignatures,
  type SignTarget,
  type SignedArtifact,
} from './sign-artifact.js';
import { createSignatureRegistry } from './sign-registry.js';

/** Parses `--oci`: a tag is required (Flux follows it, or the digest printed after the push). */
export function parsePublishReference(text: string): OciReference & { tag: string } {
  const ref = parseOciReference(text.startsWith('oci://') ? text.slice('oci://'.length) : text, { field: '--oci' });
  if (ref.tag === undefined) {
    throw new SpecError(
      error('publish', `--oci ${text} has no tag`, {
        field: '--oci',
        hint: `add the tag to push under, e.g. ${formatOciReference({ ...ref, tag: 'v1.0.0' })}`,
      }),
    );
  }
  return { ...ref, tag: ref.tag };
}

/**
 * Pushes and returns the manifest digest (checked against what the registry stored). `fetchImpl`
 * is the transport every other network path uses (the CLI's proxy-aware fetch, so HTTPS_PROXY,
 * HTTP_PROXY and NO_PROXY apply to the push too); default: the global fetch.
 */
export async function pushFluxArtifact(
  ref: OciReference & { tag: string },
  artifact: FluxArtifact,
  credentials: OciCredentials | undefined,
  fetchImpl?: typeof fetch,
): Promise<string> {
  const client = createOciClient({
    registry: ref.registry,
    plainHttp: ref.plainHttp,
    ...(credentials ? { credentials } : {}),
    ...(fetchImpl ? { fetchImpl } : {}),
  });
  await client.pushBlob(ref.repository, artifact.config);
  await client.pushBlob(ref.repository, artifact.layer);
  return client.pushManifest(ref.repository, ref.tag, artifact.manifest, MEDIA_TYPE_OCI_MANIFEST);
}

/** Where `artifact` is signed: its repository (the payload's docker-reference), digest and size. */
export function signTarget(ref: OciReference, artifact: FluxArtifact): SignTarget {
  return {
    repositoryName: `${ref.registry}/${ref.repository}`,
    digest: artifact.manifestDigest,
    size: artifact.manifest.length,
  };
}

/**
 * Pushes the signatures {@link prepareSignatures} made for an artifact {@link pushFluxArtifact}
 * pushed (sign-artifact.ts: the `.sig` signature and the bundle referrer), through the same
 * credentials and transport.
 */
export async function attachArtifactSignatures(
  ref: OciReference,
  prepared: PreparedSignatures,
  signer: ArtifactSigner,
  credentials: OciCredentials | undefined,
  fetchImpl?: typeof fetch,
): Promise<SignedArtifact> {
  return attachSignatures(prepared, signer, createSignatureRegistry(ref, credentials, fetchImpl));
}
