/**
 * Bad input through the CLI: each case gives one clear error naming the file (and field), exits 1 and
 * leaves an existing rendered/ exactly as it was.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, configYaml, makeRepo, snapshotTree } from '../helpers/repo.js';
import { FIXTURES, fixtureText } from '../helpers/fixtures.js';
import path from 'node:path';

const coreConfigMap = fixtureText('configmaps/core-cluster-api-v1.12.0.yaml');
const selectorCore = CORE(
  'v1.12.0',
  'capi-system',
  '  fetchConfig:\n    selector:\n      matchLabels:\n        provider.cluster.x-k8s.io/name: cluster-api\n',
);

const cases: {
  name: string;
  files: Record<string, string>;
  code: string;
  file?: string;
  line?: number;
  text?: RegExp;
}[] = [
  {
    name: 'malformed YAML',
    files: {
      'providers/core.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata: {name: cluster-api\n',
    },
    code: 'yaml-syntax',
    file: 'providers/core.yaml',
  },
  {
    name: 'an unknown kind',
    files: {
      'providers/core.yaml': CORE(),
      'providers/extra.yaml': 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\n',
    },
    code: 'unknown-kind',
    file: 'providers/extra.yaml',
    line: 2,
  },
  {
    name: 'a schema violation',
    files: { 'providers/core.yaml': CORE('v1.12.0', 'capi-system', '  deployment:\n    replicas: two\n') },
    code: 'schema',
    file: 'providers/core.yaml',
    line: 9,
    text: /spec\.deployment\.replicas/,
  },
  {
    name: 'an unknown field',
    files: { 'providers/core.yaml': CORE('v1.12.0', 'capi-system', '  deploymnet: {}\n') },
    code: 'schema',
    file: 'providers/core.yaml',
    line: 8,
    text: /deployment/,
  },
  {
    name: 'a selector matching nothing',
    files: { 'providers/core.yaml': selectorCore },
    code: 'selector-no-match',
    file: 'providers/core.yaml',
    line: 10,
  },
  {
    name: 'two ConfigMaps for one version',
    files: {
      'providers/core.yaml': selectorCore,
      'providers/sources/a.yaml': coreConfigMap,
      'providers/sources/b.yaml': coreConfigMap.replace(/^  name: .*$/m, '  name: core-copy'),
    },
    code: 'configmap-duplicate-version',
    file: 'providers/sources/b.yaml',
  },
  {
    name: 'a missing variable',
    files: {
      'capi-render.yaml': configYaml('', [`${FIXTURES}derived/tanzu-framework`]),
      'providers/core.yaml': CORE(),
      'providers/vsphere.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: vsphere\n  namespace: capv-system\nspec:\n  version: v1.5.3\n',
    },
    code: 'variables-missing',
    text: /VSPHERE_PASSWORD/,
  },
  {
    name: 'two core providers',
    files: { 'providers/core.yaml': `${CORE()}---\n${CORE('v1.12.0', 'other')}` },
    code: 'preflight',
    file: 'providers/core.yaml',
    line: 12,
  },
  {
    name: 'a CoreProvider not named cluster-api',
    files: { 'providers/core.yaml': CORE().replace('name: cluster-api', 'name: capi') },
    code: 'preflight',
    line: 4,
  },
  {
    name: 'no core provider',
    files: {
      'providers/d.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: docker\n  namespace: capd-system\nspec:\n  version: v1.12.0\n',
    },
    code: 'preflight',
  },
  {
    name: 'a version the repository does not have',
    files: { 'providers/core.yaml': CORE('v1.13.0') },
    code: 'source-not-found',
  },
  {
    name: 'a version that is not semver',
    files: { 'providers/core.yaml': CORE('one-twelve') },
    code: 'preflight',
    line: 7,
  },
  {
    name: 'a provider with no source',
    files: {
      'providers/core.yaml': CORE(),
      'providers/x.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: nosuch\n  namespace: x\nspec:\n  version: v1.0.0\n',
    },
    code: 'preflight',
    file: 'providers/x.yaml',
  },
  {
    name: 'a configSecret that is not among the inputs',
    files: { 'providers/core.yaml': CORE('v1.12.0', 'capi-system', '  configSecret:\n    name: vars\n') },
    code: 'config-secret',
  },
  {
    name: 'a bad capi-render.yaml',
    files: {
      'capi-render.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Config\nrepositorys: []\n',
      'providers/core.yaml': CORE(),
    },
    code: 'config',
    file: 'capi-render.yaml',
    line: 3,
  },
];

describe('build with bad input', () => {
  it.each(cases)('$name → exit 1, error $code, rendered/ untouched', async ({ files, code, file, line, text }) => {
    const repo = makeRepo({
      ...files,
      'rendered/default/kustomization.yaml': 'previous\n',
      'rendered/default/cluster-api/x.yaml': 'old\n',
    });
    const before = snapshotTree(path.join(repo, 'rendered'));
    const r = await runCli(['build'], { cwd: repo });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toContain(`error[${code}]`);
    if (file) expect(r.stderr).toContain(line ? `${file}:${line}:` : file);
    if (text) expect(r.stderr).toMatch(text);
    expect(r.stderr).not.toMatch(/\n\s+at .*\.(ts|js):\d+/); // no stack trace without --debug
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(before);
  });
});

describe('--repo that is not a repository folder', () => {
  it.each([
    { name: 'a missing folder', repo: (dir: string) => path.join(dir, 'missing') },
    { name: 'a file', repo: (dir: string) => path.join(dir, 'capi-render.yaml') },
  ])('$name → exit 2 naming the folder, before any work', async ({ repo }) => {
    const dir = makeRepo({ 'providers/core.yaml': CORE() });
    const r = await runCli(['build', '--repo', repo(dir)], { cwd: dir });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `capi-render build: --repo ${repo(dir)} is not a directory; pass the repository's folder (the one holding providers/), or run capi-render init there first\n`,
    );
  });
});
