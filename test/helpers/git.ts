/** Git for tests: an isolated environment (no user or system config) and a synchronous runner. */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';

/** Environment for git children: a fixed identity and dates, no global or system config. */
export function gitEnv(home: string): Record<string, string> {
  mkdirSync(home, { recursive: true });
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig-none'),
    GIT_AUTHOR_NAME: 'capi-render test',
    GIT_AUTHOR_EMAIL: 'test@example.com',
    GIT_COMMITTER_NAME: 'capi-render test',
    GIT_COMMITTER_EMAIL: 'test@example.com',
    GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  };
}

/** Runs git in `cwd`; returns trimmed stdout. */
export function git(cwd: string, env: Record<string, string>, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
}

/** `git init` on branch main, everything committed. */
export function initRepo(dir: string, env: Record<string, string>): void {
  git(dir, env, 'init', '-q', '-b', 'main');
  git(dir, env, 'add', '-A');
  git(dir, env, 'commit', '-q', '-m', 'initial');
}
