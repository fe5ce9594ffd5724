import { gzipSync } from 'node:zlib';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { FetchError, SpecError } from '../../src/errors.js';
import type { JsonObject } from 'capi-render';
import { createConfigMapSource } from '../../src/source/configmap-source.js';
import { createLocalRepositorySource } from '../../src/source/local-repository.js';
import { parseMetadata, releaseSeriesFor, newestSeriesForContract } from '../../src/source/metadata.js';
import type { InputObject } from '../../src/declarations/inputs.js';
import { FIXTURES, fixtureText } from '../helpers/fixtures.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('local repository source', () => {
  const source = createLocalRepositorySource({
    root: `${FIXTURES}repository`,
    displayRoot: 'test/fixtures/repository',
    label: 'cluster-api',
  });

  it('lists the semver folders of the provider', async () => {
    expect(await source.listVersions()).toEqual([
      'v1.4.2',
      'v1.4.3',
      'v1.5.4',
      'v1.6.0',
      'v1.7.7',
      'v1.8.0',
      'v1.10.4',
      'v1.11.0',
      'v1.12.0',
    ]);
  });

  it('reads gzip-stored files as their decompressed bytes (digest as in PROVENANCE.md)', async () => {
    const a = await source.readFile('v1.4.2', 'core-components.yaml');
    expect(sha256(a.bytes)).toBe('ceab6017eadb01f4ceededb12112032d5cc42700ab2d3eb3270d9beb7328e788');
    expect(a.url).toBe('test/fixtures/repository/cluster-api/v1.4.2/core-components.yaml');
  });

  it('names a configured repository by kind and label in the lock, its files by <label>/<version>/<file>', async () => {
    const configured = createLocalRepositorySource({
      root: `${FIXTURES}repository`,
      displayRoot: 'vendor/releases',
      label: 'cluster-api',
      configured: { passed: [] },
    });
    expect(configured.id).toBe('local:cluster-api');
    expect(configured.description).toBe('local repository vendor/releases/cluster-api');
    expect((await configured.readFile('v1.12.0', 'metadata.yaml')).url).toBe('cluster-api/v1.12.0/metadata.yaml');
    // A file:// URL names its root in the input itself, and so in the id.
    expect(source.id).toBe('local:test/fixtures/repository/cluster-api');
  });

  it('reports a missing file as source-not-found', async () => {
    await expect(source.readFile('v9.9.9', 'core-components.yaml')).rejects.toMatchObject({ code: 'source-not-found' });
    await expect(source.readFile('../../etc', 'passwd')).rejects.toBeInstanceOf(FetchError);
  });
});

describe('metadata.yaml', () => {
  it('maps versions to contracts as clusterctl does', () => {
    const m = parseMetadata(fixtureText('repository/cluster-api/v1.12.0/metadata.yaml'), 'm');
    expect(releaseSeriesFor(m, 'v1.12.0')?.contract).toBe('v1beta2');
    expect(releaseSeriesFor(m, 'v1.10.4')?.contract).toBe('v1beta1');
    expect(releaseSeriesFor(m, 'v1.13.0')).toBeUndefined();
    expect(newestSeriesForContract(m, 'v1beta1')).toMatchObject({ major: 1, minor: 10 });
  });

  it.each([
    ['wrong apiVersion', 'apiVersion: v1\nkind: Metadata\nreleaseSeries: [{major: 1, minor: 0, contract: v1beta1}]\n'],
    [
      'wrong kind',
      'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Other\nreleaseSeries: [{major: 1, minor: 0, contract: v1beta1}]\n',
    ],
    ['empty releaseSeries', 'apiVersion: clusterctl.cluster.x-k8s.io/v1alpha3\nkind: Metadata\nreleaseSeries: []\n'],
    ['not YAML', 'a: [\n'],
  ])('rejects %s', (_name, text) => {
    expect(() => parseMetadata(text, 'm')).toThrow(expect.objectContaining({ code: 'metadata-invalid' }));
  });

  it('accepts a missing kind (TKG AWS metadata)', () => {
    expect(
      parseMetadata(fixtureText('derived/tanzu-framework/infrastructure-aws/v2.0.2/metadata.yaml'), 'm').releaseSeries
        .length,
    ).toBeGreaterThan(3);
  });
});

function inputOf(object: JsonObject, file = 'providers/sources.yaml'): InputObject {
  return { object, file, locate: () => ({ line: 1, col: 1 }) };
}
const realConfigMap = (name: string) =>
  jsYaml.load(fixtureText(`configmaps/${name}`), { schema: jsYaml.CORE_SCHEMA }) as JsonObject;
