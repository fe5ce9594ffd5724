import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { readOciCredentials } from '../../src/source/oci/oci-credentials.js';
import { ociFileCandidates, selectOciLayer } from '../../src/source/oci/oci-file-names.js';
import { formatOciReference, parseOciReference, registryHostPort } from '../../src/source/oci/oci-reference.js';

describe('parseOciReference', () => {
  // The operator's parseOCISource cases, each also behind http:// (which turns on plain HTTP).
  const operatorCases = [
    {
      name: 'registry/repo with tag',
      input: 'registry/image:v1.1.0',
      expected: { registry: 'registry', repository: 'image', tag: 'v1.1.0' },
    },
    { name: 'registry/repo', input: 'registry/image', expected: { registry: 'registry', repository: 'image' } },
    {
      name: 'host:port/repo',
      input: 'registry:5050/image',
      expected: { registry: 'registry:5050', repository: 'image' },
    },
    {
      name: 'host:port/repo with tag',
      input: 'registry:5050/image:v1.1.0',
      expected: { registry: 'registry:5050', repository: 'image', tag: 'v1.1.0' },
    },
    {
      name: 'nested repository',
      input: 'my-oci-registry.example.com/capi/providers/azure:v1.9.3',
      expected: { registry: 'my-oci-registry.example.com', repository: 'capi/providers/azure', tag: 'v1.9.3' },
    },
    {
      name: 'IP and port, pre-release tag',
      input: '127.0.0.1:5000/a_b/c-d.e:v1.10.0-beta.0',
      expected: { registry: '127.0.0.1:5000', repository: 'a_b/c-d.e', tag: 'v1.10.0-beta.0' },
    },
    {
      name: 'IPv6 literal',
      input: '[::1]:5000/repo:latest',
      expected: { registry: '[::1]:5000', repository: 'repo', tag: 'latest' },
    },
  ];

  it.each(operatorCases)('$name', ({ input, expected }) => {
    expect(parseOciReference(input)).toEqual({ ...expected, plainHttp: false });
    expect(parseOciReference(`http://${input}`)).toEqual({ ...expected, plainHttp: true });
    expect(parseOciReference(`https://${input}`)).toEqual({ ...expected, plainHttp: false });
  });

  it.each([
    { name: 'no registry (the operator needs registry/repository)', input: 'image' },
    {
      name: 'a digest',
      input: 'registry/image@sha256:0000000000000000000000000000000000000000000000000000000000000000',
    },
    {
      name: 'a tag and a digest',
      input: 'registry/image:v1@sha256:0000000000000000000000000000000000000000000000000000000000000000',
    },
    { name: 'another scheme', input: 'oci://registry/image:v1' },
    { name: 'an empty tag', input: 'registry/image:' },
    { name: 'a second colon', input: 'registry/image:v1:x' },
    { name: 'an invalid tag', input: 'registry/image:-v1' },
    { name: 'uppercase repository', input: 'registry/Image:v1' },
    { name: 'an empty repository', input: 'registry/' },
    { name: 'a trailing slash', input: 'registry/image/' },
    { name: 'a port out of range', input: 'registry:70000/image' },
    { name: 'a non-numeric port', input: 'registry:abc/image' },
    { name: 'whitespace', input: ' registry/image' },
    { name: 'empty', input: '' },
  ])('rejects $name', ({ input }) => {
    const where = { object: 'CoreProvider/capi-system/cluster-api', field: 'spec.fetchConfig.oci' };
    let thrown: unknown;
    try {
      parseOciReference(input, where);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SpecError);
    expect((thrown as SpecError).diagnostics).toEqual([
      expect.objectContaining({ code: 'source-unsupported', ...where, hint: expect.stringContaining('host:port') }),
    ]);
  });

  it.each([
    { input: 'http://registry:5050/image:v1', formatted: 'http://registry:5050/image:v1', hostPort: 'registry:5050' },
    { input: 'https://registry/image', formatted: 'registry/image', hostPort: 'registry:443' },
    { input: 'http://registry/image', formatted: 'http://registry/image', hostPort: 'registry:80' },
  ])('formats $input as $formatted on $hostPort', ({ input, formatted, hostPort }) => {
    const ref = parseOciReference(input);
    expect(formatOciReference(ref)).toBe(formatted);
    expect(registryHostPort(ref)).toBe(hostPort);
  });
});

