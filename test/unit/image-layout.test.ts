/**
 * The image folder's pieces on their own: the deterministic tar (GNU tar reads it back; hostile
 * entries are refused naming them), index.json's checks, and `--images` without a value.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RenderError } from '../../src/errors.js';
import { layoutIndexBytes, parseLayoutIndex } from '../../src/images/layout/layout-format.js';
import { TAR_END, readTarIndex, tarHeader, tarPadding } from '../../src/images/layout/tar-archive.js';
import type { OptionTable } from '../../src/cli/options.js';
import { parseCommandArgs } from '../../src/cli/parse-argv.js';
import { tempDir } from '../helpers/tmp.js';

const DIGEST = `sha256:${'a'.repeat(64)}`;

/** A tar of the entries; `patch` edits a header (offset → byte) after its checksum is set, `type` sets the type flag before. */
function tar(entries: { name: string; text?: string; type?: string }[]): Buffer {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    const bytes = Buffer.from(e.text ?? '');
    const header = tarHeader({ name: e.name, size: bytes.length });
    if (e.type) {
      header[156] = e.type.charCodeAt(0);
      header.fill(0x20, 148, 156);
      const sum = header.reduce((n, b) => n + b, 0);
      header.set(Buffer.from(`${sum.toString(8).padStart(6, '0')}\0`), 148);
    }
    parts.push(header, bytes, tarPadding(bytes.length));
  }
  parts.push(TAR_END);
  return Buffer.concat(parts);
}
const index = (bytes: Buffer) => readTarIndex(async (o, l) => bytes.subarray(o, o + l), bytes.length, 'images.tar');

describe('oci-archive tar', () => {
  it('writes what GNU tar lists with fixed owners, times and modes, and reads back where each file is', async () => {
    const long = `blobs/sha512/${'b'.repeat(128)}`;
    const bytes = tar([
      { name: 'blobs/' },
      { name: `blobs/sha256/${'a'.repeat(64)}`, text: 'layer' },
      { name: long, text: 'x'.repeat(700) },
      { name: 'index.json', text: '{}' },
    ]);
    const file = path.join(tempDir(), 'images.tar');
    writeFileSync(file, bytes);
    const listed = spawnSync('tar', ['--numeric-owner', '--full-time', '-tvf', file], {
      encoding: 'utf8',
      env: { TZ: 'UTC', PATH: process.env.PATH ?? '' },
    });
    expect(listed.status, listed.stderr).toBe(0);
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => l.replace(/\s+/g, ' ')),
    ).toEqual([
      'drwxr-xr-x 0/0 0 1970-01-01 00:00:00 blobs/',
      `-rw-r--r-- 0/0 5 1970-01-01 00:00:00 blobs/sha256/${'a'.repeat(64)}`,
      `-rw-r--r-- 0/0 700 1970-01-01 00:00:00 ${long}`,
      '-rw-r--r-- 0/0 2 1970-01-01 00:00:00 index.json',
    ]);
    const files = await index(bytes);
    expect(files.map((f) => [f.name, bytes.subarray(f.offset, f.offset + f.size).toString()])).toEqual([
      [`blobs/sha256/${'a'.repeat(64)}`, 'layer'],
      [long, 'x'.repeat(700)],
      ['index.json', '{}'],
    ]);
    expect(readFileSync(file)).toEqual(bytes);
  });

  it.each([
    {
      name: 'a symbolic link',
      entries: [{ name: 'blobs/sha256/x', type: '2' }],
      error: 'images.tar:blobs/sha256/x: is a symbolic link',
    },
    {
      name: 'a hard link',
      entries: [{ name: 'index.json', type: '1' }],
      error: 'images.tar:index.json: is a hard link',
    },
    { name: 'a device', entries: [{ name: 'dev', type: '3' }], error: 'images.tar:dev: is an entry of type "3"' },
    {
      name: 'a path with ..',
      entries: [{ name: '../etc/passwd', text: 'x' }],
      error: 'images.tar:../etc/passwd: names a path outside the archive',
    },
    {
      name: 'an absolute path',
      entries: [{ name: '/etc/passwd', text: 'x' }],
      error: 'images.tar:/etc/passwd: names a path outside the archive',
    },
    {
      name: 'a name twice',
      entries: [
        { name: 'index.json', text: '{}' },
        { name: './index.json', text: '[]' },
      ],
      error: 'images.tar:./index.json: appears twice',
    },
  ])('refuses $name, naming the entry', async ({ entries, error }) => {
    await expect(index(tar(entries))).rejects.toThrow(error);
  });

  it.each([
    { name: 'cut inside a file', cut: (b: Buffer) => b.subarray(0, 515), error: 'images.tar:index.json: is cut short' },
    {
      name: 'cut before the end blocks',
      cut: (b: Buffer) => b.subarray(0, 1024),
      error: 'ends without the two zero blocks',
    },
    {
      name: 'a damaged header',
      cut: (b: Buffer) => Buffer.concat([Buffer.from('x'), b.subarray(1)]),
      error: 'checksum does not match',
    },
  ])('refuses an archive $name', async ({ cut, error }) => {
    const bytes = tar([{ name: 'index.json', text: '{"a":1}' }]);
    const spoiled = index(cut(bytes));
    await expect(spoiled).rejects.toBeInstanceOf(RenderError);
    await expect(spoiled).rejects.toThrow(error);
  });
});

