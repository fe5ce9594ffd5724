/**
 * Answers registry authentication challenges the way oras-go v2.6 auth.Client does
 * (registry/remote/auth/client.go): `Basic` → username:password; `Bearer realm,service,scope` →
 * the credential's access token as is, else an OAuth2 refresh-token exchange (POST), else the
 * distribution token flow (GET realm, Basic credentials or anonymous) reading `access_token` or
 * `token`. Tokens are cached per scope inside the authorizer object, never in module state.
 */
import { isIP } from 'node:net';
import { FetchError, error } from '../../errors.js';
import { REGISTRY_JSON_LIMIT } from '../http/body-limits.js';
import { readText } from '../http/bounded-body.js';
import type { OciCredentials } from './oci-credentials.js';

/** A parsed `WWW-Authenticate` header. Scheme is lowercase; parameter names too. */
export interface AuthChallenge {
  scheme: string;
  params: Record<string, string>;
}

/** Keeps the answers to one registry's challenges. */
export interface OciAuthorizer {
  /** The Authorization value to send before any challenge (what an earlier answer left), if any. */
  cached(scope: string): string | undefined;
  /** Answers a 401's challenge for `scope`; throws FetchError `auth` when it cannot. */
  answer(challengeHeader: string | null, scope: string): Promise<string>;
}

/** What an authorizer needs: the registry it answers for, the credential and the transport. */
export interface AuthorizerOptions {
  /** Base URL of the registry (`https://host:port`). */
  registryUrl: URL;
  /** `host:port`, for messages. */
  hostPort: string;
  credentials?: OciCredentials;
  fetchImpl: typeof fetch;
  timeoutMs: number;
}

/** oras' default OAuth2 client id. */
const CLIENT_ID = 'oras-go';

/** Creates an authorizer with an empty cache. */
export function createOciAuthorizer(options: AuthorizerOptions): OciAuthorizer {
  const creds = options.credentials ?? {};
  let basic: string | undefined;
  const bearer = new Map<string, string>();
  const fail = (message: string, hint?: string) =>
    new FetchError(error('auth', `registry ${options.hostPort}: ${message}`, hint === undefined ? {} : { hint }));

  return {
    cached(scope) {
      if (basic !== undefined) return `Basic ${basic}`;
      const token = bearer.get(scope);
      return token === undefined ? undefined : `Bearer ${token}`;
    },
    async answer(challengeHeader, scope) {
      const challenge = parseAuthChallenge(challengeHeader ?? '');
      if (challenge.scheme === 'basic') {
        if (!creds.username || !creds.password) {
          throw fail('asks for a username and password (Basic auth) and none were given', CREDENTIAL_HINT);
        }
        basic = Buffer.from(`${creds.username}:${creds.password}`, 'utf8').toString('base64');
        return `Basic ${basic}`;
      }
      if (challenge.scheme !== 'bearer') {
        throw fail(
          `answered 401 with an authentication scheme capi-render does not speak (${challenge.scheme || 'none'})`,
        );
      }
      const scopes = mergeScopes([scope, ...(challenge.params.scope ?? '').split(' ')]);
      const key = scopes.join(' ');
      const token = await fetchBearerToken(options, creds, challenge.params, scopes, fail);
      bearer.set(scope, token);
      bearer.set(key, token);
      return `Bearer ${token}`;
    },
  };
}

/** The hint for a registry that wants credentials it was not given. */
export const CREDENTIAL_HINT =
  "put OCI_USERNAME and OCI_PASSWORD (or OCI_ACCESS_TOKEN / OCI_REFRESH_TOKEN) in the provider's configSecret";

