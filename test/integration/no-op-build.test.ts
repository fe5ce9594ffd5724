/**
 * The whole-build stamp: a no-op rebuild is answered from the stamp without loading the
 * CLI, and any change the build depends on — an overlay, a base elsewhere in the repository, a
 * template, the lock, an output folder — makes the next build a real one.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { CORE, configYaml, makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const overlay = (i: number, resources = '[../../providers]') =>
  `apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: ${resources}\nvariables:\n  CAPI_DIAGNOSTICS_ADDRESS: ":${8000 + i}"\n`;

function repo(extra: Record<string, string> = {}): string {
  return makeRepo({
    'providers/core.yaml': CORE(),
    'overlays/a/overlay.yaml': overlay(1),
    'overlays/b/overlay.yaml': overlay(2),
    ...extra,
  });
}

/** The launcher and the no-op bundle alone (and package.json), without the CLI bundle: only a stamped no-op can succeed. */
function launcherWithoutCli(): string {
  const dir = tempDir();
  mkdirSync(path.join(dir, 'dist/bin'), { recursive: true });
  copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(dir, 'package.json'));
  for (const f of ['capi-render.js', 'no-op-build.js'])
    copyFileSync(path.join(REPO_ROOT, 'dist/bin', f), path.join(dir, 'dist/bin', f));
  return path.join(dir, 'dist/bin/capi-render.js');
}

const NO_OP =
  /^unchanged since the last build \(inputs hash in capi-render\.lock\): a, b\nrendered: 0 written, \d+ unchanged, 0 removed; capi-render\.lock unchanged\n$/;

describe('the no-op rebuild', () => {
  it('is a small bundle: none of the dependencies is inlined in it (the YAML library is loaded from node_modules only for a form the line reader declines)', () => {
    const map = JSON.parse(readFileSync(path.join(REPO_ROOT, 'dist/bin/no-op-build.js.map'), 'utf8')) as {
      sources: string[];
    };
    expect(map.sources.filter((s) => s.includes('node_modules/'))).toEqual([]);
  });

  it('is answered from the stamp, by the small bundle alone, with the same report as a full no-op', async () => {
    const cache = tempDir();
    const dir = repo();
    const env = { CAPI_RENDER_CACHE_DIR: cache };
    expect((await runCli(['build'], { cwd: dir, env })).code).toBe(0);
    expect(readdirSync(path.join(cache, 'stamps'))).toHaveLength(1);
    const inProcess = await runCli(['build'], { cwd: dir, env });
    expect(inProcess.code).toBe(0);
    expect(inProcess.stderr).toMatch(NO_OP);
    const launcher = launcherWithoutCli();
    for (const argv of [
      ['build'],
      ['build', '--offline', '--frozen'],
      ['build', '--repo', dir],
      ['--repo', dir, 'build'],
    ]) {
      const r = spawnSync(process.execPath, [launcher, ...argv], {
        cwd: dir,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
      });
      expect(r.status, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      expect(r.stderr).toBe(inProcess.stderr);
    }
    // Anything the small bundle is not sure about goes to the CLI (missing here: so it fails).
    for (const argv of [['build', '--env', 'a'], ['build', '--stdout'], ['check'], ['build', '--help']]) {
      const r = spawnSync(process.execPath, [launcher, ...argv], {
        cwd: dir,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, ...env },
      });
      expect(r.status, argv.join(' ')).not.toBe(0);
      expect(r.stderr).toContain('main.js');
    }
  });

  it.each([
    [
      'an overlay',
      (dir: string) => writeFileSync(path.join(dir, 'overlays/a/overlay.yaml'), overlay(9)),
      /rendered a:/,
    ],
    [
      'a provider CR',
      (dir: string) => writeFileSync(path.join(dir, 'providers/core.yaml'), `${CORE()}  # a comment\n`),
      /rendered a: .*\nrendered b:/,
    ],
    [
      'a base outside providers/ and overlays/',
      (dir: string) =>
        writeFileSync(
          path.join(dir, 'bases/extra/cm.yaml'),
          'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra2\n  namespace: capi-system\ndata: {}\n',
        ),
      /rendered b:/,
    ],
    [
      'capi-render.yaml',
      (dir: string) => writeFileSync(path.join(dir, 'capi-render.yaml'), `${configYaml()}# edited\n`),
      /rendered a: .*\nrendered b:/,
    ],
    [
      'a template',
      (dir: string) => {
        mkdirSync(path.join(dir, 'templates'), { recursive: true });
        writeFileSync(path.join(dir, 'templates/notes.hbs'), 'x');
      },
      /rendered a: .*\nrendered b:/,
    ],
    [
      'the lock',
      (dir: string) =>
        writeFileSync(
          path.join(dir, 'capi-render.lock'),
          readFileSync(path.join(dir, 'capi-render.lock'), 'utf8').replace(
            /inputs: [0-9a-f]{64}/,
            `inputs: ${'f'.repeat(64)}`,
          ),
        ),
      /rendered a:/,
    ],
    [
      'an environment’s output folder',
      (dir: string) => rmSync(path.join(dir, 'rendered/b'), { recursive: true }),
      /rendered b:/,
    ],
    [
      'a new environment',
      (dir: string) => {
        mkdirSync(path.join(dir, 'overlays/c'));
        writeFileSync(path.join(dir, 'overlays/c/overlay.yaml'), overlay(3));
      },
      /rendered c:/,
    ],
  ])('a change of %s makes the next build a real one', async (_name, change, rendered) => {
    const cache = tempDir();
    const dir = repo({
      'bases/extra/cm.yaml':
        'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  namespace: capi-system\ndata: {}\n',
      'overlays/b/overlay.yaml': overlay(2, '[../../providers, ../../bases/extra]'),
    });
    const env = { CAPI_RENDER_CACHE_DIR: cache };
    expect((await runCli(['build'], { cwd: dir, env })).code).toBe(0);
    change(dir);
    const r = await runCli(['build'], { cwd: dir, env });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(rendered);
    expect((await runCli(['check'], { cwd: dir, env })).code).toBe(0);
  });

  it('leaves no stamp when the output depends on the process environment, or after a partial build', async () => {
    const cache = tempDir();
    const fromEnv = repo({ 'capi-render.yaml': `${configYaml()}variables:\n  EXTRA: {fromEnv: EXTRA_VALUE}\n` });
    expect(
      (await runCli(['build'], { cwd: fromEnv, env: { CAPI_RENDER_CACHE_DIR: cache, EXTRA_VALUE: 'x' } })).code,
    ).toBe(0);
    const partial = repo();
    expect((await runCli(['build', '--env', 'a'], { cwd: partial, env: { CAPI_RENDER_CACHE_DIR: cache } })).code).toBe(
      0,
    );
    expect(existsSync(path.join(cache, 'stamps'))).toBe(false);
  });
});
