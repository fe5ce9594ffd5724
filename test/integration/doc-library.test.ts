/**
 * docs/library.md's examples compile against the package as it is published: its `ts`
 * blocks, in order as one ES module (a later block may use what an earlier one declared), are
 * type-checked strictly against dist/index.d.ts, what `import … from 'capi-render'` resolves to.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { requireCurrentDist } from '../helpers/built-dist.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { fencedBlocks, readManual } from '../helpers/markdown.js';

beforeAll(() => requireCurrentDist());

/** The page's ts blocks as one module: imports first (merged per name), then every other line in order. */
function moduleOf(blocks: string[][]): string {
  const names = new Set<string>();
  const body: string[] = [];
  for (const line of blocks.flat()) {
    const m = /^import \{([^}]*)\} from 'capi-render';$/.exec(line);
    if (m) for (const n of m[1]!.split(',')) names.add(n.trim());
    else body.push(line);
  }
  return `import { ${[...names].sort().join(', ')} } from 'capi-render';\n${body.join('\n')}\nexport {};\n`;
}

describe('docs/library.md', () => {
  it('its examples type-check against the package', () => {
    const blocks = fencedBlocks(readManual(REPO_ROOT, 'docs/library.md'))
      .filter((b) => b.lang === 'ts')
      .map((b) => b.lines);
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-library-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = path.join(dir, 'example.mts');
    writeFileSync(file, moduleOf(blocks));
    // The project's own tsc (TypeScript 7 has no in-process compiler API), on a config of this test's.
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          types: ['node'],
          typeRoots: [path.join(REPO_ROOT, 'node_modules/@types')],
          paths: { 'capi-render': [path.join(REPO_ROOT, 'dist/index.d.ts')] },
        },
        files: ['example.mts'],
      }),
    );
    const r = spawnSync(
      process.execPath,
      [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'],
      { encoding: 'utf8' },
    );
    const problems = `${r.stdout}${r.stderr}`.split('\n').filter((l) => l.trim() !== '');
    expect(problems).toEqual([]);
  });
});
