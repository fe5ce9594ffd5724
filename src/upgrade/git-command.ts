/**
 * Runs `git` as a child process (node:child_process execFile, no shell) in a given folder. The
 * environment is passed in — the CLI's — never read from process.env here. A failing command becomes
 * a SpecError `git` carrying git's own first error line; no other output is echoed.
 */
import { execFile } from 'node:child_process';
import { SpecError, error } from '../errors.js';

/** Runs one git command and resolves to its stdout bytes. */
export type GitRunner = (args: readonly string[], options?: { input?: string }) => Promise<Buffer>;

/** How {@link createGitRunner} runs git. */
export interface GitRunnerOptions {
  /** Working directory (the repository, or a folder inside it). */
  cwd: string;
  /** Environment of the child process (PATH, HOME, GIT_* …). */
  env: Readonly<Record<string, string | undefined>>;
  /** Text scrubbed from every message (a token in a remote URL). Default: none. */
  secrets?: readonly string[];
}

/** Largest stdout accepted: rendered trees are a few MiB; far beyond that something is wrong. */
const MAX_OUTPUT = 512 * 1024 * 1024;

/** A runner bound to one folder and environment; each call is one `git` process. */
export function createGitRunner(options: GitRunnerOptions): GitRunner {
  const env = Object.fromEntries(Object.entries(options.env).filter((e): e is [string, string] => e[1] !== undefined));
  const scrub = (text: string) =>
    (options.secrets ?? []).filter(Boolean).reduce((t, s) => t.split(s).join('***'), text);
  return (args, runOptions = {}) =>
    new Promise((resolve, reject) => {
      const child = execFile(
        'git',
        [...args],
        { cwd: options.cwd, env, encoding: 'buffer', maxBuffer: MAX_OUTPUT },
        (err, stdout, stderr) => {
          if (!err) return resolve(stdout);
          const detail = scrub(
            stderr
              .toString('utf8')
              .trim()
              .split('\n')
              .find((l) => /^(fatal|error):/.test(l)) ??
              stderr.toString('utf8').trim().split('\n')[0] ??
              '',
          );
          const missing = (err as NodeJS.ErrnoException).code === 'ENOENT';
          reject(
            new SpecError(
              error(
                'git',
                missing ? 'git is not installed or not on PATH' : `git ${args[0]} failed${detail ? `: ${detail}` : ''}`,
                {
                  hint: missing ? 'install git' : `ran \`git ${scrub(args.join(' '))}\` in ${options.cwd}`,
                },
              ),
            ),
          );
        },
      );
      if (runOptions.input !== undefined) child.stdin?.end(runOptions.input);
    });
}
