/**
 * go-yaml's alias-ratio rule (what clusterctl and the operator decode artifacts with), applied to
 * js-yaml's documents: a billion-laughs bomb is refused within its first few thousand nodes, whatever
 * its expanded size; documents that use aliases modestly, and the real release artifacts, pass.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { allowedAliasRatio, measureExpansion } from '../../src/manifest/alias-expansion.js';
import { parseManifests } from '../../src/manifest/parse.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

const load = (text: string) => jsYaml.load(text, { schema: jsYaml.CORE_SCHEMA });
const bomb = (levels: number, width = 10) => {
  const lines = [`a0: &a0 [${Array(width).fill('x').join(', ')}]`];
  for (let i = 1; i < levels; i++)
    lines.push(
      `a${i}: &a${i} [${Array(width)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\n`;
};
const budget = (remaining = 20_000_000) => ({ remaining });

describe('allowedAliasRatio (go-yaml decode.go)', () => {
  it.each([
    [0, 0.99],
    [400_000, 0.99],
    [2_200_000, 0.545],
    [4_000_000, 0.1],
    [40_000_000, 0.1],
  ])('after %i decoded nodes: %f', (decoded, ratio) => {
    expect(allowedAliasRatio(decoded)).toBeCloseTo(ratio, 6);
  });
});

describe('measureExpansion', () => {
  it.each([
    { name: 'a 10^4 bomb', text: bomb(4) },
    { name: 'a 10^7 bomb (the fuzz finding: under the 20-million budget)', text: bomb(7) },
    { name: 'a 10^30 bomb', text: bomb(30) },
    {
      name: 'a bomb of maps',
      text: `m0: &m0 {a: x, b: x, c: x, d: x}\n${Array.from({ length: 20 }, (_, i) => `m${i + 1}: &m${i + 1} {a: *m${i}, b: *m${i}, c: *m${i}, d: *m${i}}`).join('\n')}\n`,
    },
  ])('refuses $name within its first 20 000 nodes, before walking it', ({ text }) => {
    // Fixed work, not time: the nodes visited (what the budget counts) are what the rule bounds.
    const b = budget();
    expect(measureExpansion(load(text), b)).toBe('excessive-aliasing');
    expect(20_000_000 - b.remaining).toBeLessThan(20_000);
  });

  it.each([
    { name: 'no aliases', text: Array.from({ length: 5_000 }, (_, i) => `k${i}: [${i}, ${i + 1}]`).join('\n') },
    { name: 'under 100 aliased nodes', text: `a: &a [${Array(90).fill('x').join(', ')}]\nb: *a\n` },
    // 1,000 aliased out of about 1,070: 93%, under the 99% allowed for small documents (go-yaml accepts it too).
    {
      name: 'an anchor used 50 times (93% aliased)',
      text: `a: &a [${Array(19).fill('x').join(', ')}]\n${Array.from({ length: 50 }, (_, i) => `b${i}: *a`).join('\n')}\n`,
    },
    {
      name: 'YAML merge keys, as some charts use',
      text: `base: &base {replicas: 1, image: x}\n${Array.from({ length: 30 }, (_, i) => `d${i}: {<<: *base, name: d${i}}`).join('\n')}\n`,
    },
  ])('accepts $name', ({ text }) => {
    expect(measureExpansion(load(text), budget())).toBeUndefined();
  });

  it('counts every value against the budget: a document over it is too-many-values', () => {
    const doc = load(Array.from({ length: 200 }, (_, i) => `k${i}: v`).join('\n'));
    expect(measureExpansion(doc, budget(150))).toBe('too-many-values');
    const b = budget(1_000);
    expect(measureExpansion(doc, b)).toBeUndefined();
    expect(b.remaining).toBe(1_000 - 201);
  });

  it('passes every real release artifact in test/fixtures/repository (cert-manager and CAPI, gzipped as stored)', () => {
    const root = path.join(REPO_ROOT, 'test/fixtures/repository');
    const artifacts = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) =>
      /-components\.yaml(\.gz)?$|cert-manager\.yaml(\.gz)?$/.test(f),
    );
    expect(artifacts.length).toBeGreaterThan(20);
    for (const file of artifacts) {
      const bytes = readFileSync(path.join(root, file));
      const text = (file.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
      expect(parseManifests(text, file).length, file).toBeGreaterThan(0);
    }
  });
});

describe('parseManifests', () => {
  it('refuses an artifact whose document contains excessive aliasing, naming the file', () => {
    const text = `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: bomb}\ndata:\n${bomb(7).replace(/^/gm, '  ')}`;
    expect(() => parseManifests(text, 'releases/x/v1.0.0/infrastructure-components.yaml')).toThrow(
      /releases\/x\/v1\.0\.0\/infrastructure-components\.yaml has a document that contains excessive aliasing/,
    );
  });
});
