import { describe, expect, it } from 'vitest';
import type { ProviderKind } from 'capi-render';
import { kindInfo, PROVIDER_KINDS } from '../../src/declarations/provider-kinds.js';
import {
  BUILTIN_PROVIDERS,
  BUILTIN_PROVIDERS_HEADER,
  compareProviders,
  findBuiltinProvider,
  mergeProviderList,
  type UserProviderEntry,
} from '../../src/source/github/builtin-providers.js';
import { parseGitHubReleaseUrl } from '../../src/source/github/github-url.js';
import { goUrlParseError, validateProviderEntry } from '../../src/source/github/validate-provider.js';

describe('built-in provider list', () => {
  it('records which clusterctl it comes from', () => {
    expect(BUILTIN_PROVIDERS_HEADER).toMatchObject({ clusterctl: 'v1.14.0' });
    expect(BUILTIN_PROVIDERS_HEADER.source).toMatch(/providers_client\.go$/);
  });

  it('has the 64 entries of clusterctl v1.14.0, unique by name and type', () => {
    expect(BUILTIN_PROVIDERS).toHaveLength(64);
    expect(new Set(BUILTIN_PROVIDERS.map((p) => `${p.type}/${p.name}`)).size).toBe(64);
  });

  it.each<{ type: ProviderKind; count: number }>([
    { type: 'CoreProvider', count: 1 },
    { type: 'BootstrapProvider', count: 7 },
    { type: 'ControlPlaneProvider', count: 10 },
    { type: 'InfrastructureProvider', count: 39 },
    { type: 'IPAMProvider', count: 3 },
    { type: 'RuntimeExtensionProvider', count: 1 },
    { type: 'AddonProvider', count: 3 },
  ])('has $count $type entries', ({ type, count }) => {
    expect(BUILTIN_PROVIDERS.filter((p) => p.type === type)).toHaveLength(count);
  });

  // clusterctl's own safeguard: every default passes validateProvider.
  it('passes clusterctl validation', () => {
    expect(BUILTIN_PROVIDERS.flatMap((p) => validateProviderEntry(p))).toEqual([]);
  });

  it("points every entry at a 'latest' GitHub release asset named after its type", () => {
    for (const provider of BUILTIN_PROVIDERS) {
      const url = parseGitHubReleaseUrl(provider.url);
      expect(url.version).toBe('latest');
      expect(url.form).toBe('clusterctl');
      // CAPD is the one provider whose asset carries a suffix.
      const expected =
        provider.name === 'docker'
          ? 'infrastructure-components-development.yaml'
          : kindInfo(provider.type).componentsAsset;
      expect(url.componentsFile).toBe(expected);
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(BUILTIN_PROVIDERS)).toBe(true);
    expect(Object.isFrozen(BUILTIN_PROVIDERS[0])).toBe(true);
  });
});

describe('findBuiltinProvider', () => {
  it.each<{ kind: ProviderKind; name: string; url: string | undefined }>([
    {
      kind: 'CoreProvider',
      name: 'cluster-api',
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/core-components.yaml',
    },
    {
      kind: 'BootstrapProvider',
      name: 'kubeadm',
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/bootstrap-components.yaml',
    },
    {
      kind: 'ControlPlaneProvider',
      name: 'kubeadm',
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/control-plane-components.yaml',
    },
    {
      kind: 'InfrastructureProvider',
      name: 'docker',
      url: 'https://github.com/kubernetes-sigs/cluster-api/releases/latest/infrastructure-components-development.yaml',
    },
    {
      kind: 'RuntimeExtensionProvider',
      name: 'nutanix',
      url: 'https://github.com/nutanix-cloud-native/cluster-api-runtime-extensions-nutanix/releases/latest/runtime-extensions-components.yaml',
    },
    {
      kind: 'IPAMProvider',
      name: 'nutanix',
      url: 'https://github.com/nutanix-cloud-native/cluster-api-ipam-provider-nutanix/releases/latest/ipam-components.yaml',
    },
    { kind: 'BootstrapProvider', name: 'aws', url: undefined },
    { kind: 'InfrastructureProvider', name: 'AWS', url: undefined },
    { kind: 'InfrastructureProvider', name: 'foo', url: undefined },
  ])('$kind $name', ({ kind, name, url }) => {
    expect(findBuiltinProvider(kind, name)?.url).toBe(url);
  });
});

