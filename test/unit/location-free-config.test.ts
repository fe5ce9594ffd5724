/** capi-render.yaml as its records read it: where local repositories live is left out, nothing else. */
import { describe, expect, it } from 'vitest';
import { withoutRepositoryLocations } from '../../src/config/location-free-config.js';

const config = (paths: string[], tail = '') => `apiVersion: capi-render/v1alpha1\nkind: Config\nrepositories:\n${paths.map((p) => `  - path: ${p} # mirror\n`).join('')}${tail}`;

describe('withoutRepositoryLocations', () => {
  it.each([
    { name: 'a moved folder', a: config(['vendor/releases']), b: config(['mirror/releases']) },
    { name: 'a quoted path', a: config(['vendor/releases']), b: config(['"/srv/capi releases"']) },
    { name: 'several repositories', a: config(['a', 'b']), b: config(['c', 'd']) },
    { name: 'a flow mapping', a: 'repositories: [{path: a}]\n', b: 'repositories: [{path: elsewhere/b}]\n' },
  ])('the same record after $name', ({ a, b }) => {
    expect(withoutRepositoryLocations(a)).toBe(withoutRepositoryLocations(b));
  });

  it.each([
    { name: 'a variable', a: config(['a'], 'variables:\n  X: "1"\n'), b: config(['a'], 'variables:\n  X: "2"\n') },
    { name: 'another number of repositories', a: config(['a']), b: config(['a', 'b']) },
    { name: 'a comment', a: config(['a'], '# one\n'), b: config(['a'], '# two\n') },
    { name: 'a path outside repositories', a: config(['a'], 'templatesDir: t1\n'), b: config(['a'], 'templatesDir: t2\n') },
  ])('another record after $name', ({ a, b }) => {
    expect(withoutRepositoryLocations(a)).not.toBe(withoutRepositoryLocations(b));
  });

  it.each([
    { name: 'no repositories', text: 'kind: Config\nvariables: {}\n' },
    { name: 'invalid YAML', text: 'repositories: [\n' },
    { name: 'repositories not a list', text: 'repositories: vendor\n' },
    { name: 'two documents', text: 'repositories: [{path: a}]\n---\nx: 1\n' },
  ])('the text itself for $name', ({ text }) => {
    expect(withoutRepositoryLocations(text)).toBe(text);
  });

  it('leaves the key, its comment and every other byte in place', () => {
    expect(withoutRepositoryLocations(config(['vendor/releases']))).toBe(config(['']));
  });
});
