/** Runs the CLI in-process with captured streams. */
import { run } from '../../src/cli/run.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(argv: string[], options: { cwd: string; env?: Record<string, string | undefined> }): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await run(argv, {
    stdout: { write: (t) => void (stdout += t) },
    stderr: { write: (t) => void (stderr += t) },
    env: options.env ?? {},
    cwd: options.cwd,
  });
  return { code, stdout, stderr };
}
