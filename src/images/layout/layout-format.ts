/**
 * The OCI image layout (image-spec `image-layout.md`) as `mirror --images --to DIR` writes it and
 * `mirror --images --from DIR` reads it: `oci-layout`, `index.json`, `blobs/<alg>/<hex>`. Pure:
 * bytes in, checked values out; every problem is a SpecError naming the file.
 *
 * `index.json` lists one entry per pinned image and per cosign `.sig` tag, each named by the
 * `org.opencontainers.image.ref.name` annotation (`registry/repository:tag`, the reference the lock
 * pins, which skopeo's `oci:DIR:<ref>` reads), and one per referrer (Sigstore bundle, attestation),
 * unnamed — it is not a tag — and annotated with the name of the image it refers to.
 */
import { SpecError, error } from '../../errors.js';
import { isOciDigest } from '../../source/oci/oci-digest.js';
import {
  MEDIA_TYPE_DOCKER_MANIFEST_LIST,
  MEDIA_TYPE_OCI_INDEX,
  MEDIA_TYPE_OCI_MANIFEST,
} from '../../source/oci/oci-media-types.js';

export const OCI_LAYOUT_FILE = 'oci-layout';
export const INDEX_FILE = 'index.json';
export const REF_NAME = 'org.opencontainers.image.ref.name';
/** On a referrer's entry: the ref name of the image it refers to (a referrer has no tag of its own). */
export const SUBJECT_ANNOTATION = 'dev.capi-render.referrer-of';
export const LAYOUT_VERSION_TEXT = '{"imageLayoutVersion":"1.0.0"}\n';
/** A layout's `index.json` is an image index: the manifest limit applies. */
export const INDEX_LIMIT_BYTES = 4 * 1024 * 1024;

const INDEX_TYPES = new Set([MEDIA_TYPE_OCI_INDEX, MEDIA_TYPE_DOCKER_MANIFEST_LIST]);
/** Layers registries do not serve (Windows base layers): they stay out of the folder, as the registry copy leaves them. */
const FOREIGN_LAYER = /(?:\.foreign\.|\.nondistributable\.)/;
/**
 * A ref name: the characters of image-spec's grammar, a little wider (`__` and a leading `_` of a
 * tag, which image references allow); what it names is parsed as an image reference when used.
 */
const REF_NAME_GRAMMAR = /^[A-Za-z0-9_](?:[A-Za-z0-9._:@+-]|\/(?![/.]))*$/;
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;

/** One entry of `index.json`. */
export interface LayoutEntry {
  mediaType: string;
  digest: string;
  size: number;
  /** Images and `.sig` tags: `registry/repository:tag`. */
  refName?: string;
  /** Referrers: the ref name of the image they refer to. */
  referrerOf?: string;
  artifactType?: string;
}

/** A descriptor inside a manifest or index, checked. */
export interface LayoutDescriptor {
  mediaType: string;
  digest: string;
  size: number;
}

/** `blobs/<alg>/<hex>` of a digest (the caller checked it with isOciDigest). */
export function blobPath(digest: string): string {
  const [algorithm, hex] = digest.split(':');
  return `blobs/${algorithm}/${hex}`;
}

/** True for an index (OCI or Docker manifest list). */
export function isIndexType(mediaType: string): boolean {
  return INDEX_TYPES.has(mediaType);
}

/** `index.json` bytes: entries by ref name (named first), then by what they refer to, then digest; keys in a fixed order. */
export function layoutIndexBytes(entries: readonly LayoutEntry[]): Uint8Array {
  const key = (e: LayoutEntry) =>
    `${e.refName === undefined ? '1' : '0'}${e.refName ?? e.referrerOf ?? ''}\u0000${e.digest}`;
  const unique = new Map(entries.map((e) => [key(e), e]));
  const manifests = [...unique.keys()].sort().map((k) => {
    const e = unique.get(k)!;
    const annotations =
      e.refName !== undefined
        ? { [REF_NAME]: e.refName }
        : e.referrerOf !== undefined
          ? { [SUBJECT_ANNOTATION]: e.referrerOf }
          : undefined;
    return {
      mediaType: e.mediaType,
      digest: e.digest,
      size: e.size,
      ...(e.artifactType !== undefined ? { artifactType: e.artifactType } : {}),
      ...(annotations ? { annotations } : {}),
    };
  });
  return new TextEncoder().encode(
    `${JSON.stringify({ schemaVersion: 2, mediaType: MEDIA_TYPE_OCI_INDEX, manifests }, null, 2)}\n`,
  );
}

/** Checks an `oci-layout` file: JSON with imageLayoutVersion 1.x. */
export function checkLayoutVersion(bytes: Uint8Array, file: string): void {
  const json = parseJson(bytes, file);
  const version = json.imageLayoutVersion;
  if (typeof version !== 'string' || !/^1\.\d+\.\d+$/.test(version)) {
    throw layoutError(
      file,
      `imageLayoutVersion is ${JSON.stringify(version)}, not 1.x.y`,
      'write the folder with capi-render mirror --images --to DIR (or any tool that writes an OCI image layout)',
    );
  }
}

