/**
 * The layout of src/ keeps to docs/architecture.md: no import circle between files, no cycle between
 * top-level folders, no folder importing a higher layer, every folder placed. The checker is proven
 * on small synthetic graphs first (each rule fails, naming what breaks it), then run on the real tree.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { checkArchitecture, parseLayers, unitOf, type Layer } from '../helpers/architecture-check.js';
import { importGraph, scanImports, type ImportGraph } from '../helpers/import-scan.js';

const SRC = path.join(REPO_ROOT, 'src');

/** A graph from `file -> a.ts b.ts` pairs (specifiers written as the file names). */
function graphOf(imports: Record<string, string[]>): ImportGraph {
  const g: ImportGraph = new Map();
  for (const [file, tos] of Object.entries(imports)) {
    g.set(
      file,
      tos.map((to, i) => ({ to, specifier: `./${to}`, line: i + 1 })),
    );
    for (const to of tos) if (!g.has(to) && !(to in imports)) g.set(to, []);
  }
  return g;
}

const LAYERS: Layer[] = [
  { name: 'top', units: ['cli'] },
  { name: 'middle', units: ['render', 'output'] },
  { name: 'bottom', units: ['*.ts', 'manifest'] },
];
const FOLDERS = ['cli', 'render', 'output', '*.ts', 'manifest'];

describe('scanImports', () => {
  it.each([
    ['import from', `import { a } from './a.js';`, ['./a.js']],
    ['import type', `import type { A } from '../a/b.js';`, ['../a/b.js']],
    ['inline type specifier', `import { x, type Y } from "./x.js";`, ['./x.js']],
    ['default and namespace', `import d, * as ns from './d.js';`, ['./d.js']],
    ['multi-line clause', `import {\n  a,\n  b,\n} from './m.js';`, ['./m.js']],
    [
      'export from',
      `export { a } from './a.js';\nexport type { B } from './b.js';\nexport * from './c.js';\nexport * as d from './d.js';`,
      ['./a.js', './b.js', './c.js', './d.js'],
    ],
    ['export type star', `export type * from './t.js';`, ['./t.js']],
    ['dynamic import', `const m = await import('./lazy.js');`, ['./lazy.js']],
    ['typeof import', `type M = typeof import('./t.js');`, ['./t.js']],
    ['side-effect import', `import './setup.js';`, ['./setup.js']],
    ['package import', `import semver from 'semver';`, ['semver']],
    ['not in a line comment', `// import { a } from './a.js';\nexport const x = 1;`, []],
    ['not in a block comment', `/** import('./doc.js') and \`import x from './y.js'\` */\nexport {};`, []],
    ['not in a string', `const s = "import { a } from './a.js'";`, []],
    ['not in a template', "const s = `import('./a.js') ${1 + 2} from './b.js'`;", []],
    ['not import.meta', `const u = new URL('./x.js', import.meta.url);`, []],
    ['a regex with a quote is no string', `const re = /['"]/g;\nimport { a } from './a.js';`, ['./a.js']],
    ['export of a declaration', `export const from = 'x';\nexport function f() {}`, []],
  ])('%s', (_name, text, expected) => {
    expect(scanImports(text).map((i) => i.specifier)).toEqual(expected);
  });

  it('reports the line of each import', () => {
    expect(scanImports(`/**\n * doc\n */\nimport a from './a.js';\n\nconst b = import('./b.js');`)).toEqual([
      { specifier: './a.js', line: 4 },
      { specifier: './b.js', line: 6 },
    ]);
  });
});

