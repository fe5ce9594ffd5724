import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import type { ProviderKind } from 'capi-render';
import { isGitHubUrl, parseGitHubReleaseUrl, type GitHubEnterpriseHost } from '../../src/source/github/github-url.js';
import { thrownBy } from '../helpers/errors.js';

const GHE: GitHubEnterpriseHost[] = [{ origin: 'https://ghe.example.com' }];
const GHE_CUSTOM_API: GitHubEnterpriseHost[] = [
  { origin: 'https://code.corp.test', apiBaseUrl: 'https://api.code.corp.test/' },
];
const PUBLIC = { origin: 'https://github.com', apiBaseUrl: 'https://api.github.com' };

interface ValidCase {
  name: string;
  input: string;
  config?: { kind?: ProviderKind; enterpriseHosts?: GitHubEnterpriseHost[] };
  expected: Record<string, unknown>;
}

const valid: ValidCase[] = [
  {
    name: 'clusterctl form with a tag',
    input: 'https://github.com/o/r1/releases/v0.4.1/path',
    expected: {
      ...PUBLIC,
      owner: 'o',
      repo: 'r1',
      version: 'v0.4.1',
      rootPath: '.',
      componentsFile: 'path',
      form: 'clusterctl',
    },
  },
  {
    name: 'clusterctl form with latest (a built-in URL)',
    input: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml',
    expected: {
      owner: 'kubernetes-sigs',
      repo: 'cluster-api',
      version: 'latest',
      componentsFile: 'core-components.yaml',
      form: 'clusterctl',
    },
  },
  {
    name: 'folders after the version become the root path',
    input: 'https://github.com/o/r/releases/v1.0.0/sub/dir/components.yaml',
    expected: { version: 'v1.0.0', rootPath: 'sub/dir', componentsFile: 'components.yaml', form: 'clusterctl' },
  },
  {
    name: 'a trailing slash is ignored',
    input: 'https://github.com/o/r/releases/v1.0.0/components.yaml/',
    expected: { version: 'v1.0.0', componentsFile: 'components.yaml' },
  },
  {
    name: 'percent-escapes are decoded like Go does',
    input: 'https://github.com/o/r/releases/v1.0.0%2Bbuild.1/components.yaml',
    expected: { version: 'v1.0.0+build.1', componentsFile: 'components.yaml' },
  },
  {
    name: 'query and fragment are ignored',
    input: 'https://github.com/o/r/releases/v1.0.0/components.yaml?x=1#top',
    expected: { version: 'v1.0.0', componentsFile: 'components.yaml' },
  },
  {
    name: 'GitHub download URL',
    input: 'https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/core-components.yaml',
    expected: { version: 'v1.12.0', componentsFile: 'core-components.yaml', rootPath: '.', form: 'download' },
  },
  {
    name: 'GitHub latest-download URL',
    input: 'https://github.com/o/r/releases/latest/download/infrastructure-components.yaml',
    expected: { version: 'latest', componentsFile: 'infrastructure-components.yaml', form: 'download' },
  },
  {
    name: 'download URL without a file takes the kind default',
    input: 'https://github.com/o/r/releases/download/v1.0.0',
    config: { kind: 'BootstrapProvider' },
    expected: { version: 'v1.0.0', componentsFile: 'bootstrap-components.yaml', form: 'download' },
  },
  {
    name: 'operator docs short form takes no version and the kind default asset',
    input: 'https://github.com/kubernetes-sigs/cluster-api-provider-aws/releases',
    config: { kind: 'InfrastructureProvider' },
    expected: {
      owner: 'kubernetes-sigs',
      repo: 'cluster-api-provider-aws',
      version: undefined,
      componentsFile: 'infrastructure-components.yaml',
      form: 'short',
    },
  },
  {
    name: 'short form with a version',
    input: 'https://github.com/o/r/releases/v2.0.0',
    config: { kind: 'RuntimeExtensionProvider' },
    expected: { version: 'v2.0.0', componentsFile: 'runtime-extensions-components.yaml', form: 'short' },
  },
  {
    name: 'release page URL',
    input: 'https://github.com/o/r/releases/tag/v1.2.3',
    config: { kind: 'CoreProvider' },
    expected: { version: 'v1.2.3', componentsFile: 'core-components.yaml', form: 'release-page' },
  },
  {
    name: 'GitHub Enterprise host with the default API base',
    input: 'https://ghe.example.com/team/provider/releases/v1.0.0/infrastructure-components.yaml',
    config: { enterpriseHosts: GHE },
    expected: {
      origin: 'https://ghe.example.com',
      apiBaseUrl: 'https://ghe.example.com/api/v3',
      owner: 'team',
      repo: 'provider',
      version: 'v1.0.0',
    },
  },
  {
    name: 'GitHub Enterprise host with its own API base',
    input: 'https://code.corp.test/team/provider/releases/latest/infrastructure-components.yaml',
    config: { enterpriseHosts: GHE_CUSTOM_API },
    expected: { origin: 'https://code.corp.test', apiBaseUrl: 'https://api.code.corp.test', version: 'latest' },
  },
];

