/**
 * Where a document starts is read from the text for the usual input layout (the fast path of declarations/yaml-document.ts)
 * instead of from the `yaml` parse: both must give the same line and column, on crafted layouts and
 * on every input-like YAML file of the repository and its fixtures.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  parseSourceDocuments,
  parseWithPositions,
  plainRootPositions,
  readYamlFast,
} from '../../src/declarations/yaml-document.js';
import { REPO_ROOT } from '../helpers/fixtures.js';

/** Each non-empty document's root position from the `yaml` parse, by js-yaml document index. */
function positionsFromYaml(text: string, documents: readonly unknown[]): ({ line: number; col: number } | undefined)[] {
  const located = parseWithPositions(text, 'f.yaml');
  let next = 0;
  return documents.map((d) => (d === null || d === undefined ? undefined : located[next++]!.locate([])));
}

/** The documents both readers agree on; a file either reader refuses is not a case. */
function compared(text: string): { read: number; agree: boolean } {
  const documents = readYamlFast(text);
  if (!documents) return { read: 0, agree: true };
  let expected: ({ line: number; col: number } | undefined)[];
  try {
    expected = positionsFromYaml(text, documents);
  } catch {
    return { read: 0, agree: true };
  }
  const plain = plainRootPositions(text, documents);
  let read = 0;
  const agree = plain.every((p, i) => {
    if (p === undefined) return true;
    read++;
    return expected[i] !== undefined && p.line === expected[i].line && p.col === expected[i].col;
  });
  return { read, agree };
}

describe('plainRootPositions', () => {
  it.each([
    ['apiVersion: v1\nkind: A\n', 1],
    ['# a comment\n\napiVersion: v1\n', 1],
    ['---\napiVersion: v1\n---\n# only a comment\n---\nkind: B\n', 2],
    ['a: 1\n---\n', 1],
    ['\n\n---\n---\na: 1\n', 1],
    ['# c\n---\na: 1\n---   \nb: 2', 2],
    ['  a: 1\n', 0],
    ['--- # a comment\na: 1\n', 0],
    ['--- !!map\na: 1\n', 0],
    ['- a\n- b\n', 0],
    ['"a": 1\n', 0],
    ['a: 1\r\nb: 2\r\n', 1],
    ['a: 1\n...\n---\nb: 2\n', 0],
    ['%YAML 1.2\n---\na: 1\n', 0],
    ['a: |\n  ---\n  x\nb: 2\n', 1],
    ['', 0],
    ['# only\n', 0],
  ])('%j: the text answers %d document(s), as the yaml parse would', (text, read) => {
    expect(compared(text)).toEqual({ read, agree: true });
  });

  it('agrees with the yaml parse on every input-like file of the repository and its fixtures', () => {
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((f) => {
        const full = path.join(dir, f);
        if (f === 'node_modules' || f.startsWith('.')) return [];
        return statSync(full).isDirectory() ? files(full) : /\.ya?ml$/.test(f) ? [full] : [];
      });
    const candidates = ['providers', 'overlays', 'test/fixtures', 'docs', 'deploy']
      .map((d) => path.join(REPO_ROOT, d))
      .flatMap((d) => {
        try {
          return files(d);
        } catch {
          return [];
        }
      })
      .filter((f) => statSync(f).size < 256 * 1024);
    let read = 0;
    for (const file of candidates) {
      const result = compared(readFileSync(file, 'utf8'));
      expect(result.agree, file).toBe(true);
      read += result.read;
    }
    // The layout is the usual one: most documents are answered from the text.
    expect(read).toBeGreaterThan(100);
  });

  it('is what locate answers for a document root, and deeper paths still come from the yaml parse', () => {
    const text = '# header\napiVersion: v1\nkind: A\nspec:\n  x: 1\n---\nkind: B\n';
    const [a, b] = parseSourceDocuments(text, 'f.yaml');
    expect(a!.locate([])).toEqual({ line: 2, col: 1 });
    expect(a!.locate(['spec', 'x'])).toEqual({ line: 5, col: 6 });
    expect(b!.locate([])).toEqual({ line: 7, col: 1 });
  });
});