describe('checkArchitecture on synthetic graphs', () => {
  it('passes a graph that keeps every rule', () => {
    const g = graphOf({
      'cli/run.ts': ['render/render.ts', 'output/write.ts'],
      'render/render.ts': ['manifest/object.ts', 'errors.ts'],
      'output/write.ts': ['errors.ts'],
    });
    expect(checkArchitecture(g, LAYERS, FOLDERS)).toEqual([]);
  });

  it('fails on a file circle, naming its files in import order', () => {
    const g = graphOf({
      'render/a.ts': ['render/b.ts'],
      'render/b.ts': ['render/c.ts'],
      'render/c.ts': ['render/a.ts'],
    });
    const problems = checkArchitecture(g, LAYERS, FOLDERS);
    expect(problems.map((p) => p.rule)).toEqual(['file-circle']);
    expect(problems[0]!.message).toBe(
      'import circle between files: src/render/a.ts → src/render/b.ts → src/render/c.ts → src/render/a.ts',
    );
  });

  it('names the other files of a knot larger than its shortest circle', () => {
    const g = graphOf({
      'render/a.ts': ['render/b.ts'],
      'render/b.ts': ['render/a.ts', 'render/c.ts'],
      'render/c.ts': ['render/a.ts'],
    });
    expect(checkArchitecture(g, LAYERS, FOLDERS).map((p) => p.message)).toEqual([
      'import circle between files: src/render/a.ts → src/render/b.ts → src/render/a.ts (one circle of a knot of 3 files: src/render/a.ts, src/render/b.ts, src/render/c.ts)',
    ]);
  });

  it('fails on a file importing itself', () => {
    const problems = checkArchitecture(graphOf({ 'render/a.ts': ['render/a.ts'] }), LAYERS, FOLDERS);
    expect(problems.map((p) => p.message)).toEqual(['import circle between files: src/render/a.ts → src/render/a.ts']);
  });

  it('fails on a folder cycle without a file circle, naming an import of each step', () => {
    // render and output share a row, so no upward import: only the cycle breaks a rule.
    const g = graphOf({ 'render/a.ts': ['output/b.ts'], 'output/c.ts': ['render/d.ts'] });
    const problems = checkArchitecture(g, LAYERS, FOLDERS);
    expect(problems.map((p) => p.rule)).toEqual(['folder-cycle']);
    expect(problems[0]!.message).toBe(
      "import cycle between folders output → render → output: output → render (src/output/c.ts:1 imports './render/d.ts'); render → output (src/render/a.ts:1 imports './output/b.ts')",
    );
  });

  it('fails on an import of a higher layer, naming the importing file and the import', () => {
    const g = graphOf({ 'manifest/object.ts': ['errors.ts', 'render/render.ts'] });
    const problems = checkArchitecture(g, LAYERS, FOLDERS);
    expect(problems).toEqual([
      {
        rule: 'upward-import',
        message: `src/manifest/object.ts:2 imports './render/render.ts': manifest (layer "bottom") may not import render (layer "middle", above it)`,
      },
    ]);
  });

  it('fails on a folder of src/ missing from the picture, and on a name the picture has but src/ lacks', () => {
    const problems = checkArchitecture(graphOf({ 'cli/run.ts': [] }), LAYERS, [
      ...FOLDERS.filter((f) => f !== 'manifest'),
      'sbom',
    ]);
    expect(problems.map((p) => p.rule).sort()).toEqual(['unknown-folder', 'unplaced-folder']);
    expect(problems.find((p) => p.rule === 'unplaced-folder')!.message).toMatch(/^src\/sbom is in no layer/);
    expect(problems.find((p) => p.rule === 'unknown-folder')!.message).toMatch(
      /places manifest, which is not in src\//,
    );
  });

  it('parses the picture: rows top first, units split on spaces, notes ignored', () => {
    const md =
      'text\n\n```layers\nentry | index.ts  cli\n   ↑ notes without a bar are ignored\nbase  | *.ts cache\n```\n\n```layers\nsecond | x\n```';
    expect(parseLayers(md)).toEqual([
      { name: 'entry', units: ['index.ts', 'cli'] },
      { name: 'base', units: ['*.ts', 'cache'] },
    ]);
    expect(() => parseLayers('no picture')).toThrow(/no ```layers block/);
  });

  it('puts files directly in src/ into *.ts, except index.ts', () => {
    expect([
      unitOf('render/render.ts'),
      unitOf('source/github/github-client.ts'),
      unitOf('errors.ts'),
      unitOf('index.ts'),
    ]).toEqual(['render', 'source', '*.ts', 'index.ts']);
  });
});

describe('src/ against docs/architecture.md', () => {
  const graph = importGraph(SRC);
  const entries = readdirSync(SRC);
  const folders = [
    ...entries.filter((n) => statSync(path.join(SRC, n)).isDirectory()),
    ...(entries.some((n) => n.endsWith('.ts') && n !== 'index.ts') ? ['*.ts'] : []),
    ...(entries.includes('index.ts') ? ['index.ts'] : []),
  ];

  it('reads the real imports (a known type-only and a dynamic import are edges)', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('render/render-options.ts')!.map((e) => e.to)).toContain('plan/output-plan.ts');
    expect(graph.get('cli/run.ts')!.map((e) => e.to)).toContain('cli/commands/build.ts');
  });

  it('has no circle, no cycle, no upward import and no unplaced folder', () => {
    const layers = parseLayers(readFileSync(path.join(REPO_ROOT, 'docs/architecture.md'), 'utf8'));
    expect(checkArchitecture(graph, layers, folders).map((p) => p.message)).toEqual([]);
  });

  it('keeps render (plans) and output (applies them) apart: they meet only in build/', () => {
    const across = [...graph].flatMap(([file, edges]) =>
      edges
        .filter((e) => [unitOf(file), unitOf(e.to)].sort().join(' ') === 'output render')
        .map((e) => `src/${file}:${e.line} imports '${e.specifier}'`),
    );
    expect(across).toEqual([]);
  });

  it('gives every top-level folder of src/ a README.md', () => {
    const missing = folders
      .filter((f) => !f.endsWith('.ts'))
      .filter((f) => {
        try {
          return !statSync(path.join(SRC, f, 'README.md')).isFile();
        } catch {
          return true;
        }
      });
    expect(missing).toEqual([]);
  });
});
