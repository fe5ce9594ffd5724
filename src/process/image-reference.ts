/**
 * Container image references as clusterctl reads them (`util/container.ImageFromString`, built on
 * distribution/reference v0.6.0 `ParseNamed`): the text must already be the canonical, fully
 * qualified form — `docker.io/library/nginx:1.0`, not `nginx:1.0` — and is split into repository
 * (everything before the last path segment), name (the last segment), tag and digest.
 */

// The grammar of distribution/reference (regexp.go), rebuilt piece by piece.
const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const DOMAIN_AND_PORT = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[(?:[a-fA-F0-9:]+)\\])(?::[0-9]+)?`;
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9A-Fa-f]{32,}';
const IMAGE_REF_PATTERN = new RegExp(`^((?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const NAME = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`);
const IDENTIFIER = /^[a-f0-9]{64}$/;
const MAX_PATH_LENGTH = 255;

/** Digest algorithms clusterctl registers (crypto/sha256 and crypto/sha512), with their hex length. */
const DIGEST_HEX_LENGTH: Readonly<Record<string, number>> = { sha256: 64, sha384: 96, sha512: 128 };

/** A parsed image; empty strings for an absent tag or digest, as in clusterctl's `container.Image`. */
export interface ImageReference {
  /** Registry and path before the last segment, e.g. `registry.k8s.io/cluster-api`. */
  repository: string;
  /** The last path segment, e.g. `cluster-api-controller`. */
  name: string;
  tag: string;
  /** `algorithm:hex`, e.g. `sha256:…`. */
  digest: string;
}

/**
 * `ok`, or why not: `not-canonical` when the text is a valid but familiar/short form (the only
 * failure the operator's second pass tolerates; `normalized` is the canonical spelling), `invalid`
 * for anything else.
 */
export type ParseImageResult =
  | { kind: 'ok'; image: ImageReference }
  | { kind: 'not-canonical'; normalized: string; reason: string }
  | { kind: 'invalid'; reason: string };

/** Parses `text` like distribution/reference `ParseNamed` + clusterctl `ImageFromString`. Pure. */
export function parseImageReference(text: string): ParseImageResult {
  const normalized = parseNormalizedName(text);
  if (typeof normalized === 'string') return { kind: 'invalid', reason: normalized };
  const full = formatParts(normalized.name, normalized.tag, normalized.digest);
  if (full !== text) return { kind: 'not-canonical', normalized: full, reason: 'repository name must be canonical' };
  const slash = normalized.name.lastIndexOf('/');
  return {
    kind: 'ok',
    image: {
      repository: normalized.name.slice(0, slash),
      name: normalized.name.slice(slash + 1),
      tag: normalized.tag,
      digest: normalized.digest,
    },
  };
}

/** `repository/name[:tag][@digest]`, clusterctl's `Image.String()`. */
export function formatImageReference(image: ImageReference): string {
  return formatParts(`${image.repository}/${image.name}`, image.tag, image.digest);
}

function formatParts(name: string, tag: string, digest: string): string {
  return `${name}${tag === '' ? '' : `:${tag}`}${digest === '' ? '' : `@${digest}`}`;
}

interface NormalizedName {
  /** Domain and path, e.g. `docker.io/library/nginx`. */
  name: string;
  tag: string;
  digest: string;
}

/** distribution/reference `ParseNormalizedNamed`: the parsed reference, or an error reason. */
function parseNormalizedName(text: string): NormalizedName | string {
  if (IDENTIFIER.test(text)) return `invalid repository name (${text}), cannot specify 64-byte hexadecimal strings`;
  const [domain, remainder] = splitDockerDomain(text);
  const colon = remainder.indexOf(':');
  const remote = colon < 0 ? remainder : remainder.slice(0, colon);
  if (remote.toLowerCase() !== remote) return `invalid reference format: repository name (${remote}) must be lowercase`;

  const candidate = `${domain}/${remainder}`;
  const match = IMAGE_REF_PATTERN.exec(candidate);
  if (match === null) {
    const lower = candidate.toLowerCase();
    return lower !== candidate && IMAGE_REF_PATTERN.test(lower)
      ? 'repository name must be lowercase'
      : 'invalid reference format';
  }
  const name = match[1] ?? '';
  const path = NAME.exec(name)?.[2] ?? name;
  if (path.length > MAX_PATH_LENGTH) return `repository name must not be more than ${MAX_PATH_LENGTH} characters`;
  const digest = match[3] ?? '';
  if (digest !== '') {
    const problem = checkDigest(digest);
    if (problem !== undefined) return problem;
  }
  return { name, tag: match[2] ?? '', digest };
}

/**
 * distribution/reference `splitDockerDomain`: `index.docker.io` becomes `docker.io`; a first
 * segment is a registry when it is `localhost`, contains `.` or `:`, or has upper case; otherwise
 * Docker Hub is implied. A Docker Hub name with a single path segment gets `library/`.
 */
function splitDockerDomain(text: string): [string, string] {
  const slash = text.indexOf('/');
  if (slash < 0) return ['docker.io', `library/${text}`];
  const first = text.slice(0, slash);
  const after = text.slice(slash + 1);
  let domain: string;
  let remote: string;
  if (first === 'index.docker.io') {
    [domain, remote] = ['docker.io', after];
  } else if (first === 'localhost' || /[.:]/.test(first) || first.toLowerCase() !== first) {
    [domain, remote] = [first, after];
  } else {
    [domain, remote] = ['docker.io', text];
  }
  if (domain === 'docker.io' && !remote.includes('/')) remote = `library/${remote}`;
  return [domain, remote];
}

/** go-digest `Digest.Validate` for the algorithms clusterctl links in. */
function checkDigest(digest: string): string | undefined {
  const colon = digest.indexOf(':');
  const algorithm = digest.slice(0, colon);
  const encoded = digest.slice(colon + 1);
  const length = DIGEST_HEX_LENGTH[algorithm];
  if (length === undefined) return `unsupported digest algorithm in ${digest}`;
  if (encoded.length !== length) return `invalid checksum digest length in ${digest}`;
  if (!/^[a-f0-9]+$/.test(encoded)) return `invalid checksum digest format in ${digest}`;
  return undefined;
}
