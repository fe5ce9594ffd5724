/**
 * Which network failures are retried: a reset connection may pass on the next try (retried); a
 * refused connection or a name that does not resolve will not (failed at once, said once).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it, onTestFinished } from 'vitest';
import { FetchError } from '../../src/errors.js';
import type { FetchProgress } from '../../src/source/fetch-progress.js';
import { createGitHubClient } from '../../src/source/github/github-client.js';
import { isPermanentNetworkFailure, networkReason } from '../../src/source/network-failure.js';
import { freePort } from '../helpers/registry.js';
import { rejectionOf } from '../helpers/errors.js';

const coded = (code: string) =>
  new TypeError('fetch failed', { cause: Object.assign(new Error(`getaddrinfo ${code} api.github.com`), { code }) });

describe('network failures', () => {
  it.each([
    ['ENOTFOUND', true],
    ['EAI_AGAIN', true],
    ['ECONNREFUSED', true],
    ['EHOSTUNREACH', true],
    ['SELF_SIGNED_CERT_IN_CHAIN', true],
    ['ECONNRESET', false],
    ['UND_ERR_SOCKET', false],
    ['ETIMEDOUT', false],
  ])('%s is permanent: %s', (code, permanent) => {
    expect(networkReason(coded(code))).toBe(code);
    expect(isPermanentNetworkFailure(coded(code))).toBe(permanent);
  });

  it('a timeout is retried and named', () => {
    const timeout = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    expect(networkReason(timeout)).toBe('timed out');
    expect(isPermanentNetworkFailure(timeout)).toBe(false);
  });

  it('GitHub: a reset connection is retried, a refused one fails at once without a retry', async () => {
    let requests = 0;
    const server = createServer((req, res) => {
      // The first request's connection is cut before any answer, as a flaky middlebox does.
      if (++requests === 1) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    onTestFinished(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    const events: FetchProgress[] = [];
    const flaky = createGitHubClient({
      baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      retryAfterBaseMs: 1,
      onProgress: (e) => events.push(e),
    });
    expect(await flaky.listReleases('o', 'r')).toEqual([]);
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(1);

    const closed = await freePort();
    const refusedEvents: FetchProgress[] = [];
    const refused = createGitHubClient({
      baseUrl: `http://127.0.0.1:${closed}`,
      retryAfterBaseMs: 1,
      onProgress: (e) => refusedEvents.push(e),
    });
    const err = await rejectionOf(FetchError, refused.listReleases('o', 'r'));
    expect(err.diagnostics[0]!.message).toBe(
      `could not reach 127.0.0.1:${closed} (ECONNREFUSED) for GET http://127.0.0.1:${closed}/repos/o/r/releases?per_page=100`,
    );
    expect(refusedEvents.filter((e) => e.type === 'request')).toHaveLength(1);
    expect(refusedEvents.filter((e) => e.type === 'retry')).toHaveLength(0);
  });
});
