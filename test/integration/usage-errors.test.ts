/**
 * Every usage mistake a new user makes, with what capi-render answers: bad command-line usage exits
 * 2 everywhere, and a typo — in a command, a flag, an environment name, a capi-render.yaml or
 * overlay key, a version without its `v` — gets the closest correct spelling. Mistakes in files
 * are validation failures (exit 1, with file:line:col), per the exit-code contract; they get the
 * same suggestion.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const overlay = (extra = '') =>
  `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\n${extra}`;
const repoWith = (files: Record<string, string> = {}) =>
  makeRepo({
    'providers/core.yaml': CORE(),
    'overlays/dev/overlay.yaml': overlay(),
    'overlays/prod/overlay.yaml': overlay(),
    ...files,
  });

interface Mistake {
  name: string;
  argv: string[];
  files?: Record<string, string>;
  /** No repository: run in an empty folder (init). */
  empty?: boolean;
  code: 1 | 2;
  says: string | RegExp;
}

const MISTAKES: Mistake[] = [
  { name: 'a misspelt command', argv: ['buidl'], code: 2, says: 'unknown command "buidl"; did you mean "build"?' },
  {
    name: 'a misspelt global flag',
    argv: ['--versoin'],
    code: 2,
    says: 'unknown option --versoin; did you mean --version?',
  },
  {
    name: 'a misspelt flag',
    argv: ['build', '--evn', 'dev'],
    code: 2,
    says: 'unknown option --evn; did you mean --env?',
  },
  {
    name: 'a flag with one dash',
    argv: ['check', '-offline'],
    code: 2,
    says: 'unknown option -offline; did you mean --offline?',
  },
  // A word the option abbreviates: the option it starts with, misspelt or not.
  {
    name: 'a flag spelt out',
    argv: ['build', '--environment', 'dev'],
    code: 2,
    says: 'unknown option --environment; did you mean --env?',
  },
  {
    name: 'a flag spelt out and misspelt',
    argv: ['build', '--enviroment', 'dev'],
    code: 2,
    says: 'unknown option --enviroment; did you mean --env?',
  },
  {
    name: 'a global flag spelt out',
    argv: ['check', '--repository', '.'],
    code: 2,
    says: 'unknown option --repository; did you mean --repo?',
  },
  {
    name: 'a flag cut short',
    argv: ['import', '--dry'],
    code: 2,
    says: 'unknown option --dry; did you mean --dry-run?',
  },
  {
    name: 'an unrelated flag: no suggestion',
    argv: ['build', '--color'],
    code: 2,
    says: /unknown option --color\nRun "capi-render build --help"/,
  },
  {
    name: 'a flag cut short, the one it can be',
    argv: ['upgrade', '--latest'],
    code: 2,
    says: 'unknown option --latest; did you mean --latest-patch?',
  },
  {
    name: 'a flag cut short that could be two: no suggestion',
    argv: ['build', '--allow'],
    code: 2,
    says: /unknown option --allow\nRun/,
  },
  {
    name: 'an environment spelt out',
    argv: ['build', '--env', 'production'],
    code: 2,
    says: 'did you mean --env prod?',
  },
  {
    name: 'an environment followed by something else: no suggestion',
    argv: ['build', '--env', 'prod; touch x'],
    code: 2,
    says: 'unknown environment "prod; touch x" (environments: dev, prod)',
  },
  {
    name: 'a command spelt out',
    argv: ['initialize'],
    empty: true,
    code: 2,
    says: 'unknown command "initialize"; did you mean "init"?',
  },
  // Global options before the command: accepted; anything else there is explained.
  {
    name: "a command's option before the command",
    argv: ['--cache-dir', '/tmp', 'build'],
    code: 2,
    says: "capi-render: unknown option --cache-dir; before the command only the global options (--repo, --debug) may stand, a command's own options go after it: capi-render build --cache-dir",
  },
  {
    name: 'a global option and no command',
    argv: ['--repo', '.'],
    code: 2,
    says: 'capi-render: no command after --repo .',
  },
  {
    name: 'a global option before a misspelt flag',
    argv: ['--debug', 'build', '--evn', 'dev'],
    code: 2,
    says: 'unknown option --evn; did you mean --env?',
  },
  { name: 'a flag of another command', argv: ['check', '--stdout'], code: 2, says: /unknown option --stdout/ },
  { name: 'an environment as a bare word', argv: ['build', 'dev'], code: 2, says: 'pass --env dev' },
  { name: 'a value given to a switch', argv: ['build', '--offline=yes'], code: 2, says: /--offline/ },
  { name: 'a flag without its value', argv: ['build', '--env'], code: 2, says: /--env/ },
  {
    name: 'an unknown environment',
    argv: ['build', '--env', 'nope'],
    code: 2,
    says: 'unknown environment "nope" (environments: dev, prod)',
  },
  { name: 'a misspelt environment', argv: ['check', '--env', 'prd'], code: 2, says: 'did you mean --env prod?' },
  {
    name: 'an unknown environment for inputs',
    argv: ['inputs', '--env', 'deev'],
    code: 2,
    says: 'did you mean --env dev?',
  },
  { name: 'a shard that is not K/N', argv: ['build', '--shard', 'x'], code: 2, says: '--shard must be K/N' },
  { name: 'a shard beyond N', argv: ['check', '--shard', '3/2'], code: 2, says: '--shard must be K/N' },
  {
    name: 'an unknown infrastructure provider',
    argv: ['init', '--infrastructure', 'nosuch'],
    empty: true,
    code: 2,
    says: "--infrastructure nosuch: not in clusterctl's provider list",
  },
  {
    name: 'a misspelt infrastructure provider',
    argv: ['init', '--infrastructure', 'dockr'],
    empty: true,
    code: 2,
    says: 'did you mean "docker"?',
  },
  {
    name: 'a misspelt GitOps flavour',
    argv: ['init', '--flavour', 'flx'],
    empty: true,
    code: 2,
    says: 'did you mean "flux"?',
  },
  {
    name: 'a version that is none',
    argv: ['init', '--version', 'one.twelve'],
    empty: true,
    code: 2,
    says: '--version one.twelve: not a version or range (e.g. v1.12.0, ~1.12, latest)',
  },
  {
    name: 'a version the local repository lacks',
    argv: ['init', '--version', 'v1.99.0', '--local-repository', `${FIXTURES}repository`, '--allow-outside'],
    empty: true,
    code: 2,
    says: '--version v1.99.0: the local repository has cluster-api',
  },
  {
    name: 'a capi-render.yaml key misspelt',
    argv: ['build'],
    files: { 'capi-render.yaml': configYaml('gitops:\n  flavor: flux\n') },
    code: 1,
    says: 'capi-render.yaml:8:3: error[config]: gitops.flavor is not a known setting; did you mean "flavour"?',
  },
  {
    name: 'a top-level key misspelt',
    argv: ['build'],
    files: { 'capi-render.yaml': configYaml('repositorys: []\n') },
    code: 1,
    says: 'repositorys is not a known setting; did you mean "repositories"?',
  },
  {
    name: 'an overlay key misspelt',
    argv: ['build'],
    files: { 'overlays/dev/overlay.yaml': overlay('varaibles:\n  A: b\n') },
    code: 1,
    says: 'overlays/dev/overlay.yaml:5:1: error[overlay]: varaibles is not a known setting; did you mean "variables"?',
  },
  {
    name: 'a version without its v',
    argv: ['build', '--env', 'dev'],
    files: { 'providers/core.yaml': CORE('1.12.0') },
    code: 1,
    says: 'did you mean "v1.12.0"?',
  },
];

