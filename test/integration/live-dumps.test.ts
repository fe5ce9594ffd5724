/**
 * The dump fixtures under test/fixtures/live/ are exactly what test/live-dumps/generate.ts builds
 * from the real release artifacts. UPDATE_LIVE_DUMPS=1 rewrites them (review the diff; never under CI=1).
 */
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/fixtures.js';
import { goldenText } from '../helpers/golden.js';
import { generateLiveDumps } from '../live-dumps/generate.js';

const DIR = `${FIXTURES}live/`;

describe('live dump fixtures', () => {
  it('are reproduced byte for byte by the generator', async () => {
    const dumps = await generateLiveDumps();
    expect([...dumps.keys()]).toHaveLength(6);
    for (const [name, text] of dumps) {
      const file = `${DIR}${name}.gz`;
      const committed = goldenText(file, text, {
        flag: 'UPDATE_LIVE_DUMPS',
        command: 'npm run fixtures:live-dumps',
        encode: (t) => gzipSync(t, { level: 9 }),
        decode: (bytes) => gunzipSync(bytes).toString('utf8'),
      });
      expect(committed, name).toBe(text);
    }
  });
});
