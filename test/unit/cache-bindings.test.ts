/**
 * The cache records the example's build does not write (test/records/cache-records.test.ts covers
 * those): fetched release files, the release index and the Argo CD plugin's streams. Each is bound
 * to what it is about — a file by the sha256 of its bytes, an index entry by its source, version and
 * file, a stream by its key and every document by its sha256 — so an entry damaged, or copied under
 * another entry's name, is a miss, never another entry's value.
 */
import { copyFileSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createArtifactCache } from '../../src/source/artifact-cache.js';
import { createReleaseIndexCache } from '../../src/source/release-index-cache.js';
import { readStream, writeStream } from '../../src/plugin/stream-cache.js';
import { createValueCache } from '../../src/v8-value-cache.js';
import { tempDir } from '../helpers/tmp.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);

describe('cache records are bound to what they are about', () => {
  it('a fetched release file: a changed byte, or another file under its name, is a miss', async () => {
    const dir = tempDir();
    const cache = createArtifactCache(dir);
    const one = await cache.put(new TextEncoder().encode('kind: Namespace\n'));
    const two = await cache.put(new TextEncoder().encode('kind: ConfigMap\n'));
    expect(new TextDecoder().decode(await cache.get(one))).toBe('kind: Namespace\n');
    copyFileSync(path.join(dir, 'sha256', two), path.join(dir, 'sha256', one));
    expect(await cache.get(one)).toBeUndefined();
    writeFileSync(path.join(dir, 'sha256', two), 'kind: ConfigMaq\n');
    expect(await cache.get(two)).toBeUndefined();
  });

  it('a release-index entry copied under another file’s name is a miss', async () => {
    const dir = tempDir();
    const index = createReleaseIndexCache(dir);
    await index.putFile('github:o/r', 'v1.0.0', 'core-components.yaml', { url: 'https://example.com/a', sha256: A });
    await index.putFile('github:o/r', 'v1.0.0', 'metadata.yaml', { url: 'https://example.com/b', sha256: B });
    const files = readdirSync(path.join(dir, 'release-files')).map((f) => path.join(dir, 'release-files', f));
    const contents = files.map((f) => readFileSync(f));
    writeFileSync(files[0]!, contents[1]!);
    writeFileSync(files[1]!, contents[0]!);
    expect(await index.getFile('github:o/r', 'v1.0.0', 'core-components.yaml')).toBeUndefined();
    expect(await index.getFile('github:o/r', 'v1.0.0', 'metadata.yaml')).toBeUndefined();
  });

  it('a plugin stream copied under another key, or a document changed, is a miss', async () => {
    const dir = tempDir();
    await writeStream(dir, A, ['kind: Namespace\n'], []);
    await writeStream(dir, B, ['kind: ConfigMap\n'], []);
    expect(readStream(dir, A)?.text).toBe('kind: Namespace\n');
    copyFileSync(path.join(dir, 'plugin-streams', `${B}.json`), path.join(dir, 'plugin-streams', `${A}.json`));
    expect(readStream(dir, A)).toBeUndefined();
    const documents = readdirSync(path.join(dir, 'plugin-documents'));
    for (const d of documents) writeFileSync(path.join(dir, 'plugin-documents', d), 'kind: Secret\n');
    expect(readStream(dir, B)).toBeUndefined();
  });

  it('a parsed value: a changed bit, or an entry under another key, is a miss', () => {
    const dir = tempDir();
    const values = createValueCache(dir, 'parsed2');
    values.put(A, { kind: 'Namespace' });
    values.put(B, { kind: 'ConfigMap' });
    const folder = readdirSync(dir)[0]!;
    const file = (key: string) => path.join(dir, folder, `${key}.bin`);
    const bytes = readFileSync(file(A));
    bytes[bytes.length - 2]! ^= 1;
    writeFileSync(file(A), bytes);
    expect(values.get(A)).toBeUndefined();
    copyFileSync(file(B), file(A));
    expect(values.get(A)).toBeUndefined();
    expect(values.get(B)).toEqual({ kind: 'ConfigMap' });
  });
});