/** Parses `index.json` into its entries; refuses anything that is not an image index of checked descriptors. */
export function parseLayoutIndex(bytes: Uint8Array, file: string): LayoutEntry[] {
  if (bytes.length > INDEX_LIMIT_BYTES)
    throw layoutError(file, `is ${bytes.length} bytes, over the 4 MiB limit for an index`);
  const json = parseJson(bytes, file);
  if (json.schemaVersion !== 2)
    throw layoutError(file, `schemaVersion is ${JSON.stringify(json.schemaVersion)}, not 2`);
  if (!Array.isArray(json.manifests)) throw layoutError(file, 'has no manifests list');
  return json.manifests.map((m: unknown, i: number) => {
    const where = `${file} manifests[${i}]`;
    const d = checkDescriptor(m, where);
    const annotations = (m as Record<string, unknown>).annotations;
    const entry: LayoutEntry = { ...d };
    if (annotations !== undefined) {
      if (!isRecord(annotations)) throw layoutError(where, 'annotations is not an object');
      const ref = annotations[REF_NAME];
      if (ref !== undefined) {
        if (typeof ref !== 'string' || !REF_NAME_GRAMMAR.test(ref) || ref.length > 512)
          throw layoutError(where, `${REF_NAME} ${JSON.stringify(ref)} is not a reference`);
        entry.refName = ref;
      }
      const of = annotations[SUBJECT_ANNOTATION];
      if (of !== undefined) {
        if (typeof of !== 'string' || !REF_NAME_GRAMMAR.test(of) || of.length > 512)
          throw layoutError(where, `${SUBJECT_ANNOTATION} ${JSON.stringify(of)} is not a reference`);
        entry.referrerOf = of;
      }
    }
    const artifactType = (m as Record<string, unknown>).artifactType;
    if (artifactType !== undefined) {
      if (typeof artifactType !== 'string' || !MEDIA_TYPE.test(artifactType))
        throw layoutError(where, 'artifactType is not a media type');
      entry.artifactType = artifactType;
    }
    return entry;
  });
}

/**
 * What a manifest (or index) points to: child manifests of an index, the config and layers of an
 * image manifest (foreign layers left out). `mediaType` is the descriptor's; the manifest's own
 * field wins when present.
 */
export function manifestChildren(
  bytes: Uint8Array,
  mediaType: string,
  where: string,
): { mediaType: string; manifests: LayoutDescriptor[]; blobs: LayoutDescriptor[] } {
  if (bytes.length > INDEX_LIMIT_BYTES)
    throw layoutError(where, `is ${bytes.length} bytes, over the 4 MiB limit for a manifest`);
  const json = parseJson(bytes, where);
  // mediaType is optional in an OCI manifest or index; without it, a manifests list makes an index.
  const own =
    typeof json.mediaType === 'string'
      ? json.mediaType
      : mediaType || (Array.isArray(json.manifests) ? MEDIA_TYPE_OCI_INDEX : MEDIA_TYPE_OCI_MANIFEST);
  if (isIndexType(own)) {
    if (!Array.isArray(json.manifests)) throw layoutError(where, 'is an index without a manifests list');
    return {
      mediaType: own,
      manifests: json.manifests.map((m: unknown, i: number) => checkDescriptor(m, `${where} manifests[${i}]`)),
      blobs: [],
    };
  }
  const blobs: LayoutDescriptor[] = [];
  if (json.config !== undefined) blobs.push(checkDescriptor(json.config, `${where} config`));
  if (json.layers !== undefined && !Array.isArray(json.layers)) throw layoutError(where, 'layers is not a list');
  for (const [i, layer] of ((json.layers as unknown[] | undefined) ?? []).entries()) {
    const d = checkDescriptor(layer, `${where} layers[${i}]`);
    const urls = (layer as Record<string, unknown>).urls;
    if (FOREIGN_LAYER.test(d.mediaType) && Array.isArray(urls) && urls.length > 0) continue;
    blobs.push(d);
  }
  return { mediaType: own, manifests: [], blobs };
}

function checkDescriptor(value: unknown, where: string): LayoutDescriptor {
  if (!isRecord(value)) throw layoutError(where, 'is not a descriptor object');
  const { mediaType, digest, size } = value;
  if (typeof mediaType !== 'string' || !MEDIA_TYPE.test(mediaType))
    throw layoutError(where, `mediaType ${JSON.stringify(mediaType)} is not a media type`);
  if (typeof digest !== 'string' || !isOciDigest(digest))
    throw layoutError(where, `digest ${JSON.stringify(digest)} is not a sha256 or sha512 digest`);
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0)
    throw layoutError(where, `size ${JSON.stringify(size)} is not a byte count`);
  return { mediaType, digest, size };
}

function parseJson(bytes: Uint8Array, file: string): Record<string, unknown> {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
  } catch {
    throw layoutError(file, 'is not UTF-8 JSON');
  }
  if (!isRecord(json)) throw layoutError(file, 'is not a JSON object');
  return json;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A problem with the folder's content, naming where; the hint says to write it again. */
export function layoutError(
  where: string,
  problem: string,
  hint = 'write the folder again with capi-render mirror --images --to DIR where the registry is reachable',
): SpecError {
  return new SpecError(error('image', `${where}: ${problem}`, { hint }));
}
