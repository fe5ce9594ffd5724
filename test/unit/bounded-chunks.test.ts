/**
 * bounded-read.ts readBoundedChunksSync: the bytes arrive whole and in order, a piece at a time,
 * under the same refusals as readBoundedSync (a link, a FIFO, a file over the limit); and the
 * output fingerprint, which reads a fleet's ownership record this way, reads a record of many
 * pieces — lines and multi-byte characters cut at a piece's end — as the whole text says.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readBoundedChunksSync, readBoundedSync } from '../../src/bounded-read.js';
import { sha256Of, takeFingerprint } from '../../src/output/output-fingerprint.js';
import { OWNERSHIP_FILE, ownershipText } from '../../src/output/ownership.js';
import { tempDir } from '../helpers/tmp.js';

/** About 3 MiB of lines, some with multi-byte characters, so pieces end inside lines and characters. */
const LINES = Array.from(
  { length: 40_000 },
  (_, i) => `env-${String(i % 400).padStart(4, '0')}/é-ü-${'x'.repeat(i % 50)}-${i}.yaml`,
);

function chunksOf(file: string, limit: number) {
  const pieces: Buffer[] = [];
  const outcome = readBoundedChunksSync(file, { limit }, (bytes) => pieces.push(Buffer.from(bytes)));
  return { outcome, bytes: Buffer.concat(pieces), pieces: pieces.length };
}

describe('readBoundedChunksSync', () => {
  it('gives every byte, in order, in more than one piece, and says how many', () => {
    const file = path.join(tempDir(), 'big');
    const text = `${LINES.join('\n')}\n`;
    writeFileSync(file, text);
    const read = chunksOf(file, 64 << 20);
    expect(read.outcome).toEqual({ outcome: 'read', size: Buffer.byteLength(text) });
    expect(read.pieces).toBeGreaterThan(1);
    expect(read.bytes.equals(Buffer.from(text))).toBe(true);
  });

  it.each([
    ['a link', (dir: string) => symlinkSync(path.join(dir, 'target'), path.join(dir, 'f'))],
    ['a FIFO', (dir: string) => execFileSync('mkfifo', [path.join(dir, 'f')])],
    ['a folder', (dir: string) => mkdirSync(path.join(dir, 'f'))],
    ['a file over the limit', (dir: string) => writeFileSync(path.join(dir, 'f'), 'x'.repeat(101))],
    ['nothing', () => undefined],
  ])('refuses %s as readBoundedSync does, and calls back never', (_name, make) => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'target'), 'data');
    make(dir);
    const file = path.join(dir, 'f');
    const read = chunksOf(file, 100);
    expect(read.pieces).toBe(0);
    const whole = readBoundedSync(file, { limit: 100 });
    expect(read.outcome).toEqual(whole);
  });
});

describe('the fingerprint of a fleet-sized ownership record', () => {
  it('marks every file the record lists, the record by the sha256 of its bytes', () => {
    const root = tempDir();
    const files = LINES.slice(0, 30_000);
    for (const rel of files) {
      mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      writeFileSync(path.join(root, rel), rel);
    }
    const record = ownershipText(files);
    expect(Buffer.byteLength(record)).toBeGreaterThan(1 << 20);
    writeFileSync(path.join(root, OWNERSHIP_FILE), record);
    const envs = [...new Set(files.map((f) => f.slice(0, f.indexOf('/'))))].sort();
    const fp = takeFingerprint({
      previous: undefined,
      outDir: root,
      gitopsDir: tempDir(),
      produced: { out: new Map(files.map((f) => [f, sha256Of(f)])), gitops: new Map() },
      rendered: Object.fromEntries(envs.map((e) => [e, `key-${e}`])),
      confirmed: [],
      allEnvironments: envs,
    });
    expect([...fp.environments.keys()]).toEqual(envs);
    let marked = 0;
    for (const env of fp.environments.values()) for (const names of env.out.values()) marked += names.size;
    expect(marked).toBe(files.length);
    expect(fp.shared.out.get('')?.get(OWNERSHIP_FILE)?.[3]).toBe(sha256Of(record));
  });
});
