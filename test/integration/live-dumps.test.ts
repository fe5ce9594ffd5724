/**
 * The dump fixtures under test/fixtures/live/ are exactly what test/live-dumps/generate.ts builds
 * from the real release artifacts. UPDATE_LIVE_DUMPS=1 rewrites them (review the diff).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../helpers/fixtures.js';
import { generateLiveDumps } from '../live-dumps/generate.js';

const DIR = `${FIXTURES}live/`;

describe('live dump fixtures', () => {
  it('are reproduced byte for byte by the generator', async () => {
    const dumps = await generateLiveDumps();
    expect([...dumps.keys()]).toHaveLength(6);
    for (const [name, text] of dumps) {
      const file = `${DIR}${name}.gz`;
      if (process.env.UPDATE_LIVE_DUMPS === '1' || !existsSync(file)) writeFileSync(file, gzipSync(text, { level: 9 }));
      expect(gunzipSync(readFileSync(file)).toString('utf8'), name).toBe(text);
    }
  });
});
