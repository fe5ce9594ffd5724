/**
 * The release's checks, run here before a tag runs them on GitHub: every `run:` step of
 * .github/workflows/release.yaml's `test` job except "Tests" (the suite this file belongs to) —
 * the version and repository check, `npm pack`, `npm publish --dry-run --offline` of that tarball —
 * executed in order as the runner would (bash -eo pipefail, GITHUB_* variables of a tag push,
 * passwordless sudo), in a copy of this checkout. The jobs after it publish and are not run. A
 * package.json the release would refuse (no `repository`, which npm provenance needs) fails here.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

interface Step {
  name?: string;
  id?: string;
  run?: string;
  uses?: string;
}
const workflow = jsYaml.load(readFileSync(path.join(REPO_ROOT, '.github/workflows/release.yaml'), 'utf8')) as {
  jobs: Record<string, { steps: Step[] }>;
};
const pkg = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  version: string;
  repository?: { url?: string };
};
// The repository the placeholder owner of the docs and package.json names.
const GITHUB_REPOSITORY = 'example/capi-render';
const checks = workflow.jobs['test']!.steps.filter((s) => s.run !== undefined && s.name !== 'Tests');

/** A copy of this checkout's tracked and unignored files, sharing its node_modules. */
function copyCheckout(): string {
  const copy = path.join(tempDir('capi-render-release-'), 'repo');
  const listed = spawnSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  });
  expect(listed.status, listed.stderr).toBe(0);
  for (const file of listed.stdout.split('\0')) {
    if (file === '' || !existsSync(path.join(REPO_ROOT, file))) continue;
    mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    cpSync(path.join(REPO_ROOT, file), path.join(copy, file), { verbatimSymlinks: true });
  }
  symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

/** Runs steps in order as a tag push of v<version> would, stopping at the first that fails. */
function runSteps(steps: Step[], cwd: string) {
  const runner = path.join(path.dirname(cwd), 'runner');
  const bin = path.join(runner, 'bin');
  mkdirSync(path.join(runner, 'temp'), { recursive: true });
  mkdirSync(bin, { recursive: true });
  // GitHub's runners have passwordless sudo; here the test already runs as the user that owns the copy.
  writeFileSync(path.join(bin, 'sudo'), '#!/bin/sh\nexec "$@"\n');
  chmodSync(path.join(bin, 'sudo'), 0o755);
  const env = {
    PATH: `${bin}${path.delimiter}${process.env['PATH'] ?? ''}`,
    HOME: process.env['HOME'] ?? runner,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_REF: `refs/tags/v${pkg.version}`,
    GITHUB_REF_NAME: `v${pkg.version}`,
    GITHUB_REF_TYPE: 'tag',
    GITHUB_REPOSITORY,
    GITHUB_REPOSITORY_OWNER: GITHUB_REPOSITORY.split('/')[0]!,
    GITHUB_WORKSPACE: cwd,
    GITHUB_OUTPUT: path.join(runner, 'output'),
    GITHUB_STEP_SUMMARY: path.join(runner, 'summary'),
    RUNNER_TEMP: path.join(runner, 'temp'),
  };
  const log: string[] = [];
  for (const step of steps) {
    const run = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      cwd,
      env,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    });
    log.push(`${step.name ?? step.run}: exit ${run.status}\n${run.stdout}${run.stderr}`);
    if (run.status !== 0) return { ok: false, log: log.join('\n'), failed: step, stderr: run.stderr, env };
  }
  return { ok: true, log: log.join('\n'), failed: undefined, stderr: '', env };
}

describe("the release workflow's checks", () => {
  it('are the test job run steps other than the test suite: the version check, the pack, the publish dry run', () => {
    expect(checks.map((s) => s.name)).toEqual([
      'Tag, package version, repository, image tag and init workflows agree',
      'Pack',
      'Publish dry run',
    ]);
    expect(workflow.jobs['test']!.steps.filter((s) => s.run !== undefined).map((s) => s.name)).toContain('Tests');
  });

  it('pass for a tag of this version in the repository package.json names', { timeout: 300_000 }, () => {
    expect(pkg.repository?.url).toBe(`git+https://github.com/${GITHUB_REPOSITORY}.git`);
    const copy = copyCheckout();
    const result = runSteps(checks, copy);
    expect(result.ok, result.log).toBe(true);
    expect(readFileSync(result.env.GITHUB_OUTPUT, 'utf8')).toBe(`version=${pkg.version}\n`);
    // The tarball the npm and image jobs download, and npm's verdict on publishing it.
    expect(existsSync(path.join(result.env.RUNNER_TEMP, 'tarball', `capi-render-${pkg.version}.tgz`))).toBe(true);
    expect(result.log).toContain(`+ capi-render@${pkg.version}`);
  });

  it('fail at the first step when package.json has no repository (npm provenance needs it)', () => {
    const copy = copyCheckout();
    const file = path.join(copy, 'package.json');
    const edited = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    delete edited['repository'];
    writeFileSync(file, JSON.stringify(edited, null, 2));
    const result = runSteps(checks, copy);
    expect(result.ok).toBe(false);
    expect(result.failed?.id).toBe('version');
    expect(result.stderr).toBe(
      `error[release-version]: package.json repository is ""; npm provenance needs https://github.com/${GITHUB_REPOSITORY} exactly\n`,
    );
  });
});
