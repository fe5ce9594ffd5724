/**
 * How a GitHub client is set up: API origin, token, retries and timeouts, progress and transport.
 * Its own file because both the client and the octokit transport under it read it.
 */
import type { FetchProgressListener } from '../fetch-progress.js';
import type { FetchLike } from '../http/network-fetch.js';

/** Settings of a GitHub client and its transport; every field has a default. */
export interface GitHubClientOptions {
  /** REST API base URL. Default: `https://api.github.com`. */
  baseUrl?: string;
  /** Personal access token or app token; sent as `Authorization: token …` to the API origin only. */
  token?: string;
  /** User-Agent prefix. Default: `capi-render`. */
  userAgent?: string;
  /** How many times a 5xx, network error or rate-limited request is retried. Default: 3. */
  retries?: number;
  /**
   * Unit of the back-off in milliseconds: the n-th retry of a 5xx waits n² units; a rate-limit
   * retry waits the seconds GitHub asks for, counted in units. Default: 1000 (tests set 1).
   */
  retryAfterBaseMs?: number;
  /** Longest rate-limit wait worth sitting through; beyond it the request fails at once. Default: 60 000 ms. */
  maxRateLimitWaitMs?: number;
  /** Per-attempt timeout. Default: 60 000 ms. */
  timeoutMs?: number;
  /** Progress listener (CLI output, tests). Default: none. */
  onProgress?: FetchProgressListener;
  /** HTTP transport (the proxy-aware fetch of source/http/network-fetch.ts). Default: the global fetch. */
  fetch?: FetchLike;
}
