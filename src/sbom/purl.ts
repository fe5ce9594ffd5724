/**
 * Package URLs (github.com/package-url/purl-spec) for what an SBOM lists: `pkg:oci/…` for an image
 * pinned by digest, `pkg:github/…` for a release from github.com. Components are percent-encoded;
 * the `/` of an OCI `repository_url` (a path) and its `:` (a port) are left as they are, as the
 * spec's own oci examples write them.
 */

/** encodeURIComponent, except for the characters in `keep`. */
function encode(text: string, keep = ''): string {
  let out = encodeURIComponent(text);
  for (const c of keep) out = out.split(encodeURIComponent(c)).join(c);
  return out;
}

/**
 * `pkg:oci/<name>@sha256%3A<hex>?repository_url=<host/path>&tag=<tag>`: `name` is the last path
 * segment, lowercased; the digest is the version (required: an image run by tag alone has no purl);
 * qualifiers in key order.
 */
export function ociPurl(location: string, digest: string, tag?: string): string {
  const name = location.slice(location.lastIndexOf('/') + 1).toLowerCase();
  const qualifiers = [`repository_url=${encode(location, '/:')}`, ...(tag ? [`tag=${encode(tag)}`] : [])];
  return `pkg:oci/${encode(name)}@${encode(digest)}?${qualifiers.join('&')}`;
}

/** `pkg:github/<owner>/<repo>@<version>` for a source id `github:<owner>/<repo>` (github.com); undefined for any other source. */
export function githubPurl(sourceId: string, version: string): string | undefined {
  const m = /^github:([^/]+)\/([^/]+)$/.exec(sourceId);
  return m ? `pkg:github/${encode(m[1]!.toLowerCase())}/${encode(m[2]!.toLowerCase())}@${encode(version)}` : undefined;
}
