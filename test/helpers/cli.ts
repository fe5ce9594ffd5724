/** Runs the CLI in-process with captured streams. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// run itself, not the package: the package entry loads the whole library (about a second per test
// file), while run loads a command only when it runs it.
import { run } from '../../src/cli/run.js';
import type { FetchLike } from 'capi-render';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(
  argv: string[],
  options: { cwd: string; env?: Record<string, string | undefined>; fetch?: FetchLike },
): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const env = options.env ?? {};
  const code = await run(argv, {
    stdout: { write: (t) => void (stdout += t) },
    stderr: { write: (t) => void (stderr += t) },
    // Never the user's real cache: a test that names no cache folder gets this worker's own.
    env:
      env.CAPI_RENDER_CACHE_DIR || env.XDG_CACHE_HOME || env.HOME
        ? env
        : { ...env, CAPI_RENDER_CACHE_DIR: workerCacheDir() },
    cwd: options.cwd,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { code, stdout, stderr };
}

let workerCache: string | undefined;

/** One cache folder per test worker, shared by its tests (as a developer's cache is), removed at exit. */
function workerCacheDir(): string {
  if (!workerCache) {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-test-cache-'));
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
    workerCache = dir;
  }
  return workerCache;
}