async function fetchBearerToken(
  options: AuthorizerOptions,
  creds: OciCredentials,
  params: Record<string, string>,
  scopes: string[],
  fail: (message: string, hint?: string) => FetchError,
): Promise<string> {
  if (creds.accessToken) return creds.accessToken;
  const realm = checkRealm(params.realm, options.registryUrl, fail);
  const service = params.service ?? '';
  let response: Response;
  try {
    if (creds.refreshToken) {
      const form = new URLSearchParams({
        grant_type: 'refresh_token',
        refresh_token: creds.refreshToken,
        service,
        client_id: CLIENT_ID,
      });
      if (scopes.length > 0) form.set('scope', scopes.join(' '));
      response = await options.fetchImpl(realm, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: form.toString(),
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } else {
      const url = new URL(realm);
      if (service) url.searchParams.set('service', service);
      for (const s of scopes) url.searchParams.append('scope', s);
      const headers: Record<string, string> = {};
      if (creds.username || creds.password) {
        headers.authorization = `Basic ${Buffer.from(`${creds.username ?? ''}:${creds.password ?? ''}`, 'utf8').toString('base64')}`;
      }
      response = await options.fetchImpl(url, {
        headers,
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    }
  } catch (cause) {
    throw fail(`its token service ${realmForMessage(realm)} could not be reached (${errorName(cause)})`);
  }
  if (response.status !== 200) {
    await response.body?.cancel();
    throw fail(
      `its token service ${realmForMessage(realm)} refused the credentials (HTTP ${response.status})`,
      creds.username || creds.refreshToken ? 'check the OCI_* credentials in the configSecret' : CREDENTIAL_HINT,
    );
  }
  let body: { token?: unknown; access_token?: unknown } = {};
  try {
    body =
      JSON.parse(
        await readText(
          response,
          `registry ${options.hostPort}: the answer of its token service ${realmForMessage(realm)}`,
          REGISTRY_JSON_LIMIT,
        ),
      ) ?? {};
  } catch (cause) {
    // Over the limit or broken off: say so. Not JSON: no token, said below.
    if (cause instanceof FetchError) throw cause;
  }
  // The token spec allows either field; when both are present they are the same token.
  const token = typeof body.access_token === 'string' && body.access_token ? body.access_token : body.token;
  if (typeof token !== 'string' || token === '')
    throw fail(`its token service ${realmForMessage(realm)} returned no token`);
  return token;
}

/**
 * Parses `Basic realm="x"` / `Bearer realm="…",service="…",scope="…"`. Quoted values may contain
 * commas and backslash escapes; an unparseable header yields the scheme with no params.
 */
export function parseAuthChallenge(header: string): AuthChallenge {
  const match = /^\s*([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)\s*(.*)$/s.exec(header);
  if (!match) return { scheme: '', params: {} };
  const params: Record<string, string> = {};
  const pattern = /\s*([A-Za-z0-9_.-]+)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*(?:,|$)/gy;
  const rest = match[2] ?? '';
  let m: RegExpExecArray | null;
  while (pattern.lastIndex < rest.length && (m = pattern.exec(rest)) !== null) {
    const name = (m[1] ?? '').toLowerCase();
    params[name] = m[2] !== undefined ? m[2].replace(/\\(.)/g, '$1') : (m[3] ?? '');
  }
  return { scheme: (match[1] ?? '').toLowerCase(), params };
}

/**
 * Merges scopes `type:name:actions` (oras CleanScopes): actions of one resource are united and
 * sorted, `*` absorbs the others; the result is sorted, so the cache key is stable.
 */
export function mergeScopes(scopes: readonly string[]): string[] {
  const byResource = new Map<string, Set<string>>();
  for (const scope of scopes) {
    const cut = scope.lastIndexOf(':');
    if (cut <= 0 || scope.indexOf(':') === cut) continue;
    const resource = scope.slice(0, cut);
    const actions = byResource.get(resource) ?? new Set<string>();
    for (const action of scope.slice(cut + 1).split(',')) if (action) actions.add(action);
    byResource.set(resource, actions);
  }
  return [...byResource.entries()]
    .filter(([, actions]) => actions.size > 0)
    .map(([resource, actions]) => `${resource}:${actions.has('*') ? '*' : [...actions].sort().join(',')}`)
    .sort();
}

/**
 * oras' validateRealm: only http(s) realms; no http realm for an https registry (it would send the
 * credentials in clear); no loopback/private/link-local IP literal unless it is the registry's own
 * host (a realm must not steer credentials to a metadata service).
 */
function checkRealm(realm: string | undefined, registryUrl: URL, fail: (message: string) => FetchError): string {
  if (!realm) throw fail('asks for a Bearer token but names no realm');
  let url: URL;
  try {
    url = new URL(realm);
  } catch {
    throw fail('names a token realm that is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw fail(`names a token realm with scheme ${url.protocol}`);
  if (url.protocol === 'http:' && registryUrl.protocol === 'https:')
    throw fail(`names a plain-http token realm ${realmForMessage(realm)} for a TLS registry`);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isInternalAddress(host) && url.hostname !== registryUrl.hostname) {
    throw fail(`names a token realm on an internal address (${host}) other than the registry's own`);
  }
  return url.toString();
}

function isInternalAddress(host: string): boolean {
  const family = isIP(host);
  if (family === 4) {
    const [a = 0, b = 0] = host.split('.').map(Number);
    return (
      a === 127 ||
      a === 10 ||
      a === 0 ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 169 && b === 254)
    );
  }
  if (family === 6) {
    const h = host.toLowerCase();
    return h === '::1' || h === '::' || /^fe[89ab]/.test(h) || /^f[cd]/.test(h);
  }
  return false;
}

/** The realm without its query, which could carry anything. */
function realmForMessage(realm: string): string {
  try {
    const url = new URL(realm);
    return `${url.origin}${url.pathname}`;
  } catch {
    return '(unparseable realm)';
  }
}

function errorName(cause: unknown): string {
  if (cause instanceof Error) {
    const code = (cause.cause as { code?: unknown } | undefined)?.code;
    return typeof code === 'string' ? code : cause.name;
  }
  return 'unknown error';
}
