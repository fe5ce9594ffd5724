/**
 * A real forward proxy on 127.0.0.1 (random port), as a corporate one behaves: `CONNECT host:port`
 * tunnels for https:// targets and absolute-form requests (`GET http://host:port/path`) for http://
 * ones. It resolves names through a table (the way a corporate proxy resolves names its clients
 * cannot), so tests can use names that are not loopback addresses — clients never proxy those (Go's
 * rule, which capi-render follows) — and still reach servers on this machine. A name not in the
 * table is answered 502, as a proxy whose DNS lookup failed answers. Every request is recorded,
 * with its Proxy-Authorization header.
 *
 * Also here: a TLS front (an https server with a self-signed certificate made by openssl) that
 * hands each request to a plain-HTTP test server by its Host, so https:// URLs through CONNECT reach
 * the fake GitHub and GitLab. The CLI trusts the certificate through NODE_EXTRA_CA_CERTS.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

export interface ProxiedRequest {
  /** `CONNECT` or the HTTP method of an absolute-form request. */
  method: string;
  /** `host:port` (CONNECT) or the absolute URL. */
  target: string;
  /** The Proxy-Authorization header as received, if any. */
  authorization?: string;
}

export interface ForwardProxy {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/** `host:port` → where the proxy really connects; undefined: the name does not resolve. */
export type ProxyRoutes = (host: string, port: number) => { host: string; port: number } | undefined;

export async function startForwardProxy(routes: ProxyRoutes): Promise<ForwardProxy> {
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    const target = new URL(req.url ?? '');
    requests.push({
      method: req.method ?? 'GET',
      target: target.toString(),
      authorization: req.headers['proxy-authorization'],
    });
    const to = routes(target.hostname, Number(target.port || 80));
    if (!to) return void res.writeHead(502).end('proxy: name does not resolve\n');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    delete headers['proxy-connection'];
    const upstream = http.request(
      { host: to.host, port: to.port, method: req.method, path: `${target.pathname}${target.search}`, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.writeHead(502).end('proxy: upstream failed\n'));
    req.pipe(upstream);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    requests.push({ method: 'CONNECT', target: req.url ?? '', authorization: req.headers['proxy-authorization'] });
    const [host = '', port = '443'] = (req.url ?? '').split(':');
    const to = routes(host, Number(port));
    if (!to) return void client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
    const upstream = net.connect(to.port, to.host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => sockets.delete(s));
    }
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export interface TlsFront {
  port: number;
  /** PEM file of the self-signed certificate (for NODE_EXTRA_CA_CERTS). */
  certFile: string;
  close(): Promise<void>;
}

/** An https server for `names` on 127.0.0.1 that forwards each request to `backends[Host]` (a plain-HTTP base URL). */
export async function startTlsFront(backends: Readonly<Record<string, string>>): Promise<TlsFront> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-tls-'));
  const names = Object.keys(backends);
  const made = spawnSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      `/CN=${names[0]}`,
      '-addext',
      `subjectAltName=${names.map((n) => `DNS:${n}`).join(',')}`,
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ],
    { encoding: 'utf8' },
  );
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  const server = https.createServer(
    { key: readFileSync(path.join(dir, 'key.pem')), cert: readFileSync(path.join(dir, 'cert.pem')) },
    (req, res) => {
      const backend = backends[(req.headers.host ?? '').replace(/:\d+$/, '')];
      if (!backend) return void res.writeHead(421).end();
      const base = new URL(backend);
      const upstream = http.request(
        { host: base.hostname, port: base.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', () => res.writeHead(502).end());
      req.pipe(upstream);
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    certFile: path.join(dir, 'cert.pem'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        });
      }),
  };
}
