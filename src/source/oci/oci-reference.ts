/**
 * `spec.fetchConfig.oci` references, read the way the cluster-api-operator reads them
 * (internal/controller/oci_source.go parseOCISource, then oras-go's remote.NewRepository):
 * `registry/repo[:tag]`, `host:port/repo[:tag]` and the same behind `http://` (plain HTTP).
 * There is no Docker Hub defaulting: the first path segment is always the registry.
 */
import { SpecError, error, type Location } from '../../errors.js';

/** One parsed reference. `registry` is `host` or `host:port` exactly as written. */
export interface OciReference {
  registry: string;
  /** Repository path inside the registry, e.g. `capi/cluster-api`. */
  repository: string;
  /** The tag, when the reference carries one; it overrides `spec.version`. */
  tag?: string;
  /** True for `http://…`: talk to the registry without TLS. */
  plainHttp: boolean;
}

/** Every accepted form, for hints. */
export const OCI_REF_FORMS =
  'registry/repository[:tag], host:port/repository[:tag], http://host[:port]/repository[:tag] (plain HTTP) or https://… (TLS, the default)';

// The distribution reference grammar (distribution/reference regexp.go): lowercase path
// components joined by `.`, `_`, `__` or runs of `-`, separated by `/`.
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REPOSITORY = new RegExp(`^${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`);
const TAG = /^[\w][\w.-]{0,127}$/;
const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
const IPV6 = /^\[[0-9A-Fa-f:.]+\]$/;

/**
 * Parses an OCI reference. Throws a SpecError with code `source-unsupported` (carrying `where`,
 * e.g. the CR and `spec.fetchConfig.oci`) when the text is not one of {@link OCI_REF_FORMS}.
 * Digests (`@sha256:…`) are rejected: the operator's parser cuts the reference at the last `:`
 * and oras then fails on `repo@sha256`, so a digest reference never works there either.
 */
export function parseOciReference(text: string, where: Location = {}): OciReference {
  const fail = (why: string): never => {
    throw new SpecError(
      error('source-unsupported', `OCI reference ${JSON.stringify(text)} is not valid: ${why}`, {
        ...where,
        hint: `use ${OCI_REF_FORMS}`,
      }),
    );
  };
  let rest = text;
  let plainHttp = false;
  if (rest.startsWith('http://')) {
    plainHttp = true;
    rest = rest.slice('http://'.length);
  } else if (rest.startsWith('https://')) {
    // capi-render extension: the operator has no https:// form (TLS is its default anyway).
    rest = rest.slice('https://'.length);
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) {
    fail('only http:// and https:// may prefix a reference');
  }
  if (rest.includes('@')) fail('digest references (@sha256:…) are not supported by the operator; use a tag');
  const slash = rest.indexOf('/');
  if (slash < 0) fail('it names no registry (the operator needs registry/repository)');
  const registry = rest.slice(0, slash);
  let repository = rest.slice(slash + 1);
  let tag: string | undefined;
  // The registry part holds the only possible port, so a `:` after the first `/` starts the tag.
  const colon = repository.lastIndexOf(':');
  if (colon >= 0) {
    tag = repository.slice(colon + 1);
    repository = repository.slice(0, colon);
    if (!TAG.test(tag)) fail(`tag ${JSON.stringify(tag)} is not a valid tag ([A-Za-z0-9_][A-Za-z0-9_.-]{0,127})`);
  }
  const registryProblem = checkRegistry(registry);
  if (registryProblem) fail(registryProblem);
  if (!REPOSITORY.test(repository)) {
    fail(
      `repository ${JSON.stringify(repository)} is not a valid repository name (lowercase letters, digits, separators . _ __ - and /)`,
    );
  }
  return tag === undefined ? { registry, repository, plainHttp } : { registry, repository, tag, plainHttp };
}

/** The reference written back in the operator's form (`http://` only when plain HTTP). */
export function formatOciReference(ref: OciReference): string {
  return `${ref.plainHttp ? 'http://' : ''}${ref.registry}/${ref.repository}${ref.tag === undefined ? '' : `:${ref.tag}`}`;
}

/** `host:port` of the registry with the scheme's default port filled in (443, or 80 for plain HTTP). */
export function registryHostPort(ref: Pick<OciReference, 'registry' | 'plainHttp'>): string {
  const hasPort = /:\d+$/.test(ref.registry);
  return hasPort ? ref.registry : `${ref.registry}:${ref.plainHttp ? 80 : 443}`;
}

function checkRegistry(registry: string): string | undefined {
  if (registry === '') return 'the registry is empty';
  const match = /^(.*?)(?::(\d+))?$/.exec(registry);
  const host = match?.[1] ?? '';
  const port = match?.[2];
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) return `port ${port} is out of range`;
  if (!HOST_NAME.test(host) && !IPV6.test(host))
    return `registry ${JSON.stringify(registry)} is not a host or host:port`;
  return undefined;
}