const invalid: Array<{ name: string; input: string; config?: ValidCase['config'] }> = [
  { name: 'not a URL', input: '%gh&%ij' },
  { name: 'http scheme', input: 'http://github.com/o/r/releases/v1.0.0/file.yaml' },
  { name: 'another host', input: 'https://gitlab.com/o/r/releases/v1.0.0/file.yaml' },
  {
    name: 'www host (clusterctl compares the host exactly)',
    input: 'https://www.github.com/o/r/releases/v1.0.0/file.yaml',
  },
  { name: 'too short', input: 'https://github.com/dd/' },
  { name: 'third segment is not releases', input: 'https://github.com/o/r/tree/main/file.yaml' },
  { name: 'empty segment', input: 'https://github.com/o//releases/v1.0.0/file.yaml' },
  { name: 'bad escape', input: 'https://github.com/o/r/releases/v1.0.0/%zz.yaml' },
  { name: 'short form without a kind', input: 'https://github.com/o/r/releases' },
  { name: 'enterprise host not configured', input: 'https://ghe.example.com/o/r/releases/v1.0.0/file.yaml' },
  {
    name: 'enterprise host over the wrong scheme',
    input: 'http://ghe.example.com/o/r/releases/v1.0.0/file.yaml',
    config: { enterpriseHosts: GHE },
  },
];

describe('parseGitHubReleaseUrl', () => {
  it.each(valid)('$name', ({ input, config, expected }) => {
    expect(parseGitHubReleaseUrl(input, config)).toMatchObject(expected);
  });

  it.each(invalid)('rejects: $name', ({ input, config }) => {
    let thrown: unknown;
    try {
      parseGitHubReleaseUrl(input, config);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(SpecError);
    const err = thrown as SpecError;
    expect(err.code).toBe('source-unsupported');
    expect(err.diagnostics[0]?.hint).toContain('/releases/{latest|version-tag}/');
  });

  it('copies the caller location into the diagnostic', () => {
    const where = { object: 'CoreProvider/capi-system/cluster-api', field: 'spec.fetchConfig.url' };
    const err = thrownBy(SpecError, () => parseGitHubReleaseUrl('https://example.com/x', { where }));
    expect(err.diagnostics[0]).toMatchObject({ code: 'source-unsupported', ...where });
  });

  it('reports a malformed enterprise origin as a config error', () => {
    const err = thrownBy(SpecError, () =>
      parseGitHubReleaseUrl('https://github.example/o/r/releases/v1/f.yaml', {
        enterpriseHosts: [{ origin: 'not a url' }],
      }),
    );
    expect(err.code).toBe('config');
  });
});

describe('isGitHubUrl', () => {
  it.each([
    { input: 'https://github.com/o/r/releases/latest/f.yaml', hosts: [], expected: true },
    { input: 'https://ghe.example.com/o/r', hosts: GHE, expected: true },
    { input: 'https://ghe.example.com/o/r', hosts: [], expected: false },
    { input: 'file:///repo/cluster-api/v1.0.0/core-components.yaml', hosts: [], expected: false },
    { input: 'not a url', hosts: [], expected: false },
  ])('$input → $expected', ({ input, hosts, expected }) => {
    expect(isGitHubUrl(input, hosts)).toBe(expected);
  });
});
