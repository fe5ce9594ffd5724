/**
 * A real HTTP server on 127.0.0.1 (random port) for the network-body limits: each request is
 * answered by the test's handler with a status, headers and a body that is endless (chunked), a
 * `Content-Length` it then keeps streaming towards, or given bytes. It counts, per request, the
 * body bytes it managed to hand to the socket before the response finished or the client closed
 * it — how far a client read before it stopped.
 *
 * Streams are paced: one 64 KiB chunk at a time, the next only after the previous one left for the
 * socket and the event loop turned. The client (in this same process) then reads as the server
 * writes, so the kernel's socket buffers (tens of MiB on loopback) do not fill behind its back and
 * the count stays within a chunk or two of what the client read. An endless body still ends at
 * {@link ENDLESS_CAP} so that a client that never stops fails the count instead of hanging.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

const CHUNK = 64 * 1024;
/** Where an "endless" body gives up: far past every limit, so a count that reaches it is a client that did not stop. */
export const ENDLESS_CAP = 512 * 1024 * 1024;

/** A body: endless (chunked), a declared length streamed towards, or exactly these bytes. */
export type BodyPlan =
  { kind: 'endless' } | { kind: 'declared'; length: number } | { kind: 'bytes'; bytes: Uint8Array | string };

/** One answer. Default status 200. */
export interface Answer {
  status?: number;
  headers?: Record<string, string>;
  body?: BodyPlan;
}

/** A request as received, and the body bytes written for it. */
export interface Served {
  method: string;
  /** Path and query. */
  url: string;
  /** Body bytes handed to the socket before the response finished or closed. */
  sent: number;
  /** True once the response finished or its connection closed. */
  closed: boolean;
  /** Resolves when the response finished or its connection closed. */
  done: Promise<void>;
}

export type Handler = (request: IncomingMessage) => Answer;

export interface BodyServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** `127.0.0.1:<port>`, as an image reference names a registry. */
  host: string;
  /** Answers every request from now on (404 until one is set). */
  handle(handler: Handler): void;
  served: Served[];
  /**
   * Waits until every response so far has finished or closed, at most `graceMs` (default 10 s: a
   * client that stopped reading without closing leaves its response open, and `closed` says so).
   */
  settled(graceMs?: number): Promise<Served[]>;
  /** Forgets what was served. */
  reset(): void;
  close(): Promise<void>;
}

/** Starts a server; close it in afterAll. */
export async function startBodyServer(): Promise<BodyServer> {
  let handler: Handler = () => ({ status: 404, body: { kind: 'bytes', bytes: '' } });
  const served: Served[] = [];
  const server = createServer((request, response) => {
    const entry: Served = {
      method: request.method ?? 'GET',
      url: request.url ?? '/',
      sent: 0,
      closed: false,
      done: Promise.resolve(),
    };
    entry.done = new Promise((resolve) =>
      response.once('close', () => {
        entry.closed = true;
        resolve();
      }),
    );
    served.push(entry);
    request.resume();
    let answer: Answer;
    try {
      answer = handler(request);
    } catch (cause) {
      answer = { status: 500, body: { kind: 'bytes', bytes: `test handler failed: ${String(cause)}` } };
    }
    send(response, answer, entry);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    handle(next) {
      handler = next;
    },
    served,
    async settled(graceMs = 10_000) {
      let timer: NodeJS.Timeout | undefined;
      const grace = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([Promise.all(served.map((s) => s.done)), grace]);
      clearTimeout(timer);
      return [...served];
    },
    reset() {
      served.length = 0;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function send(response: ServerResponse, answer: Answer, entry: Served): void {
  const body = answer.body ?? { kind: 'bytes', bytes: '' };
  const headers: Record<string, string> = { ...answer.headers };
  if (body.kind === 'bytes') {
    const bytes =
      typeof body.bytes === 'string'
        ? Buffer.from(body.bytes)
        : Buffer.from(body.bytes.buffer, body.bytes.byteOffset, body.bytes.byteLength);
    response.writeHead(answer.status ?? 200, { ...headers, 'content-length': String(bytes.length) });
    response.end(bytes, () => {
      entry.sent += bytes.length;
    });
    return;
  }
  if (body.kind === 'declared') headers['content-length'] = String(body.length);
  response.writeHead(answer.status ?? 200, headers);
  const total = body.kind === 'declared' ? body.length : ENDLESS_CAP;
  const chunk = Buffer.alloc(CHUNK, 0x20);
  let written = 0;
  const pump = (): void => {
    if (response.destroyed || response.writableEnded) return;
    if (written >= total) {
      response.end();
      return;
    }
    const piece = total - written >= CHUNK ? chunk : chunk.subarray(0, total - written);
    written += piece.length;
    response.write(piece, (err) => {
      if (err) return;
      entry.sent += piece.length;
      setImmediate(pump);
    });
  };
  pump();
}
