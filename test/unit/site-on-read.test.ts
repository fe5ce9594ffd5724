import { describe, expect, it } from 'vitest';
import { siteOnRead } from '../../src/render/site-on-read.js';

describe('siteOnRead', () => {
  it('finds the site on the first read only, once, and a spread reads every field', () => {
    let calls = 0;
    const site = siteOnRead(() => {
      calls++;
      return { file: 'providers/core.yaml', line: 7, col: 12 };
    }, ['file', 'line', 'col']);
    expect(calls).toBe(0);
    expect(site.line).toBe(7);
    expect({ ...site, object: 'CoreProvider/capi-system/cluster-api' }).toEqual({
      file: 'providers/core.yaml',
      line: 7,
      col: 12,
      object: 'CoreProvider/capi-system/cluster-api',
    });
    expect(calls).toBe(1);
  });
});
