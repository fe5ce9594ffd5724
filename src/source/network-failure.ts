import { proxyOfFailure } from './http/network-fetch.js';

/**
 * What a failed connection means and what to do about it, shared by every network source (GitHub,
 * GitLab, OCI registries). A name that does not resolve, a refused connection or a certificate the
 * machine does not trust fails the same way on the next try, so those are never retried; resets and
 * timeouts may pass, so they are. The hint names every way to build without a direct connection.
 */

/** System error codes (and TLS verification codes) that no retry can fix. */
const PERMANENT = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'ECONNREFUSED',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'CERT_HAS_EXPIRED',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

const TLS_TRUST = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
]);

/** capi-render's own codes for a proxy setting that cannot be used; their message is the reason. */
const PROXY_SETTING = new Set(['ERR_PROXY_INVALID', 'ERR_PROXY_REFUSED']);

/** The first system error code in an error's cause chain (`ENOTFOUND`, `ECONNREFUSED`…), if any. */
function networkCode(cause: unknown): { code: string; message: string } | undefined {
  let current: unknown = cause;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code))
      return { code, message: typeof message === 'string' ? message : '' };
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * The most specific reason in an error's cause chain: a system error code (`ENOTFOUND`,
 * `ECONNREFUSED`…), `timed out`, or the innermost message. Never includes a URL's credentials:
 * only codes and messages of the transport are read.
 */
export function networkReason(cause: unknown): string {
  const coded = networkCode(cause);
  if (coded) return PROXY_SETTING.has(coded.code) ? coded.message : coded.code;
  let current: unknown = cause;
  let reason = 'network error';
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const { name, message } = current as { name?: unknown; message?: unknown };
    if (name === 'TimeoutError') return 'timed out';
    if (typeof message === 'string' && message !== '') reason = message;
    current = (current as { cause?: unknown }).cause;
  }
  return reason;
}

/** True when retrying cannot help: the name does not resolve, nothing listens, TLS trust fails, or a proxy setting is unusable. */
export function isPermanentNetworkFailure(cause: unknown): boolean {
  const code = networkCode(cause)?.code;
  return code !== undefined && (PERMANENT.has(code) || PROXY_SETTING.has(code));
}

/** `host`, or `host through proxy http://proxy:3128` (credentials removed) when the request went through one. */
export function unreachableTarget(host: string, cause: unknown): string {
  const proxy = proxyOfFailure(cause);
  return proxy ? `${host} through proxy ${proxy}` : host;
}

/**
 * The hint for a host that could not be reached: what the reason suggests, then every way to
 * build without reaching it — a local repository (`repositories:` in capi-render.yaml, which
 * `capi-render init --local-repository DIR` writes), `capi-render mirror` run on a connected
 * machine, the proxy variables, or `--offline` with a warm cache.
 */
export function unreachableHint(host: string, reason: string): string {
  const first = TLS_TRUST.has(reason)
    ? `the certificate of ${host} is not trusted here; behind a TLS-inspecting proxy, point NODE_EXTRA_CA_CERTS at its CA certificate. Otherwise: `
    : reason === 'ENOTFOUND' || reason === 'EAI_AGAIN' || reason === 'EAI_NONAME'
      ? `${host} does not resolve from here (no network, or DNS only through a proxy). `
      : '';
  return (
    `${first}To build without reaching ${host}: read releases from a local repository (\`repositories:\` in capi-render.yaml; ` +
    '`capi-render init --local-repository DIR` writes it), fill one with `capi-render mirror --to DIR` on a connected machine, ' +
    'set HTTPS_PROXY / HTTP_PROXY / NO_PROXY behind a proxy, or use --offline with a cache that a connected build filled'
  );
}
