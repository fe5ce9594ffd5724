/**
 * plan/ownership-record.ts: a record is canonical exactly when its text is what ownershipText writes
 * for the files read from it. The reader checks that line by line (a fleet's record has a million
 * lines); this compares it with the definition on every one-line change of a real-shaped record.
 */
import { describe, expect, it } from 'vitest';
import { ownershipPiecesOfSorted, ownershipText, parseOwnership } from '../../src/plan/ownership-record.js';

const FILES = ['env-1/a.yaml', 'env-1/b/c.yaml', 'env-1.x/a.yaml', 'env-10/a.yaml', 'kustomization.yaml'];
const base = ownershipText(FILES);
const lines = base.split('\n');

/** Every text one edit away from the canonical record: each line dropped, doubled, swapped with the next or replaced. */
function variants(): string[] {
  const out = [base, `\uFEFF${base}`, base.replace(/\n/g, '\r\n'), base.slice(0, -1), `${base}\n`, `${base}# note\n`];
  const replacements = [
    '',
    '# comment',
    '#env-2/x.yaml',
    '../up.yaml',
    '/abs.yaml',
    'a//b',
    'env-0/z.yaml',
    'zzz',
    '=======',
    'env-1/a.yaml',
  ];
  for (let i = 0; i < lines.length - 1; i++) {
    out.push([...lines.slice(0, i), ...lines.slice(i + 1)].join('\n'));
    out.push([...lines.slice(0, i + 1), ...lines.slice(i)].join('\n'));
    if (i + 1 < lines.length - 1)
      out.push([...lines.slice(0, i), lines[i + 1]!, lines[i]!, ...lines.slice(i + 2)].join('\n'));
    for (const r of replacements) out.push([...lines.slice(0, i), r, ...lines.slice(i + 1)].join('\n'));
  }
  return out;
}

describe('a canonical ownership record', () => {
  it.each(variants().map((text) => [JSON.stringify(text).slice(0, 140), text]))(
    'is what ownershipText writes for its files: %s',
    (_shown, text) => {
      const record = parseOwnership(text);
      const normalised = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
      expect(record.canonical).toBe(!record.conflicted && normalised === ownershipText(record.files));
    },
  );

  it('holds for a record written in pieces (more lines than one piece holds), which lists every file once', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `env-${String(i).padStart(5, '0')}/c/f.yaml`);
    const text = [...ownershipPiecesOfSorted(many)].join('');
    expect(text).toBe(ownershipText([...many].reverse()));
    const record = parseOwnership(text);
    expect(record.canonical).toBe(true);
    expect([...record.files]).toEqual(many);
  });

  it('holds for the record a build writes, and not for one a line was added to by hand', () => {
    expect(parseOwnership(base).canonical).toBe(true);
    expect(parseOwnership(`${base}extra.yaml\n`).canonical).toBe(false);
  });
});
