import type { DurableFs } from '../durable-replace.js';
import type { FetchLike } from '../source/gitlab/gitlab-source.js';

/** What a command may touch of the outside world; tests pass fakes. */
export interface OutputStream {
  write(text: string): void;
  readonly isTTY?: boolean;
}

export interface CliIo {
  stdout: OutputStream;
  stderr: OutputStream;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /**
   * HTTP transport of every network source (GitHub, GitLab, OCI registries). Default: the
   * proxy-aware fetch for `env` (source/http/network-fetch.ts). Tests route the URLs users write
   * to a local server with it.
   */
  fetch?: FetchLike;
  /**
   * The disk-changing calls of `import`'s writes into the repository. Default: the real file system
   * (durable-replace.ts). Power-loss tests record them and cut the power after any one.
   */
  durableFs?: DurableFs;
}

/**
 * Whether to colour stderr: only on a TTY, never when NO_COLOR is set to a non-empty value
 * (https://no-color.org: an empty NO_COLOR does not count), never on a dumb terminal (TERM=dumb).
 */
export function useColor(io: CliIo): boolean {
  return Boolean(io.stderr.isTTY) && !io.env.NO_COLOR && io.env.TERM !== 'dumb';
}
