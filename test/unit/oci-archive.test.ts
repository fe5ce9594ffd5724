/**
 * The tar+gzip reader of the cluster-api layout (src/source/oci/oci-archive.ts) against archives
 * GNU tar writes — an independent writer — in its ustar, pax and gnu formats, and against the
 * archive capi-render's own writer (publish/provider-artifact.ts) packs.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readArchiveFiles, readTarFiles } from '../../src/source/oci/oci-archive.js';
import { FetchError } from '../../src/errors.js';
import { fixtureText } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const METADATA = fixtureText('repository/cluster-api/v1.12.0/metadata.yaml');
const COMPONENTS = fixtureText('repository/cluster-api/v1.12.0/core-components.yaml');
const LONG_NAME = `${'x'.repeat(120)}-components.yaml`;

/** Runs GNU tar in a folder holding `files`, archiving `members`; returns the archive's bytes. */
function gnuTar(
  format: 'ustar' | 'pax' | 'gnu',
  files: Record<string, string>,
  members: string[],
  gzip = true,
): Uint8Array {
  const dir = tempDir();
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), text);
  }
  const out = path.join(tempDir(), 'layer.tar');
  const made = spawnSync('tar', [`--format=${format}`, gzip ? '-czf' : '-cf', out, '-C', dir, ...members], {
    encoding: 'utf8',
  });
  if (made.status !== 0) throw new Error(`tar: ${made.stderr}`);
  return new Uint8Array(readFileSync(out));
}

const decode = (files: Map<string, Uint8Array>) =>
  Object.fromEntries([...files].map(([n, b]) => [n, new TextDecoder().decode(b)]));

describe('readArchiveFiles: root files of archives GNU tar writes', () => {
  const cases: { name: string; archive: () => Uint8Array; expected: Record<string, string> }[] = [
    {
      name: 'ustar, files named plainly',
      archive: () =>
        gnuTar('ustar', { 'metadata.yaml': METADATA, 'core-components.yaml': COMPONENTS }, [
          'metadata.yaml',
          'core-components.yaml',
        ]),
      expected: { 'metadata.yaml': METADATA, 'core-components.yaml': COMPONENTS },
    },
    {
      name: 'pax, the whole folder as ./ (a root entry, ./-prefixed names)',
      archive: () => gnuTar('pax', { 'metadata.yaml': METADATA, 'core-components.yaml': COMPONENTS }, ['.']),
      expected: { 'metadata.yaml': METADATA, 'core-components.yaml': COMPONENTS },
    },
    {
      name: 'pax, a name longer than ustar holds (PAX path record)',
      archive: () =>
        gnuTar('pax', { [LONG_NAME]: COMPONENTS, 'metadata.yaml': METADATA }, [LONG_NAME, 'metadata.yaml']),
      expected: { [LONG_NAME]: COMPONENTS, 'metadata.yaml': METADATA },
    },
    {
      name: 'gnu, a long name (././@LongLink entry)',
      archive: () => gnuTar('gnu', { [LONG_NAME]: COMPONENTS }, [LONG_NAME]),
      expected: { [LONG_NAME]: COMPONENTS },
    },
    {
      name: 'files below the root and folders are not root files',
      archive: () =>
        gnuTar('ustar', { 'metadata.yaml': METADATA, 'templates/cluster-template.yaml': 'kind: Cluster\n' }, [
          'metadata.yaml',
          'templates',
        ]),
      expected: { 'metadata.yaml': METADATA },
    },
    {
      name: 'an empty file is kept (empty = absent is decided by the caller)',
      archive: () => gnuTar('ustar', { 'metadata.yaml': '' }, ['metadata.yaml']),
      expected: { 'metadata.yaml': '' },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(decode(readArchiveFiles(c.archive(), 'the layer'))).toEqual(c.expected);
    });
  }

  it('reads an uncompressed tar the same way', () => {
    const tar = gnuTar('pax', { 'metadata.yaml': METADATA }, ['metadata.yaml'], false);
    expect(decode(readTarFiles(tar, 'the layer'))).toEqual({ 'metadata.yaml': METADATA });
  });
});

describe('readArchiveFiles: broken layers fail with source-unsupported naming the layer', () => {
  const tar = () => gnuTar('ustar', { 'metadata.yaml': METADATA }, ['metadata.yaml'], false);
  const cases: { name: string; layer: () => Uint8Array; message: RegExp }[] = [
    {
      name: 'not gzip',
      layer: () => new TextEncoder().encode(METADATA),
      message: /layer L is not a usable tar\+gzip layer: it is not gzip data/,
    },
    {
      name: 'a header with a bad checksum',
      layer: () => {
        const t = tar();
        t[0] = 'N'.charCodeAt(0);
        return gzipSync(t);
      },
      message: /bad checksum/,
    },
    { name: 'cut short', layer: () => gzipSync(tar().subarray(0, 700)), message: /cut short/ },
    {
      name: 'the same name twice (tar --append)',
      layer: () => {
        const dir = tempDir();
        writeFileSync(path.join(dir, 'metadata.yaml'), METADATA);
        const out = path.join(dir, 'twice.tar');
        for (const flag of ['-cf', '-rf']) spawnSync('tar', ['--format=ustar', flag, out, '-C', dir, 'metadata.yaml']);
        return gzipSync(readFileSync(out));
      },
      message: /holds metadata\.yaml twice/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      let thrown: unknown;
      try {
        readArchiveFiles(c.layer(), 'layer L');
      } catch (e) {
        thrown = e;
      }
      expect(thrown).toBeInstanceOf(FetchError);
      expect((thrown as FetchError).code).toBe('source-unsupported');
      expect((thrown as FetchError).message).toMatch(c.message);
    });
  }
});
