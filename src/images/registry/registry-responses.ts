/**
 * What the registry client reads out of answers, and small helpers it runs them with: registry
 * keys and token scopes, media types, an index's platforms, checked descriptors and referrers,
 * distribution error codes, `Link` pagination, bounded concurrency. Pure functions, no state.
 */
import { FetchError, error, type DiagnosticCode } from '../../errors.js';
import { readMessage } from '../../source/http/bounded-body.js';
import { isOciDigest } from '../../source/oci/oci-digest.js';
import { MEDIA_TYPE_OCI_INDEX, MEDIA_TYPE_OCI_MANIFEST } from '../../source/oci/oci-media-types.js';
import { convertToHostname } from './docker-credentials.js';
import type { ReferrerDescriptor } from './registry-types.js';

/** Docker Hub's name, as image references write it. */
export const DOCKER_HUB = 'docker.io';
/** Docker Hub's other names, all one registry. */
const DOCKER_HUB_ALIASES = new Set(['docker.io', 'index.docker.io', 'registry-1.docker.io']);

/** An entry of a manifest list or index, as checked by {@link descriptors}. */
export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  platform?: { os?: unknown; architecture?: unknown; variant?: unknown };
  annotations?: Record<string, unknown>;
  urls?: unknown;
}

/** The key registries are compared by: host[:port], lower case, a scheme dropped; Docker Hub's names are `docker.io`. */
export function registryKey(registry: string): string {
  const host = convertToHostname(registry.trim()).toLowerCase();
  return DOCKER_HUB_ALIASES.has(host) ? DOCKER_HUB : host;
}

/** The token scope of reading a repository. */
export const pullScope = (repository: string) => `repository:${repository}:pull`;
/** The token scope of writing a repository. */
export const pushScope = (repository: string) => `repository:${repository}:pull,push`;

/** Content-Type without parameters. */
export function mediaTypeOf(response: Response): string {
  return (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
}

/** What a manifest without `mediaType` (allowed for OCI) is, from its shape. */
export function guessMediaType(json: Record<string, unknown>): string {
  if (json.schemaVersion !== 2) return '';
  if (Array.isArray(json.manifests)) return MEDIA_TYPE_OCI_INDEX;
  if (isRecord(json.config) && Array.isArray(json.layers)) return MEDIA_TYPE_OCI_MANIFEST;
  return '';
}

/** `os/architecture[/variant]` of an index's platform entries, attestation manifests left out, each once. */
export function platformsOf(index: Record<string, unknown>): string[] {
  const out: string[] = [];
  for (const entry of Array.isArray(index.manifests) ? index.manifests : []) {
    if (!isRecord(entry) || !isRecord(entry.platform)) continue;
    const { os, architecture, variant } = entry.platform;
    if (typeof os !== 'string' || typeof architecture !== 'string') continue;
    const annotations = isRecord(entry.annotations) ? entry.annotations : {};
    if (
      (os === 'unknown' && architecture === 'unknown') ||
      annotations['vnd.docker.reference.type'] === 'attestation-manifest'
    )
      continue;
    const platform = `${os}/${architecture}${typeof variant === 'string' && variant !== '' ? `/${variant}` : ''}`;
    if (!out.includes(platform)) out.push(platform);
  }
  return out;
}

/** Checked descriptors of a manifest list, so digests and sizes can be trusted. */
export function descriptors(
  value: unknown,
  what: string,
  fail: (code: DiagnosticCode, message: string) => FetchError,
): Descriptor[] {
  if (!Array.isArray(value)) throw fail('fetch', `${what} has no descriptor list`);
  return value.map((entry, i) => {
    if (
      !isRecord(entry) ||
      typeof entry.mediaType !== 'string' ||
      typeof entry.digest !== 'string' ||
      !isOciDigest(entry.digest)
    ) {
      throw fail('fetch', `${what}: entry ${i} is not a descriptor with a sha256/sha512 digest`);
    }
    if (typeof entry.size !== 'number' || !Number.isSafeInteger(entry.size) || entry.size < 0)
      throw fail('fetch', `${what}: entry ${i} has no valid size`);
    return entry as unknown as Descriptor;
  });
}

/** The distribution error codes of a response body (`{"errors":[{"code":…}]}`); only its first 64 KiB are read. */
export async function errorCodes(response: Response): Promise<string[]> {
  const text = await readMessage(response);
  try {
    const parsed = JSON.parse(text) as { errors?: { code?: unknown }[] };
    return (parsed.errors ?? []).map((e) => e.code).filter((c): c is string => typeof c === 'string');
  } catch {
    return [];
  }
}

/** The first system error code in a cause chain. */
export function causeCode(cause: unknown): string | undefined {
  let current: unknown = cause;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Runs `run` over `items`, at most `limit` at once; the first failure is thrown once all have stopped. */
export async function forEachLimit<T>(
  items: readonly T[],
  limit: number,
  run: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async () => {
    while (failure === undefined && next < items.length) {
      const item = items[next++] as T;
      try {
        await run(item);
      } catch (e) {
        failure ??= { error: e };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
}

/** The checked entries of a referrers index; annotations that are not strings are dropped. */
export function referrerDescriptors(index: Record<string, unknown>, what: string): ReferrerDescriptor[] {
  const fail = (code: DiagnosticCode, message: string) => new FetchError(error(code, message));
  const list = index.manifests === undefined || index.manifests === null ? [] : index.manifests;
  return descriptors(list, what, fail).map((d) => {
    const out: ReferrerDescriptor = { mediaType: d.mediaType, digest: d.digest, size: d.size };
    const raw = d as unknown as Record<string, unknown>;
    if (typeof raw.artifactType === 'string') out.artifactType = raw.artifactType;
    if (isRecord(raw.annotations)) {
      const annotations = Object.fromEntries(
        Object.entries(raw.annotations).filter((e): e is [string, string] => typeof e[1] === 'string'),
      );
      if (Object.keys(annotations).length > 0) out.annotations = annotations;
    }
    return out;
  });
}

/** The `rel="next"` URL of a `Link` header, resolved against the request's URL. */
export function nextPage(link: string | null, base: URL): URL | undefined {
  if (!link) return undefined;
  for (const part of link.split(',')) {
    const match = /<([^>]*)>\s*;\s*rel="?next"?/i.exec(part.trim());
    if (match?.[1] !== undefined) {
      try {
        return new URL(match[1], base);
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

/** A JSON object (not an array, not null). */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
