/**
 * The package a user installs is the complete product: `npm pack` of this repository, installed
 * globally into an empty prefix with no dev dependencies (as `npm install -g capi-render` does),
 * runs `--version`, `init --local-repository`, `build` and `check` in an empty folder outside this
 * repository — so nothing can come from this checkout's node_modules or sources. The generated
 * workflow names the same install command and version. Dependencies come from the npm cache
 * (`npm ci` filled it) or the registry.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string; name: string };
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

describe('npm pack → npm install -g → first run', () => {
  it('the installed package initialises, builds and checks a new repository', { timeout: 180_000 }, () => {
    const work = tempDir();
    const prefix = path.join(work, 'prefix');
    // --ignore-scripts: `npm test` built dist/ already; `prepack` would rebuild it under the other tests.
    execFileSync(npm, ['pack', '--ignore-scripts', '--silent', '--pack-destination', work], {
      cwd: REPO_ROOT,
      stdio: 'pipe',
    });
    const tarball = path.join(
      work,
      readdirSync(work).find((f) => f.endsWith('.tgz'))!,
    );
    expect(path.basename(tarball)).toBe(`${pkg.name}-${pkg.version}.tgz`);
    const install = spawnSync(
      npm,
      ['install', '--global', '--prefix', prefix, '--omit=dev', '--prefer-offline', '--no-audit', '--no-fund', tarball],
      { cwd: work, encoding: 'utf8' },
    );
    expect(install.status, install.stderr).toBe(0);
    // Nothing to run at install time: npm 11 warns about (and asks users to allow) install scripts, prepare included.
    expect(install.stderr).not.toMatch(/install-scripts|allow-scripts/);
    // Every dependency it resolves runs on this Node (package.json's engines; test/unit/dependency-engines.test.ts).
    expect(install.stderr).not.toMatch(/EBADENGINE/);
    const installed = path.join(prefix, 'lib', 'node_modules', pkg.name);
    // Only runtime dependencies were installed, and none of this repository's development files.
    expect(readdirSync(installed).sort()).toEqual(
      expect.arrayContaining(['README.md', 'bundled-templates', 'dist', 'docs', 'package.json', 'schemas']),
    );
    expect(readdirSync(installed).filter((f) => ['src', 'test', 'scripts', 'bench'].includes(f))).toEqual([]);
    expect(
      readdirSync(path.join(installed, 'node_modules')).filter((d) =>
        ['vitest', 'typescript', 'esbuild', 'vite'].includes(d),
      ),
    ).toEqual([]);

    const bin = path.join(prefix, 'bin', 'capi-render');
    const repo = path.join(work, 'my-capi');
    const env = {
      PATH: `${path.dirname(bin)}${path.delimiter}${process.env.PATH}`,
      HOME: work,
      CAPI_RENDER_CACHE_DIR: path.join(work, 'cache'),
    };
    const run = (args: string[], cwd: string) => spawnSync(bin, args, { cwd, env, encoding: 'utf8' });

    const version = run(['--version'], work);
    expect(version.status, version.stderr).toBe(0);
    expect(version.stdout).toBe(`capi-render ${pkg.version}\n`);
    const init = run(
      ['init', '--repo', repo, '--local-repository', `${FIXTURES}repository`, '--allow-outside', '--flavour', 'flux'],
      work,
    );
    expect(init.status, init.stderr).toBe(0);
    expect(readFileSync(path.join(repo, '.github/workflows/capi-render.yaml'), 'utf8')).toContain(
      `npx --yes capi-render@${pkg.version} `,
    );
    // The manual ships with the package: the hints and init's files name docs/ guides.
    expect(readdirSync(path.join(installed, 'docs'))).toEqual(
      expect.arrayContaining(['README.md', 'adoption.md', 'inputs-and-overlays.md', 'safety.md']),
    );
    // The README's Install section names the same command and version.
    const readme = readFileSync(path.join(installed, 'README.md'), 'utf8');
    expect(readme).toContain('npm install -g capi-render');
    expect(readme).toContain(`npx capi-render@${pkg.version}`);
    const build = run(['build'], repo);
    expect(build.status, build.stderr).toBe(0);
    expect(build.stderr).toContain('rendered dev: cert-manager v1.19.4, cluster-api v1.12.0');
    const check = run(['check', '--offline'], repo);
    expect(check.status, check.stderr).toBe(0);
    expect(check.stderr).toMatch(/^check: 1 environment up to date/m);
  });
});