describe('mergeProviderList', () => {
  const sorted = [...BUILTIN_PROVIDERS].sort(compareProviders);

  it('sorts the built-ins by type order, then name', () => {
    const { providers, diagnostics } = mergeProviderList(BUILTIN_PROVIDERS, []);
    expect(diagnostics).toEqual([]);
    expect(providers).toEqual(sorted);
    const orders = providers.map((p) => kindInfo(p.type).order);
    expect(orders).toEqual([...orders].sort((a, b) => a - b));
    expect(providers[0]?.name).toBe('cluster-api');
    expect(providers.at(-1)?.type).toBe('AddonProvider');
  });

  it('appends a new entry in its sorted place (before the addons)', () => {
    const zzz: UserProviderEntry = {
      name: 'zzz',
      url: 'https://zzz/infrastructure-components.yaml',
      type: 'InfrastructureProvider',
    };
    const { providers } = mergeProviderList(BUILTIN_PROVIDERS, [zzz]);
    expect(providers).toHaveLength(65);
    const index = providers.findIndex((p) => p.name === 'zzz');
    expect(providers[index - 1]?.type).toBe('InfrastructureProvider');
    expect(providers[index + 1]?.type).toBe('IPAMProvider');
  });

  it('replaces the entry with the same name and type; the last user entry wins', () => {
    const { providers } = mergeProviderList(BUILTIN_PROVIDERS, [
      { name: 'cluster-api', url: 'https://first/core-components.yaml', type: 'CoreProvider' },
      { name: 'cluster-api', url: 'https://zzz/core-components.yaml', type: 'CoreProvider' },
    ]);
    expect(providers).toHaveLength(64);
    expect(providers[0]).toEqual({
      name: 'cluster-api',
      url: 'https://zzz/core-components.yaml',
      type: 'CoreProvider',
    });
  });

  it('keeps same name with another type as a separate provider', () => {
    const { providers } = mergeProviderList(BUILTIN_PROVIDERS, [
      { name: 'kubeadm', url: '/repo/ipam-kubeadm/v1.0.0/ipam-components.yaml', type: 'IPAMProvider' },
    ]);
    expect(providers.filter((p) => p.name === 'kubeadm').map((p) => p.type)).toEqual([
      'BootstrapProvider',
      'ControlPlaneProvider',
      'IPAMProvider',
    ]);
  });

  it('does not change its inputs', () => {
    const before = JSON.stringify(BUILTIN_PROVIDERS);
    mergeProviderList(BUILTIN_PROVIDERS, [{ name: 'aws', url: 'https://x/y.yaml', type: 'InfrastructureProvider' }]);
    expect(JSON.stringify(BUILTIN_PROVIDERS)).toBe(before);
  });

  it('collects every problem of every invalid entry, with field paths, and skips those entries', () => {
    const { providers, diagnostics } = mergeProviderList(BUILTIN_PROVIDERS, [
      { name: '', url: '', type: '' },
      { name: 'ok', url: 'https://x/infrastructure-components.yaml', type: 'InfrastructureProvider' },
      { name: 'FOo', url: '%gh&%ij', type: 'bar', where: { file: 'clusterctl.yaml', line: 7 } },
    ]);
    expect(providers).toHaveLength(65);
    expect(diagnostics.every((d) => d.code === 'config' && d.severity === 'error')).toBe(true);
    expect(diagnostics.map((d) => d.field)).toEqual([
      'providers[0].name',
      'providers[0].url',
      'providers[0].type',
      'providers[2].name',
      'providers[2].url',
      'providers[2].type',
    ]);
    expect(diagnostics.slice(3).every((d) => d.file === 'clusterctl.yaml' && d.line === 7)).toBe(true);
  });
});

