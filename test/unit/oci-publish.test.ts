import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { computeOciDigest } from '../../src/source/oci/oci-digest.js';
import { EMPTY_JSON_CONFIG } from '../../src/source/oci/oci-media-types.js';
import { packOciArtifact, publishOciArtifact } from '../../src/source/oci/oci-publish.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const digestOf = (s: string) => computeOciDigest(bytes(s));

describe('packOciArtifact', () => {
  it('writes the manifest oras PackManifest (v1.1) writes for the operator, minus the created stamp', () => {
    const packed = packOciArtifact([
      { name: 'metadata.yaml', bytes: bytes('m') },
      { name: 'core-components.yaml', bytes: bytes('c') },
    ]);
    // Go's encoding/json of ocispec.Manifest: struct field order, no whitespace.
    const expected =
      '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","artifactType":"application/vnd.acme.config",' +
      '"config":{"mediaType":"application/vnd.oci.empty.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2,"data":"e30="},' +
      `"layers":[{"mediaType":"application/vnd.test.file","digest":"${digestOf('c')}","size":1,"annotations":{"org.opencontainers.image.title":"core-components.yaml"}},` +
      `{"mediaType":"application/vnd.test.file","digest":"${digestOf('m')}","size":1,"annotations":{"org.opencontainers.image.title":"metadata.yaml"}}]}`;
    expect(new TextDecoder().decode(packed.manifest)).toBe(expected);
    expect(packed.manifestDigest).toBe(computeOciDigest(packed.manifest));
    expect(packed.layers.map((l) => l.name)).toEqual(['core-components.yaml', 'metadata.yaml']);
  });

  it('is deterministic: the order of the files does not matter', () => {
    const files = [
      { name: 'b.yaml', bytes: bytes('2') },
      { name: 'a.yaml', bytes: bytes('1') },
      { name: 'B.yaml', bytes: bytes('3') },
    ];
    const one = packOciArtifact(files);
    expect(packOciArtifact([...files].reverse()).manifestDigest).toBe(one.manifestDigest);
    // Byte order, as Go's os.ReadDir sorts: uppercase first.
    expect(one.layers.map((l) => l.name)).toEqual(['B.yaml', 'a.yaml', 'b.yaml']);
  });

  it("escapes <, > and & in titles as Go's encoding/json does", () => {
    const text = new TextDecoder().decode(packOciArtifact([{ name: 'a<b>&c.yaml', bytes: bytes('x') }]).manifest);
    expect(text).toContain('"org.opencontainers.image.title":"a\\u003cb\\u003e\\u0026c.yaml"');
    expect(JSON.parse(text).layers[0].annotations['org.opencontainers.image.title']).toBe('a<b>&c.yaml');
  });

  it('uses the real digest of the empty JSON config', () => {
    expect(computeOciDigest(bytes('{}'))).toBe(EMPTY_JSON_CONFIG.digest);
    expect(Buffer.from(EMPTY_JSON_CONFIG.data, 'base64').toString()).toBe('{}');
  });

  it.each([
    { name: 'no files', files: [], count: 1 },
    {
      name: 'a repeated name',
      files: [
        { name: 'a', bytes: bytes('1') },
        { name: 'a', bytes: bytes('2') },
      ],
      count: 1,
    },
    {
      name: 'an empty name and a repeated one',
      files: [
        { name: '', bytes: bytes('1') },
        { name: 'x', bytes: bytes('1') },
        { name: 'x', bytes: bytes('1') },
      ],
      count: 2,
    },
  ])('rejects $name, listing every problem', ({ files, count }) => {
    let thrown: unknown;
    try {
      packOciArtifact(files);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(SpecError);
    expect((thrown as SpecError).diagnostics).toHaveLength(count);
    expect((thrown as SpecError).diagnostics.every((d) => d.code === 'source-unsupported')).toBe(true);
  });
});

describe('publishOciArtifact', () => {
  it('needs a tag in the reference, before any request', async () => {
    const fetchImpl = (() => {
      throw new Error('no request expected');
    }) as unknown as typeof fetch;
    await expect(
      publishOciArtifact({ reference: 'registry/repo', files: [{ name: 'a', bytes: bytes('1') }], fetchImpl }),
    ).rejects.toMatchObject({
      code: 'source-unsupported',
    });
  });
});
