import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { deterministicTar } from '../../src/publish/deterministic-tar.js';
import { packFluxArtifact } from '../../src/publish/flux-artifact.js';
import { parsePublishReference } from '../../src/publish/push-flux-artifact.js';
import { computeOciDigest } from '../../src/source/oci/oci-digest.js';
import { tempDir } from '../helpers/tmp.js';

const enc = (s: string) => new TextEncoder().encode(s);
const FILES = [
  { path: 'kustomization.yaml', bytes: enc('resources:\n- cluster-api\n') },
  { path: 'cluster-api/kustomization.yaml', bytes: enc('resources:\n- namespace-capi-system.yaml\n') },
  {
    path: 'cluster-api/namespace-capi-system.yaml',
    bytes: enc('apiVersion: v1\nkind: Namespace\nmetadata:\n  name: capi-system\n'),
  },
  { path: 'cluster-api-extra/a.yaml', bytes: enc('a: 1\n') },
];

function listWithTar(bytes: Uint8Array, gz = false): string[] {
  const file = path.join(tempDir(), gz ? 'a.tgz' : 'a.tar');
  writeFileSync(file, bytes);
  const r = spawnSync('tar', [gz ? '-tvzf' : '-tvf', file, '--numeric-owner', '--full-time'], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH, TZ: 'UTC' },
  });
  expect(r.status, r.stderr).toBe(0);
  return r.stdout.trim().split('\n');
}

describe('deterministic tar', () => {
  it('depends on paths and contents only: a pinned digest, whatever the input order', () => {
    const tar = deterministicTar(FILES);
    expect(deterministicTar([...FILES].reverse())).toEqual(tar);
    // Pinned: any change to header layout, order, modes or times shows up here on every machine.
    expect(computeOciDigest(tar)).toBe('sha256:581431dc74748f7f3e07514bc4b7cdb403f11bda5cfc898869a323f2bfd559be');
  });

  it('is read by the system tar in WalkDir order: the root as ".", a folder before its files, "-" before "/"', () => {
    const lines = listWithTar(deterministicTar(FILES));
    expect(lines.map((l) => l.split(/\s+/).pop())).toEqual([
      '.',
      'cluster-api',
      'cluster-api/kustomization.yaml',
      'cluster-api/namespace-capi-system.yaml',
      'cluster-api-extra',
      'cluster-api-extra/a.yaml',
      'kustomization.yaml',
    ]);
    for (const l of lines) expect(l).toMatch(/^(-rw-r--r--|drwxr-xr-x) 0\/0 +\d+ 1970-01-01 00:00:00 /);
  });

  it('carries a path longer than ustar can hold (PAX) and non-ASCII names intact', () => {
    const long = `${'d'.repeat(120)}/${'f'.repeat(130)}.yaml`;
    const dir = tempDir();
    const file = path.join(dir, 'a.tar');
    writeFileSync(
      file,
      deterministicTar([
        { path: long, bytes: enc('x\n') },
        { path: 'grüße.yaml', bytes: enc('y\n') },
      ]),
    );
    const out = path.join(dir, 'out');
    spawnSync('mkdir', [out]);
    const r = spawnSync('tar', ['-xf', file, '-C', out], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(path.join(out, long), 'utf8')).toBe('x\n');
    expect(readFileSync(path.join(out, 'grüße.yaml'), 'utf8')).toBe('y\n');
  });

  it('refuses unsafe and repeated paths', () => {
    for (const p of ['', '/abs', 'a/../b', 'a//b', './a'])
      expect(() => deterministicTar([{ path: p, bytes: enc('') }])).toThrow(/unsafe/);
    expect(() => deterministicTar([FILES[0]!, FILES[0]!])).toThrow(/twice/);
  });
});

describe('the publish reference', () => {
  it.each([
    [
      'oci://ghcr.io/acme/capi/prod:main',
      { registry: 'ghcr.io', repository: 'acme/capi/prod', tag: 'main', plainHttp: false },
    ],
    ['ghcr.io/acme/capi/prod:v1', { registry: 'ghcr.io', repository: 'acme/capi/prod', tag: 'v1', plainHttp: false }],
    [
      'http://127.0.0.1:5000/capi/dev:x',
      { registry: '127.0.0.1:5000', repository: 'capi/dev', tag: 'x', plainHttp: true },
    ],
  ])('%s', (text, expected) => expect(parsePublishReference(text)).toEqual(expected));
});

describe('the Flux artifact', () => {
  const input = {
    files: FILES,
    source: 'https://git.example.com/m.git',
    revision: 'main@sha1:0123456789abcdef0123456789abcdef01234567',
  };
  it('has the shape flux push gives it, and no created unless asked', () => {
    const a = packFluxArtifact(input);
    const manifest = JSON.parse(Buffer.from(a.manifest).toString('utf8'));
    expect(manifest).toEqual({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.cncf.flux.config.v1+json',
        size: a.config.length,
        digest: computeOciDigest(a.config),
      },
      layers: [
        { mediaType: 'application/vnd.cncf.flux.content.v1.tar+gzip', size: a.layer.length, digest: a.layerDigest },
      ],
      annotations: {
        'org.opencontainers.image.revision': input.revision,
        'org.opencontainers.image.source': input.source,
      },
    });
    expect(JSON.parse(Buffer.from(a.config).toString('utf8'))).toEqual({
      architecture: '',
      history: [{ created: '0001-01-01T00:00:00Z' }],
      os: '',
      rootfs: { type: 'layers', diff_ids: [a.diffId] },
      config: {},
    });
    expect(computeOciDigest(gunzipSync(a.layer))).toBe(a.diffId);
    // gzip header: no file name, MTIME 0.
    expect([...a.layer.subarray(0, 8)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0]);
    expect(listWithTar(a.layer, true)).toHaveLength(7);
  });

  it('same input → same digest; revision and created change it', () => {
    const a = packFluxArtifact(input);
    expect(packFluxArtifact({ ...input, files: [...FILES].reverse() }).manifestDigest).toBe(a.manifestDigest);
    expect(packFluxArtifact({ ...input, revision: 'main@sha1:' + 'f'.repeat(40) }).manifestDigest).not.toBe(
      a.manifestDigest,
    );
    const created = packFluxArtifact({ ...input, created: '2026-01-01T00:00:00Z' });
    expect(created.annotations['org.opencontainers.image.created']).toBe('2026-01-01T00:00:00Z');
    expect(created.manifestDigest).not.toBe(a.manifestDigest);
    expect(created.layerDigest).toBe(a.layerDigest);
  });
});
