/**
 * Every failure the fuzz campaign found, as its shrunk case: parser inputs inline, whole-repository
 * cases as JSON under regressions/ (what `npm run fuzz` writes to fuzz-failures/ as `<target>-<seed>.json`).
 * Each runs the same properties as the campaign, so the test fails again if the bug comes back.
 */
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { makeRepo } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import { FIXTURES_REPOSITORY } from './fuzz-paths.js';
import { parserTargets } from './parser-targets.js';
import { runRepoCase, type RepoCase } from './repo-case.js';

const PARSER_CASES: { target: string; input: string; found: string }[] = [
  {
    target: 'lock',
    input: 'apiVersion: capi-render/v1alpha1\nkind: Lock\n',
    found: 'a lock without environments: parsed, then serializeLock threw "lock.environments is not iterable"',
  },
  {
    target: 'lock',
    input:
      'apiVersion: capi-render/v1alpha1\nkind: Lock\nenvironments:\n- name: dev\n  providers:\n  -\n  - provider: CoreProvider/capi-system/cluster-api\n    version: v1.12.0\n    source: local:x\n',
    found:
      'an empty provider entry in an environment: parsed, then serializeLock threw "Cannot read properties of null (reading \'provider\')"',
  },
  {
    target: 'overlay',
    input: '\n\ufeff',
    found: 'a byte-order mark after the start: js-yaml read a document the yaml package did not (as with a lone CR)',
  },
  {
    target: 'overlay',
    input: '#\rtrue',
    found:
      'a lone CR: js-yaml read a document the yaml package did not, and the schema error threw a TypeError locating it',
  },
  {
    target: 'github-url',
    input: 'https://github.com/%2Fkubernetes-sigs/cluster-api/releases/v1.12.0/core-components.yaml',
    found:
      'an escaped / in the owner: parsed as owner "/kubernetes-sigs" (clusterctl splits the decoded path and rejects it)',
  },
  {
    target: 'github-url',
    input: 'https://github.com/%2e%2e/cluster-api/releases/v1.12.0/core-components.yaml',
    found: 'an escaped dot segment as owner: parsed as owner ".." (the API path /repos/../cluster-api walks up)',
  },
];

describe('fuzz regressions: parsers', () => {
  const targets = parserTargets();
  it.each(PARSER_CASES)('$target: $found', async ({ target, input }) => {
    await targets.find((t) => t.name === target)!.property(input);
  });
});

const DIR = new URL('./regressions/', import.meta.url);
const REPO_CASES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => ({
    name: path.basename(f, '.json'),
    ...(JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as { found: string; case: RepoCase }),
  }));

describe('fuzz regressions: whole repositories', () => {
  it.each(REPO_CASES)('$name: $found', async ({ case: c }) => {
    await runRepoCase(c, { fixturesRepository: FIXTURES_REPOSITORY });
  });
});

describe('fuzz regressions: a local release file edited after a build', () => {
  // Found with local-release-edited.json: a stamped no-op (nothing else changed) kept the output of
  // the old file, and check then failed on its digest. Build and check must agree.
  it('the next build does not answer "unchanged": it fails on the digest, as check does', async () => {
    const { case: c } = JSON.parse(
      readFileSync(new URL('./regressions/local-release-edited.json', import.meta.url), 'utf8'),
    ) as { case: RepoCase };
    const repo = makeRepo(c.files as Record<string, string>);
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    expect((await runCli(['build', '--offline'], { cwd: repo, env })).code).toBe(0);
    const release = path.join(repo, 'releases/cluster-api/v0.1.0/core-components.yaml');
    writeFileSync(release, readFileSync(release, 'utf8').replace('release: v0.1.0', 'release: edited'));
    const build = await runCli(['build', '--offline'], { cwd: repo, env });
    const check = await runCli(['check', '--offline'], { cwd: repo, env });
    expect(build.stderr).toMatch(
      /error\[digest-mismatch\].*core-components\.yaml of local repository releases\/cluster-api v0\.1\.0/,
    );
    expect([build.code, check.code]).toEqual([1, 1]);
  });
});