describe('validateProviderEntry (clusterctl validateProvider cases)', () => {
  it.each<{ name: string; input: { name: string; url: string; type: string }; expected: string[] }>([
    {
      name: 'valid infrastructure provider',
      input: { name: 'foo', url: 'https://something.com', type: 'InfrastructureProvider' },
      expected: [],
    },
    {
      name: 'valid core provider',
      input: { name: 'cluster-api', url: 'https://something.com', type: 'CoreProvider' },
      expected: [],
    },
    {
      name: 'local path URL is fine',
      input: {
        name: 'foo',
        url: '/home/me/repo/infrastructure-foo/v1.0.0/components.yaml',
        type: 'InfrastructureProvider',
      },
      expected: [],
    },
    {
      name: 'dotted DNS-1123 subdomain',
      input: { name: 'a.b-c', url: 'https://x', type: 'AddonProvider' },
      expected: [],
    },
    {
      name: 'cluster-api with the wrong type',
      input: { name: 'cluster-api', url: 'https://something.com', type: 'BootstrapProvider' },
      expected: ['type'],
    },
    {
      name: 'CoreProvider with another name',
      input: { name: 'sss', url: 'https://something.com', type: 'CoreProvider' },
      expected: ['name'],
    },
    { name: 'everything empty', input: { name: '', url: '', type: '' }, expected: ['name', 'url', 'type'] },
    {
      name: 'upper case name',
      input: { name: 'FOo', url: 'https://something.com', type: 'InfrastructureProvider' },
      expected: ['name'],
    },
    {
      name: 'not a DNS-1123 name',
      input: { name: 'foo_bar', url: 'https://something.com', type: 'InfrastructureProvider' },
      expected: ['name'],
    },
    {
      name: 'name too long',
      input: { name: 'a'.repeat(254), url: 'https://x', type: 'InfrastructureProvider' },
      expected: ['name'],
    },
    { name: 'empty URL', input: { name: 'foo', url: '', type: 'InfrastructureProvider' }, expected: ['url'] },
    {
      name: 'unparseable URL',
      input: { name: 'foo', url: '%gh&%ij', type: 'InfrastructureProvider' },
      expected: ['url'],
    },
    { name: 'empty type', input: { name: 'foo', url: 'https://something.com', type: '' }, expected: ['type'] },
    { name: 'unknown type', input: { name: 'foo', url: 'https://something.com', type: 'bar' }, expected: ['type'] },
    {
      name: "operator's type string is not clusterctl's",
      input: { name: 'foo', url: 'https://x', type: 'infrastructure' },
      expected: ['type'],
    },
  ])('$name', ({ input, expected }) => {
    const problems = validateProviderEntry(input);
    expect(problems.map((d) => d.field)).toEqual(expected);
    expect(problems.every((d) => d.code === 'config')).toBe(true);
  });

  it('accepts every clusterctl type', () => {
    for (const info of PROVIDER_KINDS) {
      const name = info.kind === 'CoreProvider' ? 'cluster-api' : 'x';
      expect(validateProviderEntry({ name, url: 'https://x', type: info.clusterctlType })).toEqual([]);
    }
  });
});

describe('goUrlParseError (what Go url.Parse rejects)', () => {
  it.each([
    { input: 'https://github.com/o/r/releases/latest/f.yaml', rejected: false },
    { input: 'file:///tmp/repo/cluster-api/v1.0.0/core-components.yaml', rejected: false },
    { input: 'relative/path.yaml', rejected: false },
    { input: 'https://x/a?q=%zz', rejected: false },
    { input: '%gh&%ij', rejected: true },
    { input: 'https://x/a%2', rejected: true },
    { input: ':no-scheme', rejected: true },
    { input: '1a:b/c', rejected: true },
    { input: 'https://x:port/a', rejected: true },
    { input: 'https://x/a\nb', rejected: true },
    { input: 'https://[::1]:8080/a', rejected: false },
  ])('$input → rejected: $rejected', ({ input, rejected }) => {
    expect(goUrlParseError(input) !== undefined).toBe(rejected);
  });
});
