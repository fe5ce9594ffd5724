/**
 * Which proxy a request goes through, decided exactly as Go programs decide it — clusterctl, the
 * operator and every other Go tool read the same variables through golang.org/x/net/http/httpproxy,
 * and a CI runner's settings must mean the same to capi-render.
 *
 * Design notes: docs/internals.md "source/http/proxy-config.ts".
 */
import { BlockList, isIP } from 'node:net';
import { domainToASCII } from 'node:url';

export interface ProxyEnvironment {
  httpProxy?: URL;
  httpsProxy?: URL;
  /** Whether HTTP_PROXY must be refused (REQUEST_METHOD is set). */
  cgi: boolean;
  /** NO_PROXY as parsed; `all` when it holds `*`. */
  noProxy: NoProxyRule[] | 'all';
  /** Values that could not be used as a proxy URL, with the variable's name (credentials removed). */
  problems: string[];
}

type NoProxyRule =
  { kind: 'ip'; list: BlockList; port: string } | { kind: 'domain'; suffix: string; port: string; matchHost: boolean };

/** The proxy for one request: a URL, none (`direct`), or a refusal (CGI). */
export type ProxyDecision = { kind: 'direct' } | { kind: 'proxy'; url: URL } | { kind: 'refused'; reason: string };

const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443', 'socks5:': '1080' };

/** Reads the variables (first non-empty of the upper- and lower-case name, as Go's getEnvAny). */
export function readProxyEnvironment(env: Readonly<Record<string, string | undefined>>): ProxyEnvironment {
  const any = (...names: string[]): string => names.map((n) => env[n]).find((v) => v !== undefined && v !== '') ?? '';
  const problems: string[] = [];
  const proxy = (name: string, value: string): URL | undefined => {
    if (value === '') return undefined;
    const parsed = parseProxyUrl(value);
    if (!parsed)
      problems.push(
        `${name}=${redactProxyUrl(value)} is not a proxy URL (write http://host:port or https://host:port)`,
      );
    else if (!['http:', 'https:', 'socks5:'].includes(parsed.protocol)) {
      problems.push(
        `${name}: ${parsed.protocol.replace(/:$/, '')}:// proxies are not supported (http://, https:// and socks5:// are)`,
      );
      return undefined;
    }
    return parsed;
  };
  return {
    httpProxy: proxy('HTTP_PROXY', any('HTTP_PROXY', 'http_proxy')),
    httpsProxy: proxy('HTTPS_PROXY', any('HTTPS_PROXY', 'https_proxy')),
    cgi: Boolean(env.REQUEST_METHOD),
    noProxy: parseNoProxy(any('NO_PROXY', 'no_proxy')),
    problems,
  };
}

/** Go's parseProxy: a URL with scheme http, https or socks5, or else `http://` + the value. */
function parseProxyUrl(value: string): URL | undefined {
  const parsed = tryUrl(value);
  if (parsed && ['http:', 'https:', 'socks5:'].includes(parsed.protocol)) return parsed;
  // A value naming another scheme (`foo://host`) is kept as that scheme by Go, and then fails.
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) return parsed;
  return tryUrl(`http://${value}`);
}

function tryUrl(value: string): URL | undefined {
  try {
    return new URL(value);
  } catch {
    return undefined;
  }
}

function parseNoProxy(value: string): NoProxyRule[] | 'all' {
  const rules: NoProxyRule[] = [];
  for (const raw of value.split(',')) {
    const entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return 'all';
    const cidr = parseCidr(entry);
    if (cidr) {
      rules.push({ kind: 'ip', list: cidr, port: '' });
      continue;
    }
    const split = splitHostPort(entry);
    const host = split ? split[0] : entry;
    const port = split ? split[1] : '';
    if (host === '') continue;
    const family = isIP(host);
    if (family !== 0) {
      const list = new BlockList();
      list.addAddress(host, family === 4 ? 'ipv4' : 'ipv6');
      rules.push({ kind: 'ip', list, port });
      continue;
    }
    let suffix = host.startsWith('*.') ? host.slice(1) : host;
    const matchHost = !suffix.startsWith('.');
    if (matchHost) suffix = `.${suffix}`;
    rules.push({ kind: 'domain', suffix: asciiHost(suffix), port, matchHost });
  }
  return rules;
}

