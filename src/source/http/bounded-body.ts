/**
 * The one place capi-render reads a network body. Every response body — a registry's manifest, a
 * blob, a token answer, a GitHub or GitLab page, a release file, an error answer read for its
 * message — is read here under a limit (body-limits.ts), so a server that answers with an endless
 * or huge body costs at most the limit in memory.
 *
 * Design notes: docs/internals.md "source/http/bounded-body.ts".
 */
import { FetchError, error, type Diagnostic } from '../../errors.js';
import { networkReason } from '../network-failure.js';
import { MESSAGE_LIMIT_BYTES, formatBytes, type BodyLimit } from './body-limits.js';

/** A body over its limit: its message names the resource and the limit, its hint what to check. */
export class BodyLimitError extends FetchError {}

/** A body that broke off while it was read; `cause` is the transport's failure (a reset, the request's timeout). */
export class BodyReadError extends FetchError {
  constructor(diagnostic: Diagnostic, cause: unknown) {
    super(diagnostic);
    this.cause = cause;
  }
}

/** Statuses whose responses never have a body (a Response with one cannot be made). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The whole body, at most `limit.maxBytes` bytes. `what` names the resource for messages (a URL
 * without its query, `manifest v1 of capi/core from registry r:5000`); it must carry no secret.
 * Throws {@link BodyLimitError} over the limit, FetchError `fetch` when the body breaks off.
 */
export async function readBody(response: Response, what: string, limit: BodyLimit): Promise<Uint8Array> {
  const declared = declaredLength(response);
  if (declared !== undefined && declared > limit.maxBytes) {
    await discard(response);
    throw new BodyLimitError(
      error(
        'fetch',
        `${what}: the answer declares ${formatBytes(declared)} (Content-Length), over ${limit.phrase}; not read`,
        { hint: limit.hint },
      ),
    );
  }
  const read = await collect(response, limit.maxBytes, what);
  if (read.over)
    throw new BodyLimitError(
      error('fetch', `${what}: the answer is larger than ${limit.phrase}; capi-render stopped reading there`, {
        hint: limit.hint,
      }),
    );
  return read.bytes;
}

/** The body as UTF-8 text (invalid sequences replaced), under `limit` as {@link readBody}. */
export async function readText(response: Response, what: string, limit: BodyLimit): Promise<string> {
  return new TextDecoder().decode(await readBody(response, what, limit));
}

/**
 * The start of an error answer, for its message: at most 64 KiB, cut there (the rest is never
 * read), `''` when it cannot be read. Never throws.
 */
export async function readMessage(response: Response): Promise<string> {
  try {
    return new TextDecoder().decode((await collect(response, MESSAGE_LIMIT_BYTES, '')).bytes);
  } catch {
    return '';
  }
}

/**
 * The same response with its body read into memory: a success body under `limit` (as
 * {@link readBody}), a redirect or error body as a message (cut at 64 KiB). For clients that read
 * bodies themselves (octokit): they get a response whose body is already bounded.
 */
export async function bufferResponse(response: Response, what: string, limit: BodyLimit): Promise<Response> {
  if (NULL_BODY.has(response.status) || response.body === null) {
    await discard(response);
    return response;
  }
  const bytes =
    response.status >= 200 && response.status < 300
      ? await readBody(response, what, limit)
      : new TextEncoder().encode(await readMessage(response));
  const buffered = new Response(bytes, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
  // A constructed Response has no URL; clients report the one the answer came from.
  Object.defineProperty(buffered, 'url', { value: response.url });
  return buffered;
}

/** Up to `maxBytes` bytes of the body; `over` when more came (the stream is then cancelled, the extra byte kept out). */
async function collect(
  response: Response,
  maxBytes: number,
  what: string,
): Promise<{ bytes: Uint8Array; over: boolean }> {
  const body = response.body;
  if (body === null) return { bytes: new Uint8Array(0), over: false };
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { bytes: concat(chunks, total), over: false };
      if (total + value.byteLength > maxBytes) {
        // Keep what fits (a message is cut there), and stop the transfer now.
        chunks.push(value.subarray(0, maxBytes - total));
        await reader.cancel().catch(() => undefined);
        return { bytes: concat(chunks, maxBytes), over: true };
      }
      chunks.push(value);
      total += value.byteLength;
    }
  } catch (cause) {
    await reader.cancel().catch(() => undefined);
    throw new BodyReadError(
      error('fetch', `${what}: the answer broke off after ${formatBytes(total)} (${networkReason(cause)})`, {
        hint: 'retry; if it persists, check the server and any proxy between here and it',
      }),
      cause,
    );
  }
}

/** `Content-Length` when the body arrives as sent (not decompressed on the way), else undefined. */
function declaredLength(response: Response): number | undefined {
  const encoding = (response.headers.get('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity' && encoding !== '') return undefined;
  const text = response.headers.get('content-length');
  if (text === null || !/^\s*\d+\s*$/.test(text)) return undefined;
  return Number(text);
}

async function discard(response: Response): Promise<void> {
  await response.body?.cancel().catch(() => undefined);
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0]!.byteLength === total) return chunks[0]!;
  const out = new Uint8Array(total);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
