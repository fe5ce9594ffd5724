/**
 * Progress events a network-backed {@link ReleaseSource} reports while it works, so the CLI can
 * print what is being fetched and why it is waiting. Events are plain data; a listener is
 * injected (never a module-level emitter). Invariant: no event carries a credential — URLs are
 * the request URLs (tokens travel in headers, never in URLs) and no headers are included.
 */

/** One HTTP attempt is about to be sent (attempt 0 is the first try). */
export interface FetchAttemptEvent {
  type: 'request';
  method: string;
  url: string;
  attempt: number;
}

/** A response arrived (any status); `cached` when a 304 let a stored copy be reused. */
export interface FetchResponseEvent {
  type: 'response';
  method: string;
  url: string;
  status: number;
  cached: boolean;
}

/** The source is waiting before it tries again. */
export interface FetchRetryEvent {
  type: 'retry';
  reason: 'rate-limit' | 'secondary-rate-limit' | 'server-error' | 'network';
  method: string;
  url: string;
  /** 1-based number of the retry about to happen. */
  retry: number;
  waitMs: number;
}

/** A file's bytes were received. */
export interface FetchDownloadEvent {
  type: 'download';
  url: string;
  bytes: number;
}

/** Something worth telling the user that is not an error (e.g. a deprecation notice from the API). */
export interface FetchWarningEvent {
  type: 'warning';
  message: string;
}

export type FetchProgress =
  FetchAttemptEvent | FetchResponseEvent | FetchRetryEvent | FetchDownloadEvent | FetchWarningEvent;

/** A listener for {@link FetchProgress} events. It must not throw; anything it throws is ignored. */
export type FetchProgressListener = (event: FetchProgress) => void;