/** Decides for one request URL. */
export function proxyFor(url: URL, config: ProxyEnvironment): ProxyDecision {
  const proxy = url.protocol === 'https:' ? config.httpsProxy : url.protocol === 'http:' ? config.httpProxy : undefined;
  if (!proxy) return { kind: 'direct' };
  if (url.protocol === 'http:' && config.cgi)
    return {
      kind: 'refused',
      reason:
        'refusing to use HTTP_PROXY value in CGI environment (REQUEST_METHOD is set); see golang.org/s/cgihttpproxy',
    };
  return useProxy(url, config) ? { kind: 'proxy', url: proxy } : { kind: 'direct' };
}

function useProxy(url: URL, config: ProxyEnvironment): boolean {
  const host = asciiHost(url.hostname.replace(/^\[(.*)\]$/, '$1'));
  const port = url.port || DEFAULT_PORTS[url.protocol] || '';
  if (host === 'localhost') return false;
  const family = isIP(host);
  if (family !== 0 && isLoopback(host, family)) return false;
  if (config.noProxy === 'all') return false;
  for (const rule of config.noProxy) {
    if (rule.kind === 'ip') {
      if (
        family !== 0 &&
        rule.list.check(host, family === 4 ? 'ipv4' : 'ipv6') &&
        (rule.port === '' || rule.port === port)
      )
        return false;
    } else if (host.endsWith(rule.suffix) || (rule.matchHost && host === rule.suffix.slice(1))) {
      if (rule.port === '' || rule.port === port) return false;
    }
  }
  return true;
}

function isLoopback(host: string, family: number): boolean {
  const list = new BlockList();
  list.addSubnet('127.0.0.0', 8, 'ipv4');
  list.addAddress('::1', 'ipv6');
  return list.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** `10.0.0.0/8` or an IPv6 prefix, as a BlockList; undefined when the entry is not one. */
function parseCidr(entry: string): BlockList | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(entry);
  if (!m) return undefined;
  const family = isIP(m[1]!);
  const prefix = Number(m[2]);
  if (family === 0 || prefix > (family === 4 ? 32 : 128)) return undefined;
  const list = new BlockList();
  list.addSubnet(m[1]!, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return list;
}

/** Go's net.SplitHostPort: `host:port` or `[v6]:port`; undefined when there is no port part. */
function splitHostPort(value: string): [string, string] | undefined {
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0 || value[end + 1] !== ':') return undefined;
    return [value.slice(1, end), value.slice(end + 2)];
  }
  const colon = value.lastIndexOf(':');
  if (colon < 0 || value.slice(0, colon).includes(':')) return undefined;
  return [value.slice(0, colon), value.slice(colon + 1)];
}

/** A host in its ASCII (punycode) form, as Go's idna.Lookup.ToASCII; unchanged when it is ASCII already or not convertible. */
function asciiHost(host: string): string {
  if (/^[\x00-\x7f]*$/.test(host)) return host;
  const leadingDot = host.startsWith('.');
  const ascii = domainToASCII(leadingDot ? host.slice(1) : host);
  return ascii === '' ? host : `${leadingDot ? '.' : ''}${ascii}`;
}

/** A proxy URL for messages: any user name and password replaced, so credentials are never printed. */
export function redactProxyUrl(value: string | URL): string {
  const text = String(value);
  const schemed = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  const parsed = tryUrl(schemed ? text : `http://${text}`);
  if (!parsed) return text.replace(/^([^/]*\/\/)?[^@/]*@/, '$1***@');
  const credentials = Boolean(parsed.username || parsed.password);
  if (credentials) {
    parsed.username = '***';
    parsed.password = '';
  }
  return schemed ? parsed.toString().replace(/\/$/, '') : `${credentials ? '***@' : ''}${parsed.host}`;
}
