/**
 * The repository's own example (providers/, capi-render.yaml, the bundled v1.12.0 artifacts) is the
 * main golden test: rendering it must give exactly the committed rendered/ tree. Regenerate with
 * `npm run render` and review the diff.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import jsYaml from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { render } from '../../src/render/render.js';
import { listFiles } from '../../src/output/list-files.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';

const canonical = (o: unknown): string => JSON.stringify(sortKeys(o));
function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object')
    return Object.fromEntries(
      Object.keys(v)
        .sort()
        .map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]),
    );
  return v;
}

describe('the example repository', () => {
  it('renders exactly the committed rendered/ tree', async () => {
    const result = await render({ repoRoot: REPO_ROOT });
    const committed = await listFiles(path.join(REPO_ROOT, 'rendered'));
    expect([...result.files.keys()].sort()).toEqual(committed);
    for (const [rel, text] of result.files)
      expect(readFileSync(path.join(REPO_ROOT, 'rendered', rel), 'utf8'), rel).toBe(text);
  });

  it.each(['dev', 'prod'])('kubectl kustomize rendered/%s yields exactly the objects capi-render wrote', (env) => {
    const dir = path.join(REPO_ROOT, 'rendered', env);
    const built = (
      jsYaml.loadAll(
        execFileSync('kubectl', ['kustomize', dir], { maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' }),
      ) as object[]
    ).filter(Boolean);
    const written: object[] = [];
    const walk = (rel: string) => {
      for (const f of readFileSync(path.join(dir, rel, 'kustomization.yaml'), 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('- '))
        .map((l) => l.slice(2))) {
        if (f.endsWith('.yaml')) written.push(jsYaml.load(readFileSync(path.join(dir, rel, f), 'utf8')) as object);
        else walk(path.join(rel, f));
      }
    };
    walk('.');
    expect(built.length).toBe(written.length);
    expect(built.map(canonical).sort()).toEqual(written.map(canonical).sort());
  });

  it('renders byte-identical output in two runs with different TZ and LANG', () => {
    const cli = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
    const trees = [
      { TZ: 'UTC', LANG: 'C', LC_ALL: 'C' },
      { TZ: 'Pacific/Chatham', LANG: 'tr_TR.UTF-8', LC_ALL: 'tr_TR.UTF-8' },
    ].map((env) => {
      const repo = copyExample();
      const r = spawnSync(process.execPath, [cli, 'build'], {
        cwd: repo,
        env: { PATH: process.env.PATH, ...env },
        encoding: 'utf8',
      });
      expect(r.status, r.stderr).toBe(0);
      return snapshotTree(path.join(repo, 'rendered'));
    });
    expect(Object.keys(trees[0]!).length).toBeGreaterThan(50);
    expect(trees[1]).toEqual(trees[0]);
  });
});
