/** init → build → check in an empty folder. */
import { cpSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

/** A temp folder holding the bundled local repository at `rel` (inside it, as init wants). */
function repoWithMirror(rel = 'vendor/releases'): string {
  const repo = tempDir();
  cpSync(`${FIXTURES}repository`, path.join(repo, rel), { recursive: true });
  return repo;
}

describe('init', () => {
  it('scaffolds a repository that builds and then checks clean', async () => {
    const repo = repoWithMirror();
    const init = await runCli(
      [
        'init',
        '--version',
        'v1.12.0',
        '--cert-manager-version',
        'v1.19.4',
        '--local-repository',
        'vendor/releases',
        '--flavour',
        'flux',
      ],
      { cwd: repo },
    );
    expect(init.code, init.stderr).toBe(0);
    const workflow = readFileSync(path.join(repo, '.github/workflows/capi-render.yaml'), 'utf8');
    expect(workflow).toContain('GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}');
    // Every pull request gets the HTML report against its base branch, as an artifact.
    const steps = (
      YAML.parse(workflow) as {
        jobs: {
          render: {
            steps: { name?: string; if?: string; uses?: string; run?: string; with?: Record<string, unknown> }[];
          };
        };
      }
    ).jobs.render.steps;
    expect(steps[0]).toMatchObject({ uses: 'actions/checkout@v4', with: { 'fetch-depth': 0 } });
    expect(steps.find((st) => st.name === 'HTML report')?.run).toMatch(
      /^npx --yes capi-render@\S+ report --base "origin\/\$\{\{ github\.base_ref \}\}" --out "\$RUNNER_TEMP\/capi-render-report\.html"$/,
    );
    expect(steps.find((st) => st.uses === 'actions/upload-artifact@v4')?.with).toMatchObject({
      name: 'capi-render-report',
      path: '${{ runner.temp }}/capi-render-report.html',
    });
    // …and the check fails on a danger finding against the base branch.
    expect(steps.find((st) => st.name === 'Safety findings')).toMatchObject({
      if: "github.event_name == 'pull_request'",
    });
    expect(steps.find((st) => st.name === 'Safety findings')?.run).toMatch(
      /^npx --yes capi-render@\S+ diff --base "origin\/\$\{\{ github\.base_ref \}\}" --fail-on danger$/,
    );
    const renovate = JSON.parse(readFileSync(path.join(repo, 'renovate.json'), 'utf8')) as {
      customManagers: { matchStrings: string[]; managerFilePatterns: string[] }[];
    };
    const core = readFileSync(path.join(repo, 'providers/core.yaml'), 'utf8');
    // The Renovate regex really matches the scaffolded version lines.
    const match = new RegExp(renovate.customManagers[0]!.matchStrings[0]!).exec(core);
    expect(match?.groups).toMatchObject({
      datasource: 'github-releases',
      depName: 'kubernetes-sigs/cluster-api',
      currentValue: 'v1.12.0',
    });
    // …and certManager.version in capi-render.yaml, which the file patterns cover.
    const config = readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8');
    expect(config).toContain(
      'certManager:\n  # renovate: datasource=github-releases depName=cert-manager/cert-manager\n  version: "v1.19.4"\n',
    );
    expect(new RegExp(renovate.customManagers[0]!.matchStrings[0]!).exec(config)?.groups).toMatchObject({
      datasource: 'github-releases',
      depName: 'cert-manager/cert-manager',
      currentValue: 'v1.19.4',
    });
    expect(
      renovate.customManagers[0]!.managerFilePatterns.map((p) => new RegExp(p.slice(1, -1)).test('capi-render.yaml')),
    ).toContain(true);

    const build = await runCli(['build'], { cwd: repo });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain(
      'rendered dev: cert-manager v1.19.4, cluster-api v1.12.0, bootstrap-kubeadm v1.12.0, control-plane-kubeadm v1.12.0, infrastructure-docker v1.12.0',
    );
    const check = await runCli(['check'], { cwd: repo });
    expect(check.code, check.stderr).toBe(0);
  });

  // Issue 23: `--version 1.12` wrote `version: 1.12` — the number 1.12 to YAML — which the build refused.
  it.each([
    [
      '1.12',
      '~1.12',
      '--version 1.12: written as ~1.12 (the newest v1.12.x release; the first build pins it in capi-render.lock)',
    ],
    [
      'v1.12',
      '~1.12',
      '--version v1.12: written as ~1.12 (the newest v1.12.x release; the first build pins it in capi-render.lock)',
    ],
    ['1.12.0', 'v1.12.0', '--version 1.12.0: written as v1.12.0 (releases are tagged with a leading v)'],
    ['~1.12', '~1.12', 'created '],
  ])(
    '--version %s is written, quoted, as "%s", and the first build takes it offline',
    async (given, written, firstLine) => {
      const repo = repoWithMirror();
      const init = await runCli(['init', '--version', given, '--local-repository', 'vendor/releases'], { cwd: repo });
      expect(init.code, init.stderr).toBe(0);
      expect(init.stderr.split('\n')[0]).toContain(firstLine);
      for (const file of ['providers/core.yaml', 'providers/kubeadm.yaml', 'providers/docker.yaml']) {
        const text = readFileSync(path.join(repo, file), 'utf8');
        expect(text).toContain(`  version: "${written}"\n`);
        for (const doc of YAML.parseAllDocuments(text)) expect(doc.toJS().spec.version).toBe(written);
      }
      expect(readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8')).toMatch(/^ {2}version: "v\d+\.\d+\.\d+"$/m);
      const build = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(build.code, build.stderr).toBe(0);
      expect(build.stderr).toContain(
        'cluster-api v1.12.0, bootstrap-kubeadm v1.12.0, control-plane-kubeadm v1.12.0, infrastructure-docker v1.12.0',
      );
    },
  );

  // The path lands in capi-render.yaml as every checkout can read it: relative to the repository.
  it.each([
    ['a relative path', () => 'vendor/releases', 'vendor/releases'],
    ['a relative path with ./ and a trailing slash', () => './vendor/releases/', 'vendor/releases'],
    ['an absolute path inside the repository', (repo: string) => path.join(repo, 'vendor/releases'), 'vendor/releases'],
  ])('--local-repository as %s is written relative to the repository', async (_name, flag, written) => {
    const repo = repoWithMirror();
    const init = await runCli(['init', '--version', 'v1.12.0', '--local-repository', flag(repo)], { cwd: repo });
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8')).toContain(
      `repositories:\n  - path: ${written}\n`,
    );
    const build = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(build.code, build.stderr).toBe(0);
  });

  it.each([
    ['an absolute path', () => `${FIXTURES}repository`],
    ['a relative path out of the repository', (repo: string) => path.relative(repo, `${FIXTURES}repository`)],
    [
      'a link inside the repository to a folder outside it',
      (repo: string) => (symlinkSync(`${FIXTURES}repository`, path.join(repo, 'mirror')), 'mirror'),
    ],
  ])('refuses --local-repository outside the repository (%s) in one line, and writes nothing', async (_name, flag) => {
    const repo = tempDir();
    const given = flag(repo);
    const init = await runCli(['init', '--local-repository', given], { cwd: repo });
    expect(init.code).toBe(2);
    expect(init.stderr.trim().split('\n')).toHaveLength(1);
    expect(init.stderr).toContain(
      `--local-repository ${given} is outside the repository (${repo}): a build would depend on this machine's layout, and CI and the Argo CD / Flux repo-server will not have it; copy the releases inside (\`capi-render mirror --to vendor/releases\` fills a folder) or pass --allow-outside`,
    );
    expect(readdirSync(repo).filter((f) => f !== 'mirror')).toEqual([]);
  });

  it.each([
    ['an absolute path, kept absolute', () => `${FIXTURES}repository`, () => path.resolve(`${FIXTURES}repository`)],
    [
      'a relative path, kept relative to the repository',
      (repo: string) => path.relative(repo, `${FIXTURES}repository`),
      (repo: string) => path.relative(repo, `${FIXTURES}repository`),
    ],
  ])('--allow-outside accepts %s', async (_name, flag, written) => {
    const repo = tempDir();
    const init = await runCli(['init', '--version', 'v1.12.0', '--local-repository', flag(repo), '--allow-outside'], {
      cwd: repo,
    });
    expect(init.code, init.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8')).toContain(
      `repositories:\n  - path: ${written(repo)}\n`,
    );
  });

  it('--allow-outside goes with --local-repository', async () => {
    const r = await runCli(['init', '--allow-outside'], { cwd: tempDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--allow-outside goes with --local-repository');
  });

  it('refuses to overwrite existing files', async () => {
    const repo = tempDir();
    expect((await runCli(['init'], { cwd: repo })).code).toBe(0);
    const again = await runCli(['init'], { cwd: repo });
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/init would overwrite .*capi-render\.yaml/);
  });

  it('never writes through a symbolic link, even with --force, and never into .git', async () => {
    const repo = tempDir();
    const elsewhere = tempDir();
    symlinkSync(elsewhere, path.join(repo, 'providers'));
    const linked = await runCli(['init', '--force'], { cwd: repo });
    expect(linked.code).toBe(1);
    expect(linked.stderr).toContain('error[input-path]: init would write through symbolic links: providers');
    expect(readdirSync(elsewhere)).toEqual([]);
    expect(readdirSync(repo)).toEqual(['providers']);
    mkdirSync(path.join(repo, '.git'));
    const inGit = await runCli(['init', '--repo', '.git'], { cwd: repo });
    expect(inGit.code).toBe(2);
    expect(inGit.stderr).toContain('is inside a .git folder');
    expect(readdirSync(path.join(repo, '.git'))).toEqual([]);
  });

  it('--force replaces existing files whole, and leaves no temporary files', async () => {
    const repo = tempDir();
    writeFileSync(path.join(repo, 'capi-render.yaml'), 'old: true\n');
    const r = await runCli(['init', '--force'], { cwd: repo });
    expect(r.code, r.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8')).toContain('kind: Config');
    expect(readdirSync(repo).filter((f) => f.includes('capi-render-tmp'))).toEqual([]);
  });
});
