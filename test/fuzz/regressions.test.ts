/**
 * Every failure the fuzz campaign found, as its shrunk case: parser inputs inline, whole-repository
 * cases as JSON under regressions/ (what `npm run fuzz` writes to fuzz-failures/ as `<target>-<seed>.json`).
 * Each runs the same properties as the campaign, so the test fails again if the bug comes back.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'vitest';
import { FIXTURES_REPOSITORY } from './fuzz-paths.js';
import { parserTargets } from './parser-targets.js';
import { runRepoCase, type RepoCase } from './repo-case.js';

const PARSER_CASES: { target: string; input: string; found: string }[] = [
  { target: 'lock', input: 'apiVersion: capi-render/v1alpha1\nkind: Lock\n', found: 'a lock without environments: parsed, then serializeLock threw "lock.environments is not iterable"' },
  {
    target: 'lock',
    input: 'apiVersion: capi-render/v1alpha1\nkind: Lock\nenvironments:\n- name: dev\n  providers:\n  -\n  - provider: CoreProvider/capi-system/cluster-api\n    version: v1.12.0\n    source: local:x\n',
    found: 'an empty provider entry in an environment: parsed, then serializeLock threw "Cannot read properties of null (reading \'provider\')"',
  },
  { target: 'overlay', input: '\n\ufeff', found: 'a byte-order mark after the start: js-yaml read a document the yaml package did not (as with a lone CR)' },
  { target: 'overlay', input: '#\rtrue', found: 'a lone CR: js-yaml read a document the yaml package did not, and the schema error threw a TypeError locating it' },
  { target: 'github-url', input: 'https://github.com/%2Fkubernetes-sigs/cluster-api/releases/v1.12.0/core-components.yaml', found: 'an escaped / in the owner: parsed as owner "/kubernetes-sigs" (clusterctl splits the decoded path and rejects it)' },
  { target: 'github-url', input: 'https://github.com/%2e%2e/cluster-api/releases/v1.12.0/core-components.yaml', found: 'an escaped dot segment as owner: parsed as owner ".." (the API path /repos/../cluster-api walks up)' },
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
  .map((f) => ({ name: path.basename(f, '.json'), ...(JSON.parse(readFileSync(new URL(f, DIR), 'utf8')) as { found: string; case: RepoCase }) }));

describe('fuzz regressions: whole repositories', () => {
  it.each(REPO_CASES)('$name: $found', async ({ case: c }) => {
    await runRepoCase(c, { fixturesRepository: FIXTURES_REPOSITORY });
  });
});
