/**
 * Reading manifest JSON: an OCI image manifest (`layers`), the OCI 1.1-rc artifact manifest
 * (`blobs`) or a Docker schema 2 manifest. Only what a provider artifact needs is kept — the
 * layer descriptors with their annotations — and every descriptor is checked, so later code can
 * trust digests and sizes.
 */
import { FetchError, error } from '../../errors.js';
import { isOciDigest } from './oci-digest.js';

/** A content descriptor (image-spec descriptor.md), the fields capi-render uses. */
export interface OciDescriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** The parts of a manifest a provider artifact needs. */
export interface OciManifest {
  mediaType?: string;
  artifactType?: string;
  /** The layers (`layers`, or `blobs` of an artifact manifest), in manifest order. */
  layers: OciDescriptor[];
  /** The manifest's own annotations (the cluster-api layout identifies the provider there). */
  annotations?: Record<string, string>;
}

/** Parses manifest bytes; throws FetchError `source-unsupported` naming `what` when they are not a manifest. */
export function parseOciManifest(bytes: Uint8Array, what: string): OciManifest {
  const bad = (why: string) =>
    new FetchError(
      error('source-unsupported', `${what} is not a usable manifest: ${why}`, {
        hint: 'publish the artifact with capioperator publish, oras push or capi-render',
      }),
    );
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw bad('it is not JSON');
  }
  if (!isRecord(parsed)) throw bad('it is not a JSON object');
  const list = parsed.layers ?? parsed.blobs;
  if (!Array.isArray(list)) throw bad('it has no layers');
  const layers = list.map((entry, index) => {
    const problem = descriptorProblem(entry);
    if (problem) throw bad(`layer ${index}: ${problem}`);
    return entry as OciDescriptor;
  });
  const manifest: OciManifest = { layers };
  if (typeof parsed.mediaType === 'string') manifest.mediaType = parsed.mediaType;
  if (typeof parsed.artifactType === 'string') manifest.artifactType = parsed.artifactType;
  const annotations = parsed.annotations;
  if (annotations !== undefined) {
    if (!isRecord(annotations) || Object.values(annotations).some((v) => typeof v !== 'string'))
      throw bad('its annotations are not a string map');
    manifest.annotations = annotations as Record<string, string>;
  }
  return manifest;
}

function descriptorProblem(entry: unknown): string | undefined {
  if (!isRecord(entry)) return 'not an object';
  if (typeof entry.mediaType !== 'string') return 'no mediaType';
  if (typeof entry.digest !== 'string' || !isOciDigest(entry.digest))
    return `digest ${JSON.stringify(entry.digest)} is not a sha256/sha512 digest`;
  if (typeof entry.size !== 'number' || !Number.isSafeInteger(entry.size) || entry.size < 0)
    return 'size is not a non-negative integer';
  const annotations = entry.annotations;
  if (
    annotations !== undefined &&
    (!isRecord(annotations) || Object.values(annotations).some((v) => typeof v !== 'string'))
  ) {
    return 'annotations are not a string map';
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
