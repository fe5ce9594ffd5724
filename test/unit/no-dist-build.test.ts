/**
 * No test builds dist/: `npm test` builds it once before the tests, and a rebuild while they run
 * empties dist/bin/ under the CLI other test files are running (test/helpers/built-dist.ts). This
 * reads every file under test/ for the ways to start a build, in code rather than in prose.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/fixtures.js';

const TEST = path.join(REPO_ROOT, 'test');
const SELF = path.relative(REPO_ROOT, import.meta.filename);

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'fixtures' || e.name === 'node_modules' ? [] : sources(full);
    return /\.(ts|mjs|js)$/.test(e.name) ? [full] : [];
  });
}

/** A build started from code: the scripts that write dist/, `npm run build`, tsc on the build config, or a pack that runs prepack. */
const BUILDS: [what: string, pattern: RegExp][] = [
  ['scripts/ensure-built.mjs', /['"/]ensure-built\.mjs['"]/],
  ['scripts/bundle-cli.mjs', /['"/]bundle-cli\.mjs['"]/],
  ['npm run build', /\[\s*'run',\s*'build'|'npm run build'|`npm run build`\s*[,)]/],
  ['tsc -p tsconfig.json', /'-p',\s*'tsconfig\.json'/],
  ['npm pack without --ignore-scripts', /\[\s*'pack'(?![^\]]*'--ignore-scripts')/],
];

describe('the tests and dist/', () => {
  const files = sources(TEST)
    .map((f) => path.relative(REPO_ROOT, f))
    .filter((f) => f !== SELF);

  it('read every test source (the scan sees the tests that run the CLI)', () => {
    expect(files).toContain('test/integration/doc-transcripts.test.ts');
    expect(files.length).toBeGreaterThan(100);
  });

  it('never start a build of dist/', () => {
    const found = files.flatMap((file) => {
      const lines = readFileSync(path.join(REPO_ROOT, file), 'utf8').split('\n');
      return lines.flatMap((line, i) =>
        /^\s*(\/\/|\*|\/\*)/.test(line)
          ? []
          : BUILDS.filter(([, pattern]) => pattern.test(line)).map(([what]) => `${file}:${i + 1}: ${what}`),
      );
    });
    expect(found).toEqual([]);
  });

  it('would see each way to start a build', () => {
    const samples = [
      "execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/ensure-built.mjs')]);",
      "execFileSync('node', ['scripts/bundle-cli.mjs']);",
      "execFileSync('npm', ['run', 'build', '--silent']);",
      "execFileSync('npx', ['tsc', '-p', 'tsconfig.json']);",
      "execFileSync('npm', ['pack', '--silent']);",
    ];
    expect(samples.map((s) => BUILDS.filter(([, p]) => p.test(s)).map(([what]) => what))).toEqual(
      BUILDS.map(([what]) => [what]),
    );
    expect(BUILDS.some(([, p]) => p.test("execFileSync('npm', ['pack', '--ignore-scripts', '--silent']);"))).toBe(
      false,
    );
  });
});
