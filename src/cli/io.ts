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
}

/** Whether to colour stderr: only on a TTY and never when NO_COLOR is set (https://no-color.org). */
export function useColor(io: CliIo): boolean {
  return Boolean(io.stderr.isTTY) && !('NO_COLOR' in io.env && io.env.NO_COLOR !== undefined);
}
