/**
 * Publishes provider files as one OCI artifact in the layout of the cluster-api-operator's
 * `publish` plugin (cmd/plugin/cmd/publish.go: an oras file store, oras.PackManifest with
 * PackManifestVersion1_1, oras-go v2.6.2), so the operator and capi-render both read it:
 * - an OCI image manifest with `artifactType: application/vnd.acme.config`;
 * - the empty JSON config (`application/vnd.oci.empty.v1+json`, `{}`, inlined as `data: e30=`);
 * - one layer per file, media type `application/vnd.test.file`, annotated only with
 *   `org.opencontainers.image.title: <file name>` (what the oras file store adds for a file);
 * - serialised as Go's encoding/json does (struct field order, `<>&` escaped).
 * One deliberate difference: oras stamps `org.opencontainers.image.created` with the current time;
 * it is left out so that the same files always give the same manifest digest. Nothing reads it.
 */
import { SpecError, error } from '../../errors.js';
import { createOciClient } from './oci-client.js';
import type { OciCredentials } from './oci-credentials.js';
import { computeOciDigest } from './oci-digest.js';
import {
  ANNOTATION_TITLE,
  EMPTY_JSON_CONFIG,
  MEDIA_TYPE_OCI_MANIFEST,
  PUBLISH_ARTIFACT_TYPE,
  PUBLISH_LAYER_MEDIA_TYPE,
} from './oci-media-types.js';
import { formatOciReference, parseOciReference } from './oci-reference.js';

/** One file of the artifact: its layer title and content. */
export interface OciFile {
  name: string;
  bytes: Uint8Array;
}

/** Where and what to publish. */
export interface PublishOciInput {
  /** Where to push, with a tag: `registry/repo:tag`, `http://host:port/repo:tag`, … */
  reference: string;
  files: readonly OciFile[];
  credentials?: OciCredentials;
  /** Default: the global `fetch`. */
  fetchImpl?: typeof fetch;
  /** Per registry request. Default: 30 000 ms. */
  timeoutMs?: number;
}

/** The manifest of an artifact, before pushing: its bytes and digest. */
export interface PackedOciArtifact {
  manifest: Uint8Array;
  manifestDigest: string;
  /** The files in layer order (sorted by name, as `publish -d` reads a directory). */
  layers: OciFile[];
}

/**
 * Builds the artifact manifest for `files`. Pure and deterministic: layers are sorted by name
 * (byte order, as os.ReadDir sorts), so the same set of files always gives the same digest.
 * Throws SpecError `source-unsupported` for no files, an empty name or a repeated name (the oras
 * file store refuses duplicates too).
 */
export function packOciArtifact(files: readonly OciFile[]): PackedOciArtifact {
  const problems: string[] = [];
  if (files.length === 0) problems.push('there are no files to publish');
  const seen = new Set<string>();
  for (const f of files) {
    if (f.name === '') problems.push('a file has an empty name');
    else if (seen.has(f.name)) problems.push(`file name ${JSON.stringify(f.name)} is given twice`);
    seen.add(f.name);
  }
  if (problems.length > 0) {
    throw new SpecError(
      problems.map((p) =>
        error('source-unsupported', `cannot publish: ${p}`, {
          hint: 'give each file once, with the name the operator looks for (e.g. metadata.yaml, core-components.yaml)',
        }),
      ),
    );
  }
  const layers = [...files].sort((a, b) => Buffer.compare(Buffer.from(a.name, 'utf8'), Buffer.from(b.name, 'utf8')));
  // Key order is the Go struct order of ocispec.Manifest / ocispec.Descriptor; `subject` and
  // `annotations` are omitted as Go's omitempty does when they are unset.
  const manifest = {
    schemaVersion: 2,
    mediaType: MEDIA_TYPE_OCI_MANIFEST,
    artifactType: PUBLISH_ARTIFACT_TYPE,
    config: {
      mediaType: EMPTY_JSON_CONFIG.mediaType,
      digest: EMPTY_JSON_CONFIG.digest,
      size: EMPTY_JSON_CONFIG.size,
      data: EMPTY_JSON_CONFIG.data,
    },
    layers: layers.map((f) => ({
      mediaType: PUBLISH_LAYER_MEDIA_TYPE,
      digest: computeOciDigest(f.bytes),
      size: f.bytes.length,
      annotations: { [ANNOTATION_TITLE]: f.name },
    })),
  };
  const bytes = new TextEncoder().encode(goJson(manifest));
  return {
    manifest: bytes,
    manifestDigest: computeOciDigest(bytes),
    layers: layers.map((f) => ({ name: f.name, bytes: f.bytes })),
  };
}

/**
 * Pushes `files` as one artifact and tags it: the config blob and the layers first (each skipped
 * when the registry already has it), then the manifest. Throws SpecError `source-unsupported` for
 * a reference without a tag; registry problems are FetchErrors (`auth`, `fetch`, …).
 */
export async function publishOciArtifact(input: PublishOciInput): Promise<{ manifestDigest: string }> {
  const ref = parseOciReference(input.reference);
  if (ref.tag === undefined) {
    throw new SpecError(
      error('source-unsupported', `cannot publish to ${formatOciReference(ref)}: the reference has no tag`, {
        hint: `add the tag to push under, e.g. ${formatOciReference({ ...ref, tag: 'v1.0.0' })}`,
      }),
    );
  }
  const packed = packOciArtifact(input.files);
  const client = createOciClient({
    registry: ref.registry,
    plainHttp: ref.plainHttp,
    credentials: input.credentials,
    fetchImpl: input.fetchImpl,
    timeoutMs: input.timeoutMs,
  });
  await client.pushBlob(ref.repository, Buffer.from('{}', 'utf8'));
  for (const layer of packed.layers) await client.pushBlob(ref.repository, layer.bytes);
  await client.pushManifest(ref.repository, ref.tag, packed.manifest, MEDIA_TYPE_OCI_MANIFEST);
  return { manifestDigest: packed.manifestDigest };
}

/** JSON as Go's encoding/json writes it: no spaces, and `<`, `>`, `&`, U+2028, U+2029 escaped. */
function goJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
