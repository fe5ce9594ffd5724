/**
 * Proxy selection as Go's golang.org/x/net/http/httpproxy decides it (the variables clusterctl and
 * every Go tool read): which variable applies to which scheme, precedence of upper case, scheme-less
 * values, the loopback rule, and every NO_PROXY form — host suffixes, leading dots, `*.`, ports,
 * IPs, CIDRs, IPv6, `*` and malformed entries. Cases written from httpproxy's documented behaviour.
 */
import { describe, expect, it } from 'vitest';
import { proxyFor, readProxyEnvironment, redactProxyUrl } from '../../src/source/http/proxy-config.js';

const decide = (env: Record<string, string | undefined>, url: string): string => {
  const d = proxyFor(new URL(url), readProxyEnvironment(env));
  return d.kind === 'proxy' ? d.url.toString().replace(/\/$/, '') : d.kind;
};

describe('which proxy a request uses', () => {
  it.each([
    { env: { HTTP_PROXY: '127.0.0.1:8080' }, url: 'http://example.com', want: 'http://127.0.0.1:8080' },
    {
      env: { HTTP_PROXY: 'cache.corp.example.com:1234' },
      url: 'http://example.com',
      want: 'http://cache.corp.example.com:1234',
    },
    { env: { HTTP_PROXY: 'cache.corp.example.com' }, url: 'http://example.com', want: 'http://cache.corp.example.com' },
    { env: { HTTP_PROXY: 'localhost' }, url: 'http://example.com', want: 'http://localhost' },
    {
      env: { HTTP_PROXY: 'https://cache.corp.example.com' },
      url: 'http://example.com',
      want: 'https://cache.corp.example.com',
    },
    { env: { HTTP_PROXY: 'socks5://127.0.0.1' }, url: 'http://example.com', want: 'socks5://127.0.0.1' },
    // The scheme picks the variable; https never falls back to HTTP_PROXY.
    {
      env: { HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'secure.proxy.tld' },
      url: 'http://insecure.tld/',
      want: 'http://http.proxy.tld',
    },
    {
      env: { HTTP_PROXY: 'http.proxy.tld', HTTPS_PROXY: 'secure.proxy.tld' },
      url: 'https://secure.tld/',
      want: 'http://secure.proxy.tld',
    },
    { env: { HTTP_PROXY: 'http.proxy.tld' }, url: 'https://secure.tld/', want: 'direct' },
    { env: {}, url: 'https://api.github.com/', want: 'direct' },
    // Upper case wins; an empty value counts as unset.
    {
      env: { HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:2' },
      url: 'https://x.io',
      want: 'http://upper:1',
    },
    { env: { HTTPS_PROXY: '', https_proxy: 'http://lower:2' }, url: 'https://x.io', want: 'http://lower:2' },
    // CGI: HTTP_PROXY may be attacker-controlled; HTTPS_PROXY is still used.
    { env: { HTTP_PROXY: 'http://10.1.2.3:8080', REQUEST_METHOD: 'GET' }, url: 'http://example.com', want: 'refused' },
    {
      env: { HTTPS_PROXY: 'https://secure.proxy.tld', REQUEST_METHOD: 'GET' },
      url: 'https://secure.tld/',
      want: 'https://secure.proxy.tld',
    },
    // NO_PROXY domain forms.
    { env: { HTTP_PROXY: 'proxy', NO_PROXY: 'example.com' }, url: 'http://example.com/', want: 'direct' },
    { env: { HTTP_PROXY: 'proxy', NO_PROXY: 'example.com' }, url: 'http://foo.example.com/', want: 'direct' },
    { env: { HTTP_PROXY: 'proxy', NO_PROXY: '.example.com' }, url: 'http://example.com/', want: 'http://proxy' },
    { env: { HTTP_PROXY: 'proxy', NO_PROXY: 'ample.com' }, url: 'http://example.com/', want: 'http://proxy' },
    { env: { HTTP_PROXY: 'proxy', NO_PROXY: '.foo.com' }, url: 'http://example.com/', want: 'http://proxy' },
    { env: { HTTP_PROXY: 'proxy', no_proxy: 'EXAMPLE.com' }, url: 'http://Example.COM/', want: 'direct' },
    { env: { HTTP_PROXY: 'proxy', NO_PROXY: '.示例.com' }, url: 'http://www.示例.com', want: 'direct' },
    { env: { HTTP_PROXY: 'proxy', NO_PROXY: 'xn--fsq092h.com' }, url: 'http://www.示例.com', want: 'direct' },
    { env: { HTTP_PROXY: 'proxy', NO_PROXY: '示例.com' }, url: 'http://www.xn--fsq092h.com', want: 'direct' },
    // Ports: the request's is its scheme's default when the URL has none.
    { env: { HTTPS_PROXY: 'proxy', NO_PROXY: 'ghe.corp:443' }, url: 'https://ghe.corp/api/v3', want: 'direct' },
    {
      env: { HTTPS_PROXY: 'proxy', NO_PROXY: 'ghe.corp:443' },
      url: 'https://ghe.corp:8443/api/v3',
      want: 'http://proxy',
    },
    {
      env: { HTTP_PROXY: 'proxy', NO_PROXY: 'registry.corp:5000' },
      url: 'http://registry.corp:5000/v2/',
      want: 'direct',
    },
  ])('$env → $url: $want', ({ env, url, want }) => {
    expect(decide(env, url)).toBe(want);
  });

  // httpproxy's own NO_PROXY list and hosts (port 80 requests), with what Go decides for each.
  const NO_PROXY =
    'foobar.com, .barbaz.net, *.wildcard.io, 192.168.1.1, 192.168.1.2:81, 192.168.1.3:80, 10.0.0.0/30, 2001:db8::52:0:1, [2001:db8::52:0:2]:443, [2001:db8::52:0:3]:80, 2002:db8:a::45/64';
  it.each([
    ['localhost', false],
    ['127.0.0.1', false],
    ['127.0.0.2', false],
    ['[::1]', false],
    ['[::2]', true],
    ['192.168.1.1', false],
    ['192.168.1.2', true],
    ['192.168.1.3', false],
    ['192.168.1.4', true],
    ['10.0.0.2', false],
    ['10.0.0.4', true],
    ['[2001:db8::52:0:1]', false],
    ['[2001:db8::52:0:2]', true],
    ['[2001:db8::52:0:3]', false],
    ['[2002:db8:a::123]', false],
    ['[fe80::424b:c8be:1643:a1b6]', true],
    ['barbaz.net', true],
    ['www.barbaz.net', false],
    ['foobar.com', false],
    ['www.foobar.com', false],
    ['foofoobar.com', true],
    ['baz.com', true],
    ['localhost.net', true],
    ['local.localhost', true],
    ['barbarbaz.net', true],
    ['wildcard.io', true],
    ['nested.wildcard.io', false],
    ['awildcard.io', true],
  ] as const)('NO_PROXY list: %s proxied=%s', (host, proxied) => {
    expect(decide({ HTTP_PROXY: 'http://proxy:3128', NO_PROXY }, `http://${host}:80/`) !== 'direct').toBe(proxied);
    // `*` anywhere in the list turns proxying off for every host.
    expect(decide({ HTTP_PROXY: 'http://proxy:3128', NO_PROXY: `example.org, *` }, `http://${host}:80/`)).toBe(
      'direct',
    );
  });

  it('skips a malformed NO_PROXY entry instead of failing', () => {
    expect(decide({ HTTP_PROXY: 'proxy', NO_PROXY: ':1, ,' }, 'http://example.com/')).toBe('http://proxy');
  });

  it('reports a value that cannot be a proxy URL by variable name, never its credentials', () => {
    const env = readProxyEnvironment({ HTTPS_PROXY: 'ftp://user:Secret@proxy:21', HTTP_PROXY: 'http://[bad' });
    expect(env.httpsProxy).toBeUndefined();
    expect(env.problems.join('\n')).toContain('HTTPS_PROXY: ftp:// proxies are not supported');
    expect(env.problems.join('\n')).toContain('HTTP_PROXY=');
    expect(env.problems.join('\n')).not.toContain('Secret');
  });

  it.each([
    ['http://user:pass@proxy.corp:3128', 'http://***@proxy.corp:3128'],
    ['http://proxy.corp:3128/', 'http://proxy.corp:3128'],
    ['user:p%40ss@proxy.corp:3128', '***@proxy.corp:3128'],
    ['ftp://user:Secret@[bad', 'ftp://***@[bad'],
  ])('redacts %s as %s', (value, shown) => {
    expect(redactProxyUrl(value)).toBe(shown);
  });
});
