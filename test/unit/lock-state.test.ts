/**
 * A LockState's lock and text always belong together: a state read from a text holds what that text
 * parses to, and a state capi-render writes holds exactly what parsing its text would give — which is
 * why a build never parses the lock it just wrote.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLock, serializeLock } from '../../src/lock/lock-file.js';
import { parseLockState, readLockState, writtenLockState } from '../../src/lock/lock-state.js';
import { emptyLock, type LockFile } from '../../src/lock/lock-types.js';
import { createValueCache } from '../../src/v8-value-cache.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { tempDir } from '../helpers/tmp.js';

const EXAMPLE_LOCK = readFileSync(path.join(REPO_ROOT, 'capi-render.lock'), 'utf8');
const H = (c: string) => c.repeat(64);

describe('LockState', () => {
  it('without a lock file: an empty lock, no text, nothing canonical to keep', async () => {
    expect(await readLockState(tempDir())).toEqual({ lock: emptyLock(), text: undefined, canonical: false });
  });

  it("read: the file's text and its lock; canonical only when the text is byte for byte what capi-render writes", async () => {
    const read = await readLockState(REPO_ROOT);
    expect(read.text).toBe(EXAMPLE_LOCK);
    expect(read.lock).toEqual(parseLock(EXAMPLE_LOCK));
    expect(read.canonical).toBe(true);
    for (const text of [
      `${EXAMPLE_LOCK}# a comment\n`,
      EXAMPLE_LOCK.replace(/\n/g, '\r\n'),
      `\ufeff${EXAMPLE_LOCK}`,
      EXAMPLE_LOCK.replace('kind: Lock\n', 'kind: "Lock"\n'),
    ]) {
      const state = parseLockState(text);
      expect(state.text).toBe(text);
      expect(state.canonical).toBe(false);
    }
  });

  it('a parsed-value cache keeps whether the text is canonical with the lock', () => {
    const dir = tempDir();
    const cache = createValueCache(dir, 'lock');
    const sha256 = createHash('sha256').update(EXAMPLE_LOCK).digest('hex');
    const first = parseLockState(EXAMPLE_LOCK, cache);
    expect(cache.get(sha256)).toEqual({ lock: first.lock, canonical: true });
    const again = parseLockState(EXAMPLE_LOCK, cache);
    expect(again).toMatchObject({ lock: first.lock, text: EXAMPLE_LOCK, canonical: true });
    // An entry of the form written before (the lock alone) is parsed again and replaced.
    cache.put(sha256, first.lock);
    expect(parseLockState(EXAMPLE_LOCK, cache).lock).toEqual(first.lock);
    expect(cache.get(sha256)).toEqual({ lock: first.lock, canonical: true });
  });

  it("written: serializeLock's text, and the lock as parsing that text gives it (sorted, deduplicated, trimmed)", () => {
    const artifact = {
      source: 'github:a/b',
      version: 'v1.0.0',
      file: 'c.yaml',
      url: 'https://x/c.yaml',
      sha256: H('a'),
    };
    const messy: LockFile = {
      apiVersion: 'capi-render/v1alpha1',
      kind: 'Lock',
      environments: [
        {
          name: 'prod',
          inputs: '',
          providers: [
            { provider: 'Z/z/z', requested: 'on', version: '1.10', contract: 'v1beta1', source: 'x', variables: [] },
            {
              provider: 'A/a/a',
              requested: '',
              version: 'v1.0.0',
              contract: '',
              source: 'github:a/b',
              variables: ['B', 'A'],
            },
          ],
          crds: ['b', 'a'],
          images: [],
        },
        { name: 'dev', providers: [] },
      ],
      artifacts: [artifact, { ...artifact, url: 'https://y/c.yaml' }, { ...artifact, file: '0775' }],
      images: [
        { image: 'r/i:1', digest: `sha256:${H('b')}` },
        { image: 'r/i:1', digest: `sha256:${H('c')}`, verified: { rule: 'r', method: 'key', format: 'legacy-tag' } },
      ],
      inputFiles: [
        { file: 'z.yaml', sha256: H('d') },
        { file: 'a.yaml', sha256: H('e') },
      ],
    };
    for (const lock of [messy, parseLock(EXAMPLE_LOCK), emptyLock()]) {
      const state = writtenLockState(lock);
      expect(state.text).toBe(serializeLock(lock));
      expect(state.canonical).toBe(true);
      expect(state.lock).toEqual(parseLock(state.text!));
      expect(parseLockState(state.text!).canonical).toBe(true);
    }
  });

  it('written, for any lock: what parsing its text gives', () => {
    const text = fc.string({ maxLength: 12 });
    const hex = fc.stringMatching(/^[0-9a-f]{64}$/);
    const lock = fc.record({
      environments: fc.array(
        fc.record(
          {
            name: text,
            inputs: fc.option(hex, { nil: undefined }),
            providers: fc.array(
              fc.record({
                provider: text,
                requested: text,
                version: text,
                contract: text,
                source: text,
                variables: fc.array(text, { maxLength: 3 }),
              }),
              { maxLength: 3 },
            ),
            crds: fc.option(fc.array(text, { maxLength: 3 }), { nil: undefined }),
            images: fc.option(fc.array(text, { maxLength: 2 }), { nil: undefined }),
          },
          { requiredKeys: ['name', 'providers'] },
        ),
        { maxLength: 3 },
      ),
      artifacts: fc.array(fc.record({ source: text, version: text, file: text, url: text, sha256: hex }), {
        maxLength: 4,
      }),
    });
    fc.assert(
      fc.property(lock, (parts) => {
        const state = writtenLockState({ apiVersion: 'capi-render/v1alpha1', kind: 'Lock', ...parts });
        expect(state.lock).toEqual(parseLock(state.text!));
      }),
      { numRuns: 200 },
    );
  });
});
