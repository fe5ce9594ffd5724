/**
 * The bounded body reader (src/source/http/bounded-body.ts) on responses made in memory: the edges
 * the server-backed table (test/integration/network-body-limits.test.ts) does not reach — a body
 * that breaks off or times out, a compressed body's Content-Length, a message cut mid-chunk, and
 * the in-memory response octokit is given.
 */
import { describe, expect, it } from 'vitest';
import { FetchError } from '../../src/errors.js';
import { MANIFEST_LIMIT, MESSAGE_LIMIT_BYTES, blobLimit, formatBytes } from '../../src/source/http/body-limits.js';
import {
  BodyLimitError,
  BodyReadError,
  bufferResponse,
  readBody,
  readMessage,
  readText,
} from '../../src/source/http/bounded-body.js';
import { networkReason } from '../../src/source/network-failure.js';
import { rejectionOf } from '../helpers/errors.js';

/** A body of `chunks`, then `end`: done, or an error the transport would raise. */
function streamed(
  chunks: Uint8Array[],
  end: 'done' | Error = 'done',
): { stream: ReadableStream<Uint8Array>; cancelled: () => boolean; pulled: () => number } {
  let i = 0;
  let cancelled = false;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(chunks[i++]!);
      else if (end === 'done') controller.close();
      else controller.error(end);
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled, pulled: () => i };
}

const bytes = (n: number, byte = 0x61) => new Uint8Array(n).fill(byte);

describe('readBody', () => {
  it('accepts a body of exactly the limit, in any chunking', async () => {
    const limit = blobLimit(10);
    const body = streamed([bytes(3), bytes(3), bytes(4)]);
    expect(await readBody(new Response(body.stream), 'blob b', limit)).toEqual(bytes(10));
    expect(body.cancelled()).toBe(false);
  });

  it('stops at the chunk that passes the limit and cancels the stream', async () => {
    const body = streamed([bytes(6), bytes(6), bytes(6), bytes(6)]);
    const err = await rejectionOf(
      BodyLimitError,
      readBody(new Response(body.stream), 'blob b of r from h', blobLimit(10)),
    );
    expect(err.message).toBe(
      'blob b of r from h: the answer is larger than the 10 bytes its descriptor declares; capi-render stopped reading there',
    );
    expect(err.code).toBe('fetch');
    expect(body.cancelled()).toBe(true);
    expect(body.pulled()).toBeLessThanOrEqual(3);
  });

  it('refuses a Content-Length over the limit without reading, but not a compressed one (it says nothing of the decoded size)', async () => {
    const over = streamed([bytes(1)]);
    const err = await rejectionOf(
      BodyLimitError,
      readBody(
        new Response(over.stream, { headers: { 'content-length': String(MANIFEST_LIMIT.maxBytes + 1) } }),
        'manifest m',
        MANIFEST_LIMIT,
      ),
    );
    expect(err.message).toBe(
      `manifest m: the answer declares ${MANIFEST_LIMIT.maxBytes + 1} bytes (Content-Length), over the 4 MiB limit for manifests and indexes; not read`,
    );
    expect(over.pulled()).toBe(0);
    expect(over.cancelled()).toBe(true);
    const gzip = new Response(bytes(5), {
      headers: { 'content-length': String(MANIFEST_LIMIT.maxBytes + 1), 'content-encoding': 'gzip' },
    });
    expect((await readBody(gzip, 'manifest m', MANIFEST_LIMIT)).length).toBe(5);
  });

  it('turns a body that breaks off or times out into a FetchError naming the resource and the reason', async () => {
    const reset = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const broken = await rejectionOf(
      BodyReadError,
      readBody(
        new Response(streamed([bytes(2048)], new TypeError('terminated', { cause: reset })).stream),
        'https://h/x',
        MANIFEST_LIMIT,
      ),
    );
    expect(broken.message).toBe('https://h/x: the answer broke off after 2 KiB (ECONNRESET)');
    expect(networkReason(broken)).toBe('ECONNRESET');
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    const slow = await rejectionOf(
      FetchError,
      readText(new Response(streamed([bytes(7)], timeout).stream), 'https://h/y', MANIFEST_LIMIT),
    );
    expect(slow.message).toBe('https://h/y: the answer broke off after 7 bytes (timed out)');
  });
});

describe('readMessage', () => {
  it('cuts an error answer at 64 KiB, mid-chunk, and never fails', async () => {
    const body = streamed([bytes(40 * 1024, 0x62), bytes(40 * 1024, 0x63), bytes(40 * 1024)]);
    const text = await readMessage(new Response(body.stream, { status: 500 }));
    expect(text.length).toBe(MESSAGE_LIMIT_BYTES);
    expect(text.endsWith('c')).toBe(true);
    expect(body.cancelled()).toBe(true);
    expect(await readMessage(new Response(streamed([bytes(3)], new Error('reset')).stream))).toBe('');
    expect(await readMessage(new Response(null, { status: 404 }))).toBe('');
  });
});

describe('bufferResponse', () => {
  it('gives octokit the same answer in memory: status, headers, URL and body', async () => {
    const original = new Response('{"a":1}', {
      status: 200,
      statusText: 'OK',
      headers: { 'content-type': 'application/json', etag: '"x"' },
    });
    Object.defineProperty(original, 'url', { value: 'https://api.example/repos/o/r' });
    const buffered = await bufferResponse(original, 'https://api.example/repos/o/r', MANIFEST_LIMIT);
    expect(buffered.status).toBe(200);
    expect(buffered.url).toBe('https://api.example/repos/o/r');
    expect(buffered.headers.get('etag')).toBe('"x"');
    expect(await readText(buffered, 'again', MANIFEST_LIMIT)).toBe('{"a":1}');
  });

  it('reads an error answer as a message (cut, not refused) and leaves a 304 bodiless', async () => {
    const error = await bufferResponse(
      new Response(streamed([bytes(MESSAGE_LIMIT_BYTES), bytes(10)]).stream, { status: 502 }),
      'u',
      blobLimit(1),
    );
    expect(error.status).toBe(502);
    expect((await readBody(error, 'u', MANIFEST_LIMIT)).length).toBe(MESSAGE_LIMIT_BYTES);
    const notModified = await bufferResponse(new Response(null, { status: 304 }), 'u', blobLimit(1));
    expect(notModified.status).toBe(304);
  });

  it('fails a success body over the limit, before the client sees it', async () => {
    await expect(
      bufferResponse(new Response(bytes(11)), 'https://api.example/x', blobLimit(10)),
    ).rejects.toBeInstanceOf(BodyLimitError);
  });
});

describe('formatBytes', () => {
  it.each([
    [4 * 1024 * 1024, '4 MiB'],
    [64 * 1024, '64 KiB'],
    [4 * 1024 * 1024 + 1, '4194305 bytes'],
    [0, '0 bytes'],
  ])('%d → %s', (n, text) => {
    expect(formatBytes(n)).toBe(text);
  });
});