describe('usage mistakes', () => {
  it.each(MISTAKES)('$name → exit $code with the fix', async ({ argv, files, empty, code, says }) => {
    const cwd = empty ? tempDir() : repoWith(files);
    const r = await runCli(argv, { cwd, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code, r.stderr).toBe(code);
    if (typeof says === 'string') expect(r.stderr).toContain(says);
    else expect(r.stderr).toMatch(says);
    // No stack trace, no Node-internal wording.
    expect(r.stderr).not.toMatch(/\n\s+at .*\.(js|ts):\d+/);
    expect(r.stderr).not.toContain('To specify a positional argument');
  });

  it('global options before the command work as after it (--repo, --repo=, --debug)', async () => {
    const repo = repoWith();
    const elsewhere = tempDir();
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    const build = await runCli(['--repo', repo, 'build', '--env', 'dev'], { cwd: elsewhere, env });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr.split('\n')[0]).toMatch(/^rendered dev: cert-manager v1\.19\.4, cluster-api v1\.12\.0/);
    expect(existsSync(path.join(repo, 'rendered/dev'))).toBe(true);
    expect(readdirSync(elsewhere)).toEqual([]);
    const check = await runCli(['--debug', `--repo=${repo}`, 'check', '--env', 'dev'], { cwd: elsewhere, env });
    expect(check.code, check.stderr).toBe(0);
    // One given after the command wins, as a repeated option does.
    const after = await runCli(['--repo', elsewhere, 'check', '--env', 'dev', '--repo', repo], { cwd: elsewhere, env });
    expect(after.code, after.stderr).toBe(0);
    const help = await runCli(['--repo', repo, 'help', 'build'], { cwd: elsewhere });
    expect(help.stdout).toMatch(/^Usage: capi-render build /);
  });

  it('the same mistake in a file shared by several environments is reported once, naming them', async () => {
    const repo = repoWith({ 'providers/core.yaml': CORE('1.12.0') });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code).toBe(1);
    expect(r.stderr.match(/error\[/g)).toHaveLength(1);
    expect(r.stderr).toContain('[dev, prod]');
  });
});
