import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SpecError } from '../../src/errors.js';
import { parseLock } from '../../src/lock/lock-file.js';
import { parseLockState } from '../../src/lock/lock-state.js';
import { createValueCache } from '../../src/v8-value-cache.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { thrownBy } from '../helpers/errors.js';
import { tempDir } from '../helpers/tmp.js';

const EXAMPLE_LOCK = readFileSync(path.join(REPO_ROOT, 'capi-render.lock'), 'utf8');

describe('parseLockState with a parsed-value cache', () => {
  it('reads the same lock back from the cache as from the YAML', () => {
    const dir = tempDir();
    const cache = createValueCache(dir, 'lock');
    const fresh = parseLockState(EXAMPLE_LOCK, cache).lock;
    expect(readdirSync(path.join(dir, `lock-v8-${process.versions.v8}`))).toHaveLength(1);
    expect(parseLockState(EXAMPLE_LOCK, cache).lock).toEqual(fresh);
    expect(fresh).toEqual(parseLock(EXAMPLE_LOCK));
  });

  it('a damaged cache entry is ignored: the text is parsed again', () => {
    const dir = tempDir();
    const cache = createValueCache(dir, 'lock');
    const sha256 = createHash('sha256').update(EXAMPLE_LOCK).digest('hex');
    cache.put(sha256, { apiVersion: 'something else' });
    expect(parseLockState(EXAMPLE_LOCK, cache).lock).toEqual(parseLock(EXAMPLE_LOCK));
  });

  it.each([
    { name: 'not YAML', text: 'apiVersion: [\n' },
    { name: 'not a lock', text: 'apiVersion: v1\nkind: ConfigMap\n' },
    {
      name: 'an artifact without a digest',
      text: 'apiVersion: capi-render/v1alpha1\nkind: Lock\nartifacts:\n- {source: x, file: y}\n',
    },
  ])('$name is reported every time and never cached', ({ text }) => {
    const dir = tempDir();
    const cache = createValueCache(dir, 'lock');
    for (let run = 0; run < 2; run++)
      expect(thrownBy(SpecError, () => parseLockState(text, cache)).diagnostics[0]!.code).toBe('lock');
    expect(readdirSync(dir)).toEqual([]);
  });
});
