/** capi-render.yaml as its records read it: where local repositories live is left out, nothing else. */
import { describe, expect, it } from 'vitest';
import { blockFormWithoutLocations, withoutRepositoryLocations } from '../../src/config/location-free-config.js';

const config = (paths: string[], tail = '') =>
  `apiVersion: capi-render/v1alpha1\nkind: Config\nrepositories:\n${paths.map((p) => `  - path: ${p} # mirror\n`).join('')}${tail}`;

describe('withoutRepositoryLocations', () => {
  it.each([
    { name: 'a moved folder', a: config(['vendor/releases']), b: config(['mirror/releases']) },
    { name: 'a quoted path', a: config(['vendor/releases']), b: config(['"/srv/capi releases"']) },
    { name: 'several repositories', a: config(['a', 'b']), b: config(['c', 'd']) },
    { name: 'a flow mapping', a: 'repositories: [{path: a}]\n', b: 'repositories: [{path: elsewhere/b}]\n' },
  ])('the same record after $name', async ({ a, b }) => {
    expect(await withoutRepositoryLocations(a)).toBe(await withoutRepositoryLocations(b));
  });

  it.each([
    { name: 'a variable', a: config(['a'], 'variables:\n  X: "1"\n'), b: config(['a'], 'variables:\n  X: "2"\n') },
    { name: 'another number of repositories', a: config(['a']), b: config(['a', 'b']) },
    { name: 'a comment', a: config(['a'], '# one\n'), b: config(['a'], '# two\n') },
    {
      name: 'a path outside repositories',
      a: config(['a'], 'templatesDir: t1\n'),
      b: config(['a'], 'templatesDir: t2\n'),
    },
  ])('another record after $name', async ({ a, b }) => {
    expect(await withoutRepositoryLocations(a)).not.toBe(await withoutRepositoryLocations(b));
  });

  it.each([
    { name: 'no repositories', text: 'kind: Config\nvariables: {}\n' },
    { name: 'invalid YAML', text: 'repositories: [\n' },
    { name: 'repositories not a list', text: 'repositories: vendor\n' },
    { name: 'two documents', text: 'repositories: [{path: a}]\n---\nx: 1\n' },
  ])('the text itself for $name', async ({ text }) => {
    expect(await withoutRepositoryLocations(text)).toBe(text);
  });

  it('leaves the key, its comment and every other byte in place', async () => {
    expect(await withoutRepositoryLocations(config(['vendor/releases']))).toBe(config(['']));
  });
});

/**
 * The no-op build reads the block form line by line and never loads the YAML library; each text it
 * accepts must come out exactly as the library's reading leaves it, and a form it does not know is
 * handed to the library. The first text of each row is the line reader's; the expectation is the
 * library's own (a text with no block form goes to it).
 */
describe('the line reader agrees with the YAML library', () => {
  const ACCEPTED = [
    config(['vendor/releases']),
    config(['"quoted path/x"', "'single ''quoted'''", 'plain-path_1.2']),
    'repositories:\n- path: a\n- path: b   # trailing comment\nvariables:\n  X: "1"\n',
    'repositories: # the mirrors\n  - path: a\n    # a note\n\n  - name: second\n    path: b\ncertManager:\n  version: v1.19.4\n',
    '# yaml-language-server: $schema=x\n# repositories below\nkind: Config\nrepositories:\n  - path: /abs/path\n',
  ];
  const DECLINED = [
    'repositories: [{path: a}]\n',
    'repositories:\n  - path: &p a\n  - path: *p\n',
    'repositories:\n  - path: |\n      a\n',
    'repositories:\n  - extra:\n      path: a\n',
    'repositories:\n\t- path: a\n',
    '"repositories":\n  - path: a\n',
    'repositories:\n  - path: a\n---\nkind: Config\n',
  ];

  it.each(ACCEPTED.map((text) => [text]))('reads %j line by line as the library does', async (text) => {
    const byLine = blockFormWithoutLocations(text);
    expect(byLine).toBeDefined();
    // The library's reading: force it by giving the text a form the line reader declines (a tab in a comment).
    const parsed = await withoutRepositoryLocations(`${text}#\t\n`);
    expect(`${byLine}#\t\n`).toBe(parsed);
  });

  it.each(DECLINED.map((text) => [text]))('hands %j to the library', (text) => {
    expect(blockFormWithoutLocations(text)).toBeUndefined();
  });
});