describe('OCI layer titles', () => {
  it.each([
    {
      name: 'metadata',
      type: 'infrastructure',
      file: 'metadata.yaml',
      role: 'metadata',
      titles: ['infrastructure-azure-v1.9.3-metadata.yaml', 'metadata.yaml'],
    },
    {
      name: 'components under the kind default name',
      type: 'infrastructure',
      file: 'infrastructure-components.yaml',
      role: 'components',
      titles: ['infrastructure-azure-v1.9.3-components.yaml', 'infrastructure-components.yaml', 'components.yaml'],
    },
    {
      name: 'components under another asset name (CAPD development)',
      type: 'infrastructure',
      file: 'infrastructure-components-development.yaml',
      role: 'components',
      titles: ['infrastructure-azure-v1.9.3-components.yaml', 'infrastructure-components.yaml', 'components.yaml'],
    },
    {
      name: "the operator's runtimeextension type",
      type: 'runtimeextension',
      file: 'runtime-extensions-components.yaml',
      role: 'components',
      titles: ['runtimeextension-azure-v1.9.3-components.yaml', 'runtimeextension-components.yaml', 'components.yaml'],
    },
  ])('$name', ({ type, file, role, titles }) => {
    expect(ociFileCandidates(type, 'azure', 'v1.9.3', file)).toEqual({ role, titles });
  });

  const layer = (title: string, size = 10, digest = 'a') => ({
    mediaType: 'application/vnd.test.file',
    digest: `sha256:${digest.repeat(64)}`,
    size,
    annotations: { 'org.opencontainers.image.title': title },
  });

  it.each([
    {
      name: 'the most specific title',
      layers: [layer('components.yaml'), layer('core-components.yaml')],
      expected: 'core-components.yaml',
    },
    {
      name: 'an empty layer as absent',
      layers: [layer('core-components.yaml', 0), layer('components.yaml')],
      expected: 'components.yaml',
    },
    { name: 'nothing when no title matches', layers: [layer('metadata.yaml')], expected: undefined },
  ])('selects $name', ({ layers, expected }) => {
    expect(
      selectOciLayer(layers, ['core-cluster-api-v1-components.yaml', 'core-components.yaml', 'components.yaml'])?.title,
    ).toBe(expected);
  });

  it('takes the first of two layers with the same title', () => {
    const chosen = selectOciLayer(
      [layer('components.yaml', 10, 'b'), layer('components.yaml', 10, 'c')],
      ['components.yaml'],
    );
    expect(chosen?.layer.digest).toBe(`sha256:${'b'.repeat(64)}`);
  });
});

describe('readOciCredentials', () => {
  it.each([
    { name: 'no keys', input: { OTHER: 'x' }, expected: undefined },
    { name: 'only empty values', input: { OCI_USERNAME: '', OCI_PASSWORD: '' }, expected: undefined },
    {
      name: 'username and password',
      input: { OCI_USERNAME: 'u', OCI_PASSWORD: 'p' },
      expected: { username: 'u', password: 'p' },
    },
    {
      name: 'all four',
      input: { OCI_USERNAME: 'u', OCI_PASSWORD: 'p', OCI_ACCESS_TOKEN: 'a', OCI_REFRESH_TOKEN: 'r' },
      expected: { username: 'u', password: 'p', accessToken: 'a', refreshToken: 'r' },
    },
    {
      name: 'a refresh token alone',
      input: { OCI_REFRESH_TOKEN: 'r', OCI_USERNAME: '' },
      expected: { refreshToken: 'r' },
    },
  ])('maps $name', ({ input, expected }) => {
    expect(readOciCredentials(input)).toEqual(expected);
  });
});
