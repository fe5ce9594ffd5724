/**
 * Provider URLs in the `oci://` scheme of cluster-api's OCI proposal (PR #14033, not merged;
 * oci-capi-layout.ts): `oci://{registry}/{repository}`, the repository holding one tag per version,
 * optionally pinned to one artifact with `@sha256:…`. Written wherever a provider URL goes — a
 * provider CR's `spec.fetchConfig.url`, a capi-render.yaml `providers:` entry (clusterctl's
 * `providers:` list, as the proposal's Story 3 overrides it) — exactly as the proposal writes it.
 *
 * Design notes: docs/internals.md "source/oci/oci-url.ts".
 */
import { SpecError, error, type Location } from '../../errors.js';
import { isOciDigest } from './oci-digest.js';
import { parseOciReference, type OciReference } from './oci-reference.js';

/** The URL scheme. */
export const OCI_URL_SCHEME = 'oci://';

/** Every accepted form, for hints. */
export const OCI_URL_FORMS =
  'oci://registry[:port]/repository, oci://registry[:port]/repository:tag or oci://registry[:port]/repository@sha256:<64 hex>';

/** A parsed `oci://` URL. */
export interface OciUrl extends OciReference {
  /** The pinned manifest digest, when the URL has one. */
  digest?: string;
}

/** True for a URL in the `oci://` scheme (any letter case, as URL schemes are). */
export function isOciUrl(url: string): boolean {
  return url.slice(0, OCI_URL_SCHEME.length).toLowerCase() === OCI_URL_SCHEME;
}

/** Parses an `oci://` URL; SpecError `source-unsupported` at `where` when it is not one of {@link OCI_URL_FORMS}. */
export function parseOciUrl(text: string, where: Location = {}): OciUrl {
  const fail = (why: string): never => {
    throw new SpecError(
      error('source-unsupported', `provider URL ${JSON.stringify(text)} is not valid: ${why}`, {
        ...where,
        hint: `use ${OCI_URL_FORMS}`,
      }),
    );
  };
  if (!isOciUrl(text)) fail('it does not start with oci://');
  let rest = text.slice(OCI_URL_SCHEME.length);
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) fail('a second scheme follows oci://');
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!isOciDigest(digest)) fail(`${JSON.stringify(digest)} is not a sha256 or sha512 digest`);
  }
  let ref: OciReference;
  try {
    ref = parseOciReference(rest);
  } catch (cause) {
    const why =
      cause instanceof SpecError
        ? (cause.diagnostics[0]?.message ?? '').replace(/^OCI reference "[^"]*" is not valid: /, '')
        : String(cause);
    return fail(why);
  }
  const url: OciUrl = { ...ref, plainHttp: isLoopback(ref.registry) };
  if (digest !== undefined) url.digest = digest;
  return url;
}

/** The URL written back: `oci://registry/repository[:tag][@digest]`. */
export function formatOciUrl(url: OciUrl): string {
  return `${OCI_URL_SCHEME}${url.registry}/${url.repository}${url.tag === undefined ? '' : `:${url.tag}`}${url.digest === undefined ? '' : `@${url.digest}`}`;
}

function isLoopback(registry: string): boolean {
  const host = registry.replace(/:\d+$/, '').toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}
