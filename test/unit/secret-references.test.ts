/** The loading edge of Secret values by reference: what each reference reads, with git's answers faked. */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { InputObject } from '../../src/declarations/inputs.js';
import { secretEntries, secretValues } from '../../src/declarations/secret-values.js';
import { createReferenceReader, type GitView } from '../../src/secrets/secret-references.js';
import { SpecError } from '../../src/errors.js';
import { tempDir } from '../helpers/tmp.js';

const secret = (stringData: Record<string, unknown>): InputObject => ({
  object: {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'ns' },
    stringData,
  } as InputObject['object'],
  file: 'providers/s.yaml',
  locate: () => ({ line: 3, col: 5 }),
});
const noGit: GitView = { topLevel: async () => undefined, ignores: async () => false };

describe('secret references', () => {
  it('reads fromEnv and fromFile values verbatim (a trailing newline kept); unset and absent have no value', async () => {
    const repo = tempDir();
    const outside = path.join(tempDir(), 'value');
    writeFileSync(outside, 'line one\nline two\n');
    const [input] = await createReferenceReader({
      repoRoot: repo,
      env: { A: 'from-env', EMPTY: '' },
      git: noGit,
    }).resolve([
      secret({
        a: { fromEnv: 'A' },
        empty: { fromEnv: 'EMPTY' },
        unset: { fromEnv: 'NOPE' },
        file: { fromFile: outside },
        absent: { fromFile: path.join(outside, '..', 'nothing') },
        plain: 'text',
      }),
    ]);
    expect(secretEntries(input!)).toEqual({
      a: { value: 'from-env', reference: { fromEnv: 'A' } },
      empty: { value: '', reference: { fromEnv: 'EMPTY' } },
      unset: { value: undefined, reference: { fromEnv: 'NOPE' } },
      file: { value: 'line one\nline two\n', reference: { fromFile: outside } },
      absent: { value: undefined, reference: { fromFile: path.join(outside, '..', 'nothing') } },
      plain: { value: 'text' },
    });
    expect(secretValues(input!)).toEqual({ a: 'from-env', empty: '', file: 'line one\nline two\n', plain: 'text' });
  });

  it('a relative path is relative to the repository root; inside it, only a file git ignores is read', async () => {
    const repo = tempDir();
    mkdirSync(path.join(repo, '.secrets'));
    writeFileSync(path.join(repo, '.secrets/v'), 'ignored value');
    const ignoring: GitView = {
      topLevel: async () => undefined,
      ignores: async (f) => f.endsWith(`${path.sep}.secrets${path.sep}v`),
    };
    const [read] = await createReferenceReader({ repoRoot: repo, env: {}, git: ignoring }).resolve([
      secret({ v: { fromFile: '.secrets/v' } }),
    ]);
    expect(secretValues(read!)).toEqual({ v: 'ignored value' });
    const refused = await createReferenceReader({ repoRoot: repo, env: {}, git: noGit })
      .resolve([secret({ v: { fromFile: '.secrets/v' } })])
      .catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(SpecError);
    expect((refused as SpecError).diagnostics.map((d) => [d.code, d.file, d.line, d.field])).toEqual([
      ['config-secret', 'providers/s.yaml', 3, 'stringData.v.fromFile'],
    ]);
  });

  it('a file inside the git work tree that holds the repository counts as inside', async () => {
    const top = tempDir();
    const repo = path.join(top, 'capi');
    mkdirSync(repo);
    writeFileSync(path.join(top, 'v'), 'value');
    const git: GitView = { topLevel: async () => top, ignores: async () => false };
    await expect(
      createReferenceReader({ repoRoot: repo, env: {}, git }).resolve([secret({ v: { fromFile: '../v' } })]),
    ).rejects.toThrow(/inside the repository that git would commit/);
  });

  it('a Secret without references is returned as it is, and git is not asked', async () => {
    const asked: string[] = [];
    const git: GitView = {
      topLevel: async () => (asked.push('top'), undefined),
      ignores: async () => (asked.push('ignores'), false),
    };
    const input = secret({ a: 'x' });
    const [same] = await createReferenceReader({ repoRoot: tempDir(), env: {}, git }).resolve([input]);
    expect(same).toBe(input);
    expect(asked).toEqual([]);
  });
});
