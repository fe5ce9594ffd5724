/** Runs the CLI in-process with captured streams. */
import { run } from '../../src/cli/run.js';
import type { FetchLike } from '../../src/source/gitlab/gitlab-source.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], options: { cwd: string; env?: Record<string, string | undefined>; fetch?: FetchLike }): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (t) => void (stdout += t) },
    stderr: { write: (t) => void (stderr += t) },
    env: options.env ?? {},
    cwd: options.cwd,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { code, stdout, stderr };
}
