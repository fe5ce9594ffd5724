/**
 * The `fetch` every network source uses (GitHub, GitLab, OCI registries), with the proxy variables
 * honoured as Go tools honour them (proxy-config.ts). Node 20's global fetch ignores HTTPS_PROXY;
 * here a request that proxy-config routes through a proxy is sent with undici's ProxyAgent — CONNECT
 * tunnels for https://, absolute-form requests for http:// (as Go's Transport sends them) — and
 * every other request with the global fetch. undici is loaded only when a proxy is configured, so a
 * build without one pays nothing for it.
 *
 * A failure through a proxy carries the proxy's address (credentials removed, see
 * {@link proxyOfFailure}) so messages can say which hop failed.
 */
import { redactProxyUrl, proxyFor, readProxyEnvironment } from './proxy-config.js';
import type * as UndiciLibrary from 'undici';
import type { Dispatcher } from 'undici';

type Undici = typeof UndiciLibrary;

/** The global fetch's signature. */
export type NetworkFetch = typeof fetch;

/** The part of fetch the sources call (a URL string and options); the global fetch and {@link NetworkFetch} fit. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Property set on a failure's cause when the request went through a proxy: its redacted URL. */
const PROXY_PROPERTY = 'capiRenderProxy';

/**
 * A fetch for this environment's proxy settings. Without a proxy variable it is the global fetch
 * itself. Throws nothing at creation; a proxy variable that is not a URL fails every request it
 * would apply to, naming the variable (never its credentials).
 */
export function createNetworkFetch(env: Readonly<Record<string, string | undefined>>): NetworkFetch {
  const config = readProxyEnvironment(env);
  if (!config.httpProxy && !config.httpsProxy && config.problems.length === 0) return globalThis.fetch;
  let undici: Promise<Undici> | undefined;
  const agents = new Map<string, Promise<Dispatcher>>();
  const agentFor = (proxy: URL, target: URL): Promise<Dispatcher> => {
    // Go's Transport tunnels only https://; an http:// request goes to the proxy in absolute form.
    const tunnel = target.protocol === 'https:';
    const key = `${proxy.href} ${tunnel}`;
    let agent = agents.get(key);
    if (!agent) {
      agent = (undici ??= import('undici')).then(
        ({ ProxyAgent }) => new ProxyAgent({ uri: proxy.href, proxyTunnel: tunnel }),
      );
      agents.set(key, agent);
    }
    return agent;
  };

  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const decision = proxyFor(url, config);
    if (decision.kind === 'direct') {
      const problem = config.problems.find((p) =>
        p.startsWith(url.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY'),
      );
      if (problem) throw failure(problem, 'ERR_PROXY_INVALID');
      return globalThis.fetch(input, init);
    }
    if (decision.kind === 'refused') throw failure(decision.reason, 'ERR_PROXY_REFUSED');
    const shown = redactProxyUrl(decision.url);
    const dispatcher = await agentFor(decision.url, url);
    const { fetch: undiciFetch } = await (undici ??= import('undici'));
    try {
      // undici's Response is the class Node's own fetch is built from; callers use the common API.
      return await undiciFetch(url, { ...(init as object), dispatcher });
    } catch (cause) {
      markProxy(cause, shown);
      throw cause;
    }
  };
}

/** A {@link FetchLike} as the global fetch's signature, for clients that pass URL objects. */
export function asFetch(send: FetchLike): NetworkFetch {
  return (input: string | URL | Request, init?: RequestInit) =>
    send(input instanceof Request ? input.url : String(input), init ?? {});
}

/** The redacted proxy URL a failed request went through, if it went through one. */
export function proxyOfFailure(cause: unknown): string | undefined {
  let current: unknown = cause;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth++) {
    const proxy = (current as Record<string, unknown>)[PROXY_PROPERTY];
    if (typeof proxy === 'string') return proxy;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

function markProxy(cause: unknown, shown: string): void {
  if (typeof cause === 'object' && cause !== null) (cause as Record<string, unknown>)[PROXY_PROPERTY] = shown;
}

/** A failure shaped like fetch's own (`TypeError: fetch failed` with a coded cause); the codes are network-failure.ts's proxy-setting codes. */
function failure(message: string, code: string): TypeError {
  return new TypeError('fetch failed', { cause: Object.assign(new Error(message), { code }) });
}
