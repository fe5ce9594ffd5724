/**
 * cluster-api's proposed provider artifact layout (PR #14033): the writer (publish/provider-artifact.ts)
 * against the proposal's rules, read back by GNU tar and by capi-render's reader; layout detection by
 * media type; the annotation check; and the `oci://` URL forms.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packProviderArtifact } from '../../src/publish/provider-artifact.js';
import { readArchiveFiles } from '../../src/source/oci/oci-archive.js';
import { checkCapiAnnotations, ociArtifactLayout } from '../../src/source/oci/oci-capi-layout.js';
import { parseOciManifest } from '../../src/source/oci/oci-manifest.js';
import { computeOciDigest } from '../../src/source/oci/oci-digest.js';
import { formatOciUrl, parseOciUrl } from '../../src/source/oci/oci-url.js';
import { packOciArtifact } from '../../src/source/oci/oci-publish.js';
import { FetchError, SpecError } from '../../src/errors.js';
import { fixtureText } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const encoder = new TextEncoder();
const METADATA = fixtureText('repository/cluster-api/v1.12.0/metadata.yaml');
const COMPONENTS = fixtureText('repository/cluster-api/v1.12.0/core-components.yaml');
const CORE = { type: 'core', name: 'cluster-api', version: 'v1.12.0' };
const pack = (identity = CORE) =>
  packProviderArtifact({
    identity,
    source: 'https://github.com/kubernetes-sigs/cluster-api',
    files: [
      { name: 'metadata.yaml', bytes: encoder.encode(METADATA) },
      { name: 'core-components.yaml', bytes: encoder.encode(COMPONENTS) },
    ],
  });

describe("packProviderArtifact: the proposal's artifact", () => {
  it('is a plain OCI image manifest with one tar+gzip layer, the image config and the five annotations', () => {
    const a = pack();
    const manifest = JSON.parse(new TextDecoder().decode(a.manifest));
    expect(manifest).toEqual({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: computeOciDigest(a.config),
        size: a.config.length,
      },
      layers: [
        {
          mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip',
          digest: computeOciDigest(a.layer),
          size: a.layer.length,
        },
      ],
      annotations: {
        'cluster-api.sigs.k8s.io/provider-name': 'cluster-api',
        'cluster-api.sigs.k8s.io/provider-type': 'core',
        'org.opencontainers.image.source': 'https://github.com/kubernetes-sigs/cluster-api',
        'org.opencontainers.image.title': 'core-cluster-api',
        'org.opencontainers.image.version': 'v1.12.0',
      },
    });
    expect(manifest.artifactType).toBeUndefined();
    expect(a.manifestDigest).toBe(computeOciDigest(a.manifest));
  });

  it('gives the same bytes every time, with gzip OS byte 255 (unknown) and time 0', () => {
    const [a, b] = [pack(), pack()];
    expect(Buffer.from(a.manifest).equals(Buffer.from(b.manifest))).toBe(true);
    expect(a.layer[9]).toBe(255);
    expect(Buffer.from(a.layer.subarray(4, 8)).readUInt32LE(0)).toBe(0);
  });

  it("holds the files at the archive root, as GNU tar and capi-render's reader both see", () => {
    const a = pack();
    const file = path.join(tempDir(), 'layer.tar.gz');
    writeFileSync(file, a.layer);
    const listed = spawnSync('tar', ['-tzvf', file], { encoding: 'utf8' });
    expect(listed.status).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(/\s+/).at(-1)),
    ).toEqual(['.', 'core-components.yaml', 'metadata.yaml']);
    const out = tempDir();
    expect(spawnSync('tar', ['-xzf', file, '-C', out]).status).toBe(0);
    expect(readFileSync(path.join(out, 'core-components.yaml'), 'utf8')).toBe(COMPONENTS);
    const read = readArchiveFiles(a.layer, 'layer');
    expect(new TextDecoder().decode(read.get('metadata.yaml'))).toBe(METADATA);
  });

  it('writes controlPlane in the annotation and control-plane in the title', () => {
    const manifest = parseOciManifest(
      pack({ type: 'control-plane', name: 'kubeadm', version: 'v1.12.0' }).manifest,
      'm',
    );
    expect(manifest.annotations?.['cluster-api.sigs.k8s.io/provider-type']).toBe('controlPlane');
    expect(manifest.annotations?.['org.opencontainers.image.title']).toBe('control-plane-kubeadm');
  });

  it('refuses a file below the root', () => {
    expect(() =>
      packProviderArtifact({
        identity: CORE,
        source: 's',
        files: [{ name: 'templates/a.yaml', bytes: new Uint8Array(1) }],
      }),
    ).toThrow(SpecError);
  });
});

describe("ociArtifactLayout: decided by the layers' media types", () => {
  const layer = (mediaType: string, title?: string) => ({
    mediaType,
    digest: `sha256:${'a'.repeat(64)}`,
    size: 3,
    ...(title ? { annotations: { 'org.opencontainers.image.title': title } } : {}),
  });
  const cases = [
    {
      name: "capi-render's cluster-api artifact",
      layers: parseOciManifest(pack().manifest, 'm').layers,
      layout: 'cluster-api',
    },
    {
      name: 'the operator publish layout',
      layers: parseOciManifest(packOciArtifact([{ name: 'metadata.yaml', bytes: new Uint8Array(2) }]).manifest, 'm')
        .layers,
      layout: 'operator',
    },
    {
      name: 'oras push of two files (tar media type, not gzip)',
      layers: [
        layer('application/vnd.oci.image.layer.v1.tar', 'metadata.yaml'),
        layer('application/vnd.oci.image.layer.v1.tar', 'core-components.yaml'),
      ],
      layout: 'operator',
    },
    {
      name: 'a docker-schema gzip layer (a registry copy converting the manifest)',
      layers: [layer('application/vnd.docker.image.rootfs.diff.tar.gzip')],
      layout: 'cluster-api',
    },
    {
      name: "two tar+gzip layers (not the proposal's single layer)",
      layers: [
        layer('application/vnd.oci.image.layer.v1.tar+gzip'),
        layer('application/vnd.oci.image.layer.v1.tar+gzip'),
      ],
      layout: 'operator',
    },
  ] as const;
  for (const c of cases) {
    it(c.name, () => expect(ociArtifactLayout({ layers: [...c.layers] })).toBe(c.layout));
  }
});

describe("checkCapiAnnotations: the proposal's consumer check", () => {
  const manifest = parseOciManifest(pack().manifest, 'm');
  const cases: { name: string; identity: typeof CORE; annotations?: Record<string, string>; problem?: RegExp }[] = [
    { name: 'conforming', identity: CORE },
    {
      name: 'another version',
      identity: { ...CORE, version: 'v1.12.1' },
      problem: /org\.opencontainers\.image\.version is "v1\.12\.0", expected "v1\.12\.1"/,
    },
    {
      name: 'another provider',
      identity: { type: 'bootstrap', name: 'kubeadm', version: 'v1.12.0' },
      problem:
        /title is "core-cluster-api", expected "bootstrap-kubeadm".*provider-type is "core", expected "bootstrap".*provider-name is "cluster-api", expected "kubeadm"/,
    },
    {
      name: 'no annotations at all',
      identity: CORE,
      annotations: {},
      problem:
        /title is missing; .*version is missing; .*source is missing; .*provider-type is missing; .*provider-name is missing/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = () =>
        checkCapiAnnotations(
          c.annotations ? { ...manifest, annotations: c.annotations } : manifest,
          c.identity,
          'artifact A',
        );
      if (!c.problem) return expect(run).not.toThrow();
      expect(run).toThrow(FetchError);
      expect(run).toThrow(c.problem);
    });
  }
});

describe('parseOciUrl: the oci:// provider URL', () => {
  const digest = `sha256:${'b'.repeat(64)}`;
  const ok = [
    {
      url: 'oci://registry.k8s.io/cluster-api/manifests/core-cluster-api',
      want: { registry: 'registry.k8s.io', repository: 'cluster-api/manifests/core-cluster-api', plainHttp: false },
    },
    {
      url: `oci://registry.k8s.io/cluster-api/manifests/core-cluster-api@${digest}`,
      want: {
        registry: 'registry.k8s.io',
        repository: 'cluster-api/manifests/core-cluster-api',
        plainHttp: false,
        digest,
      },
    },
    {
      url: 'oci://registry.internal:5000/capi/bootstrap-kubeadm:v1.12.0',
      want: {
        registry: 'registry.internal:5000',
        repository: 'capi/bootstrap-kubeadm',
        tag: 'v1.12.0',
        plainHttp: false,
      },
    },
    {
      url: 'oci://127.0.0.1:5000/capi/core-cluster-api',
      want: { registry: '127.0.0.1:5000', repository: 'capi/core-cluster-api', plainHttp: true },
    },
    {
      url: 'OCI://localhost:5000/capi/core-cluster-api',
      want: { registry: 'localhost:5000', repository: 'capi/core-cluster-api', plainHttp: true },
    },
  ];
  for (const c of ok) {
    it(`reads ${c.url}`, () => {
      const parsed = parseOciUrl(c.url);
      expect(parsed).toEqual(c.want);
      expect(formatOciUrl(parsed)).toBe(c.url.replace(/^OCI/, 'oci'));
    });
  }
  const bad = [
    { url: 'oci://registry.k8s.io', problem: /names no registry/ },
    { url: 'oci://http://127.0.0.1:5000/capi/x', problem: /a second scheme follows oci:\/\// },
    { url: 'oci://registry.k8s.io/capi/x@sha256:abc', problem: /"sha256:abc" is not a sha256 or sha512 digest/ },
    { url: 'oci://registry.k8s.io/Capi/X', problem: /is not a valid repository name/ },
    { url: 'https://registry.k8s.io/capi/x', problem: /does not start with oci:\/\// },
  ];
  for (const c of bad) {
    it(`refuses ${c.url}`, () => {
      expect(() => parseOciUrl(c.url, { field: 'spec.fetchConfig.url' })).toThrow(SpecError);
      expect(() => parseOciUrl(c.url)).toThrow(c.problem);
    });
  }
});
