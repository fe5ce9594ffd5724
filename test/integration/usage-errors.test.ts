/**
 * Every usage mistake a new user makes, with what capi-render answers: bad command-line usage exits
 * 2 everywhere, and a typo — in a command, a flag, an environment name, a capi-render.yaml or
 * overlay key, a version without its `v` — gets the closest correct spelling. Mistakes in files
 * are validation failures (exit 1, with file:line:col), per the exit-code contract; they get the
 * same suggestion.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const overlay = (extra = '') => `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources:\n  - ../../providers\n${extra}`;
const repoWith = (files: Record<string, string> = {}) =>
  makeRepo({ 'providers/core.yaml': CORE(), 'overlays/dev/overlay.yaml': overlay(), 'overlays/prod/overlay.yaml': overlay(), ...files });

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
  { name: 'a misspelt global flag', argv: ['--versoin'], code: 2, says: 'unknown option --versoin; did you mean --version?' },
  { name: 'a misspelt flag', argv: ['build', '--evn', 'dev'], code: 2, says: 'unknown option --evn; did you mean --env?' },
  { name: 'a flag with one dash', argv: ['check', '-offline'], code: 2, says: 'unknown option -offline; did you mean --offline?' },
  { name: 'a flag of another command', argv: ['check', '--stdout'], code: 2, says: /unknown option --stdout/ },
  { name: 'an environment as a bare word', argv: ['build', 'dev'], code: 2, says: 'pass --env dev' },
  { name: 'a value given to a switch', argv: ['build', '--offline=yes'], code: 2, says: /--offline/ },
  { name: 'a flag without its value', argv: ['build', '--env'], code: 2, says: /--env/ },
  { name: 'an unknown environment', argv: ['build', '--env', 'nope'], code: 2, says: 'unknown environment "nope" (environments: dev, prod)' },
  { name: 'a misspelt environment', argv: ['check', '--env', 'prd'], code: 2, says: 'did you mean --env prod?' },
  { name: 'an unknown environment for inputs', argv: ['inputs', '--env', 'deev'], code: 2, says: 'did you mean --env dev?' },
  { name: 'a shard that is not K/N', argv: ['build', '--shard', 'x'], code: 2, says: '--shard must be K/N' },
  { name: 'a shard beyond N', argv: ['check', '--shard', '3/2'], code: 2, says: '--shard must be K/N' },
  { name: 'an unknown infrastructure provider', argv: ['init', '--infrastructure', 'nosuch'], empty: true, code: 2, says: "--infrastructure nosuch: not in clusterctl's provider list" },
  { name: 'a misspelt infrastructure provider', argv: ['init', '--infrastructure', 'dockr'], empty: true, code: 2, says: 'did you mean "docker"?' },
  { name: 'a misspelt GitOps flavour', argv: ['init', '--flavour', 'flx'], empty: true, code: 2, says: 'did you mean "flux"?' },
  {
    name: 'a version the local repository lacks',
    argv: ['init', '--version', 'v1.99.0', '--local-repository', `${FIXTURES}repository`],
    empty: true,
    code: 2,
    says: '--version v1.99.0: the local repository has cluster-api',
  },
  { name: 'a capi-render.yaml key misspelt', argv: ['build'], files: { 'capi-render.yaml': configYaml('gitops:\n  flavor: flux\n') }, code: 1, says: 'capi-render.yaml:8:3: error[config]: gitops.flavor is not a known setting; did you mean "flavour"?' },
  { name: 'a top-level key misspelt', argv: ['build'], files: { 'capi-render.yaml': configYaml('repositorys: []\n') }, code: 1, says: 'repositorys is not a known setting; did you mean "repositories"?' },
  { name: 'an overlay key misspelt', argv: ['build'], files: { 'overlays/dev/overlay.yaml': overlay('varaibles:\n  A: b\n') }, code: 1, says: 'overlays/dev/overlay.yaml:5:1: error[overlay]: varaibles is not a known setting; did you mean "variables"?' },
  { name: 'a version without its v', argv: ['build', '--env', 'dev'], files: { 'providers/core.yaml': CORE('1.12.0') }, code: 1, says: 'did you mean "v1.12.0"?' },
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

  it('the same mistake in a file shared by several environments is reported once, naming them', async () => {
    const repo = repoWith({ 'providers/core.yaml': CORE('1.12.0') });
    const r = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(r.code).toBe(1);
    expect(r.stderr.match(/error\[/g)).toHaveLength(1);
    expect(r.stderr).toContain('[dev, prod]');
  });
});