const declaredAt = { file: 'providers/core.yaml', line: 3, col: 1, object: 'CoreProvider/capi-system/cluster-api' };

describe('ConfigMap source (operator air-gapped format)', () => {
  const core = realConfigMap('core-cluster-api-v1.12.0.yaml');
  const selector = { matchLabels: { 'provider.cluster.x-k8s.io/name': 'cluster-api' } };

  it('serves a real operator ConfigMap', async () => {
    const s = createConfigMapSource({ selector, namespace: 'capi-system', configMaps: [inputOf(core)], declaredAt });
    expect(await s.listVersions()).toEqual(['v1.12.0']);
    const components = await s.readFile('v1.12.0', 'components.yaml');
    expect(sha256(components.bytes)).toBe(
      sha256(new TextEncoder().encode(fixtureText('repository/cluster-api/v1.12.0/core-components.yaml'))),
    );
    expect(new TextDecoder().decode((await s.readFile('v1.12.0', 'metadata.yaml')).bytes)).toContain('releaseSeries');
  });

  it('reads gzip-compressed binaryData behind the compressed annotation', async () => {
    const data = core.data as Record<string, string>;
    const compressed: JsonObject = {
      ...core,
      metadata: { ...(core.metadata as JsonObject), annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' } },
      data: { metadata: data.metadata! },
      binaryData: { components: gzipSync(data.components!).toString('base64') },
    };
    const s = createConfigMapSource({
      selector,
      namespace: 'capi-system',
      configMaps: [inputOf(compressed)],
      declaredAt,
    });
    expect(new TextDecoder().decode((await s.readFile('v1.12.0', 'components.yaml')).bytes)).toBe(data.components);
  });

  it('takes the version from the name when the label is absent', async () => {
    const meta = {
      ...(core.metadata as JsonObject),
      name: 'v1.12.1',
      labels: { 'provider.cluster.x-k8s.io/name': 'cluster-api' },
    };
    const s = createConfigMapSource({
      selector,
      namespace: 'capi-system',
      configMaps: [inputOf({ ...core, metadata: meta })],
      declaredAt,
    });
    expect(await s.listVersions()).toEqual(['v1.12.1']);
  });

  const cases: { name: string; configMaps: JsonObject[]; code: string }[] = [
    { name: 'a selector matching nothing', configMaps: [], code: 'selector-no-match' },
    {
      name: 'a match in another namespace only',
      configMaps: [{ ...core, metadata: { ...(core.metadata as JsonObject), namespace: 'elsewhere' } }],
      code: 'selector-no-match',
    },
    {
      name: 'two ConfigMaps for one version',
      configMaps: [core, { ...core, metadata: { ...(core.metadata as JsonObject), name: 'copy' } }],
      code: 'configmap-duplicate-version',
    },
    {
      name: 'an invalid version label',
      configMaps: [
        {
          ...core,
          metadata: {
            ...(core.metadata as JsonObject),
            labels: { ...selector.matchLabels, 'provider.cluster.x-k8s.io/version': 'latest' },
          },
        },
      ],
      code: 'configmap-invalid',
    },
    { name: 'no metadata key', configMaps: [{ ...core, data: { components: 'x' } }], code: 'configmap-invalid' },
    { name: 'no components key', configMaps: [{ ...core, data: { metadata: 'x' } }], code: 'configmap-invalid' },
    {
      name: 'compressed annotation without binaryData',
      configMaps: [
        {
          ...core,
          metadata: {
            ...(core.metadata as JsonObject),
            annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' },
          },
        },
      ],
      code: 'configmap-invalid',
    },
    {
      name: 'binaryData that is not gzip',
      configMaps: [
        {
          ...core,
          metadata: {
            ...(core.metadata as JsonObject),
            annotations: { 'provider.cluster.x-k8s.io/compressed': 'true' },
          },
          binaryData: { components: 'bm90IGd6aXA=' },
        },
      ],
      code: 'configmap-invalid',
    },
  ];
  it.each(cases)('rejects $name', ({ configMaps, code }) => {
    let caught: unknown;
    try {
      createConfigMapSource({
        selector,
        namespace: 'capi-system',
        configMaps: configMaps.map((c) => inputOf(c)),
        declaredAt,
      });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(SpecError);
    expect((caught as SpecError).code).toBe(code);
  });
});