describe('index.json', () => {
  const entry = (extra: Record<string, unknown>) =>
    new TextEncoder().encode(
      JSON.stringify({
        schemaVersion: 2,
        manifests: [{ mediaType: 'application/vnd.oci.image.manifest.v1+json', digest: DIGEST, size: 10, ...extra }],
      }),
    );
  it.each([
    {
      name: 'a digest that is not one',
      bytes: entry({ digest: 'sha256:../../etc' }),
      error: 'index.json manifests[0]: digest "sha256:../../etc" is not a sha256 or sha512 digest',
    },
    {
      name: 'a negative size',
      bytes: entry({ size: -1 }),
      error: 'index.json manifests[0]: size -1 is not a byte count',
    },
    {
      name: 'a ref name that is not a reference',
      bytes: entry({ annotations: { 'org.opencontainers.image.ref.name': 'a b' } }),
      error: 'is not a reference',
    },
    {
      name: 'another schema version',
      bytes: new TextEncoder().encode('{"schemaVersion":1,"manifests":[]}'),
      error: 'index.json: schemaVersion is 1, not 2',
    },
    { name: 'not JSON', bytes: new TextEncoder().encode('{'), error: 'index.json: is not UTF-8 JSON' },
  ])('refuses $name', ({ bytes, error }) => {
    expect(() => parseLayoutIndex(bytes, 'index.json')).toThrow(error);
  });

  it('writes the same bytes whatever the order of its entries', () => {
    const a = {
      mediaType: 'application/vnd.oci.image.index.v1+json',
      digest: DIGEST,
      size: 1,
      refName: 'r.example/a:v1',
    };
    const b = {
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: `sha256:${'b'.repeat(64)}`,
      size: 2,
      referrerOf: 'r.example/a:v1',
      artifactType: 'application/vnd.dev.sigstore.bundle.v0.3+json',
    };
    expect(layoutIndexBytes([b, a])).toEqual(layoutIndexBytes([a, b]));
    expect(parseLayoutIndex(layoutIndexBytes([b, a]), 'index.json')).toEqual([a, b]);
  });
});

describe('--images without a value', () => {
  const options: OptionTable = {
    images: { type: 'string', optionalValue: true, help: 'images' },
    to: { type: 'string', help: 'to' },
  };
  it.each([
    { args: ['--images', '--to', 'DIR'], values: { images: '', to: 'DIR' } },
    { args: ['--to', 'DIR', '--images'], values: { images: '', to: 'DIR' } },
    { args: ['--images', 'r.example/p'], values: { images: 'r.example/p' } },
    { args: ['--images=r.example/p', '--to', 'DIR'], values: { images: 'r.example/p', to: 'DIR' } },
  ])('$args', ({ args, values }) => {
    expect({ ...parseCommandArgs(args, options).values }).toEqual(values);
  });
  it('is still a missing value where the command does not allow leaving it out', () => {
    const required: OptionTable = { ...options, images: { type: 'string', help: 'images' } };
    expect(() => parseCommandArgs(['--images', '--to', 'DIR'], required)).toThrow('unexpected argument "DIR"');
  });
});
