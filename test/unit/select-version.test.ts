import { describe, expect, it } from 'vitest';
import { FetchError } from '../../src/errors.js';
import { parseVersionRequest, selectVersion } from '../../src/resolve/select-version.js';
import { createLocalRepositorySource } from '../../src/source/local-repository.js';
import type { ReleaseSource } from 'capi-render';
import { FIXTURES, fixtureText } from '../helpers/fixtures.js';

const local = (label: string) =>
  createLocalRepositorySource({ root: `${FIXTURES}repository`, displayRoot: 'fx', label });
const ctx = { latestRule: 'clusterctl' as const, providerRef: 'CoreProvider/capi-system/cluster-api' };

/** A source over given tags; each tag has a metadata.yaml unless listed in `noMetadata`. */
function memorySource(tags: string[], metadata: (tag: string) => string | undefined): ReleaseSource {
  return {
    id: 'mem',
    description: 'memory',
    listVersions: async () => [...tags].reverse(),
    readFile: async (version, file) => {
      const text = file === 'metadata.yaml' ? metadata(version) : 'x';
      if (text === undefined)
        throw new FetchError({ severity: 'error', code: 'source-not-found', message: `${version}/${file}` });
      return { bytes: new TextEncoder().encode(text), url: `${version}/${file}` };
    },
  };
}
const meta = (series: [number, number, string][]) =>
  `apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries:\n${series.map(([a, b, c]) => `- {major: ${a}, minor: ${b}, contract: ${c}}`).join('\n')}\n`;

describe('parseVersionRequest', () => {
  it.each([
    ['v1.12.0', 'exact'],
    ['1.12.0', 'exact'],
    ['v1.13.0-rc.1', 'exact'],
    ['', 'latest'],
    ['latest', 'latest'],
    [undefined, 'latest'],
    ['~1.12', 'range'],
    ['~v1.12', 'range'],
    ['>=1.11 <1.13', 'range'],
    ['1.12.x', 'range'],
    ['^1', 'range'],
  ])('%j is %s', (value, kind) => {
    expect(parseVersionRequest(value)?.kind).toBe(kind);
  });
  it.each([['newest'], ['v1.12.0.1'], ['release-1.12']])('%j is not a version request', (value) => {
    expect(parseVersionRequest(value)).toBeNull();
  });
});

describe('selectVersion on the real cluster-api local repository (v1.4.2 … v1.12.0)', () => {
  it.each([
    ['latest', undefined, 'v1.12.0'],
    ['~1.10', '~1.10', 'v1.10.4'],
    ['>=1.11 <1.13', '>=1.11 <1.13', 'v1.12.0'],
    ['1.7.x', '1.7.x', 'v1.7.7'],
    ['1.4', '1.4', 'v1.4.3'],
    ['exact', 'v1.8.0', 'v1.8.0'],
  ])('%s → %s', async (_name, value, expected) => {
    expect(await selectVersion(local('cluster-api'), parseVersionRequest(value)!, ctx)).toBe(expected);
  });

  it('a range nothing satisfies is version-not-found', async () => {
    await expect(selectVersion(local('cluster-api'), parseVersionRequest('~1.9')!, ctx)).rejects.toMatchObject({
      code: 'version-not-found',
    });
  });
});

describe("clusterctl's latest rule", () => {
  it('ranks stable releases above pre-releases', async () => {
    const s = memorySource(['v1.0.0', 'v2.0.0-alpha.1'], (t) =>
      t === 'v1.0.0'
        ? meta([[1, 0, 'v1beta2']])
        : meta([
            [1, 0, 'v1beta2'],
            [2, 0, 'v1beta2'],
          ]),
    );
    expect(await selectVersion(s, { kind: 'latest' }, ctx)).toBe('v1.0.0');
  });
  it('takes a pre-release only when nothing is stable', async () => {
    const s = memorySource(['v2.0.0-alpha.1', 'v2.0.0-beta.0'], () => meta([[2, 0, 'v1beta2']]));
    expect(await selectVersion(s, { kind: 'latest' }, ctx)).toBe('v2.0.0-beta.0');
  });
  it('skips releases without metadata.yaml (tag pushed before assets, cluster-api#7889) within the top five', async () => {
    const s = memorySource(['v1.1.0', 'v1.2.0', 'v1.3.0'], (t) =>
      t === 'v1.3.0'
        ? undefined
        : meta([
            [1, 1, 'v1beta2'],
            [1, 2, 'v1beta2'],
          ]),
    );
    expect(await selectVersion(s, { kind: 'latest' }, ctx)).toBe('v1.2.0');
  });
  it("falls back to the latest patch of the newest series for clusterctl's contract", async () => {
    // v3.0 implements a future contract; clusterctl (v1beta2) takes the newest v1beta2 series, 2.1.
    const s = memorySource(['v2.0.5', 'v2.1.0', 'v2.1.3', 'v3.0.0'], () =>
      meta([
        [2, 0, 'v1beta2'],
        [2, 1, 'v1beta2'],
        [3, 0, 'v1beta3'],
      ]),
    );
    expect(await selectVersion(s, { kind: 'latest' }, ctx)).toBe('v2.1.3');
  });
  it('ignores tags that are not semantic versions', async () => {
    const s = memorySource(['v1.0.0', 'nightly', 'v1.1'], () => meta([[1, 0, 'v1beta2']]));
    expect(await selectVersion(s, { kind: 'latest' }, ctx)).toBe('v1.0.0');
  });
  it("the operator's ConfigMap rule is the highest version, pre-releases included", async () => {
    const s = memorySource(['v1.0.0', 'v1.1.0-rc.0'], () =>
      fixtureText('repository/cluster-api/v1.12.0/metadata.yaml'),
    );
    expect(await selectVersion(s, { kind: 'latest' }, { ...ctx, latestRule: 'operator' })).toBe('v1.1.0-rc.0');
  });
});
