/**
 * `capi-render report` end to end on this repository's example: the golden page (byte for byte,
 * run after run), and `--out` treated like every other write into a place the user names —
 * dangerous targets refused before anything is written, atomic replacement of its own earlier
 * report, and file-system failures as one error[write] line. The page in a browser:
 * test/browser/report.browser.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { goldenText } from '../helpers/golden.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';
import { dropPrivilegesMissing, IS_ROOT, skipWithout } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';

const GOLDEN = fileURLToPath(new URL('../golden/report/example.html', import.meta.url));
const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const isRoot = IS_ROOT;

const report = (repo: string, ...argv: string[]) =>
  runCli(['report', '--offline', ...argv], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });

describe('capi-render report: the example', () => {
  it('is the golden page, byte for byte, on every run and through --out', async () => {
    const repo = copyExample({ committed: true });
    const first = await report(repo);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).toBe(
      '2 environments (Argo CD: prod; Flux: dev); 3 providers can move within their contract (prod); none to a next contract\n',
    );
    expect(first.stdout).toBe(
      goldenText(GOLDEN, first.stdout, {
        flag: 'UPDATE_GOLDEN',
        command: 'UPDATE_GOLDEN=1 npx vitest run test/integration/report.test.ts',
      }),
    );
    const out = path.join(tempDir(), 'capi-render-report.html');
    const second = await report(repo, '--out', out);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('');
    expect(readFileSync(out, 'utf8')).toBe(first.stdout);
    // --json: the same data the template saw.
    const json = await report(repo, '--json');
    expect(JSON.parse(json.stdout)).toMatchObject({
      summary: first.stderr.trim(),
      review: null,
      matrix: { columns: [{ environment: 'prod' }, { environment: 'dev' }] },
    });
    // Nothing of the host leaks into the page: no absolute path, no time.
    expect(first.stdout).not.toContain(repo);
    expect(first.stdout).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d/);
  });
});

describe('capi-render report --out', () => {
  const cases: { name: string; setup: (repo: string) => string; message: RegExp }[] = [
    {
      name: 'a folder',
      setup: (repo) => (mkdirSync(path.join(repo, 'reports')), 'reports'),
      message: /--out reports is a folder; name a file in it, e\.g\. --out reports\/capi-render-report\.html/,
    },
    {
      name: 'a symbolic link to a file elsewhere',
      setup: (repo) => {
        const elsewhere = path.join(tempDir(), 'victim.html');
        writeFileSync(elsewhere, 'precious');
        symlinkSync(elsewhere, path.join(repo, 'report.html'));
        return 'report.html';
      },
      message:
        /--out report\.html is a symbolic link \(to .*victim\.html\): capi-render does not write through links; name the file itself/,
    },
    {
      name: 'inside .git',
      setup: (repo) => (mkdirSync(path.join(repo, '.git')), '.git/report.html'),
      message: /--out \.git\/report\.html is inside a \.git folder/,
    },
    {
      name: 'an input file',
      setup: () => 'capi-render.yaml',
      message:
        /--out capi-render\.yaml exists and is not a report capi-render wrote|--out capi-render\.yaml is the capi-render\.yaml input/,
    },
    {
      name: 'inside an input folder',
      setup: () => 'overlays/prod/report.html',
      message: /--out overlays\/prod\/report\.html is inside the overlaysDir input \(overlays\)/,
    },
    {
      name: 'inside the output folder',
      setup: () => 'rendered/prod/report.html',
      message: /--out rendered\/prod\/report\.html is inside the outputDir output folder rendered/,
    },
    {
      name: 'inside the GitOps folder',
      setup: () => 'gitops/report.html',
      message: /--out gitops\/report\.html is inside the gitopsDir output folder gitops/,
    },
    {
      name: 'a file capi-render did not write',
      setup: (repo) => (writeFileSync(path.join(repo, 'NOTES.html'), '<p>my notes</p>'), 'NOTES.html'),
      message:
        /--out NOTES\.html exists and is not a report capi-render wrote; remove it first if it may be replaced, or name another file/,
    },
  ];
  it.each(cases)('refuses $name (exit 2), writing nothing', async ({ setup, message }) => {
    const repo = copyExample({ committed: true });
    const target = setup(repo);
    const before = snapshotTree(repo);
    const r = await report(repo, '--out', path.join(repo, target));
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(snapshotTree(repo)).toEqual(before);
  });

  it('replaces its own earlier report or an empty file, atomically, leaving no temporary file', async () => {
    const repo = copyExample({ committed: true });
    const dir = tempDir();
    const out = path.join(dir, 'report.html');
    writeFileSync(out, '');
    expect((await report(repo, '--out', out)).code).toBe(0);
    const page = readFileSync(out, 'utf8');
    writeFileSync(out, page.replace('Cluster API fleet report', 'stale'));
    const again = await report(repo, '--out', out);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^wrote .*report\.html \(\d+ KiB\)\n/);
    expect(readFileSync(out, 'utf8')).toBe(page);
    expect(readdirSync(dir)).toEqual(['report.html']);
  });

  it('a folder that does not exist is error[write] with the path and the reason', async () => {
    const repo = copyExample({ committed: true });
    const out = path.join(tempDir(), 'missing', 'report.html');
    const r = await report(repo, '--out', out);
    expect(r.code).toBe(1);
    expect(r.stderr.split('\n')[0]).toBe(
      `${out}: error[write]: cannot write ${out}: the folder does not exist (ENOENT)`,
    );
  });

  // As root it runs as nobody (root may write anywhere); as another user the folder is made read-only.
  it.skipIf(skipWithout(isRoot ? dropPrivilegesMissing() : undefined, 'the report EACCES test'))(
    'a folder the user may not write in is error[write] with the path and EACCES',
    () => {
      const repo = copyExample({ committed: true });
      const dir = tempDir();
      chmodSync(dir, 0o755);
      chmodSync(repo, 0o755);
      const out = path.join(dir, 'report.html');
      // As root, run as nobody (root may write anywhere); otherwise make the folder read-only.
      if (!isRoot) chmodSync(dir, 0o555);
      const argv = [CLI, 'report', '--offline', '--repo', repo, '--out', out];
      const cache = tempDir();
      chmodSync(cache, 0o777);
      const env = { PATH: process.env.PATH, CAPI_RENDER_CACHE_DIR: cache };
      const r = isRoot
        ? spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...argv], {
            encoding: 'utf8',
            env,
          })
        : spawnSync(process.execPath, argv, { encoding: 'utf8', env });
      if (!isRoot) chmodSync(dir, 0o755);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr.split('\n')[0]).toBe(`${out}: error[write]: cannot write ${out}: permission denied (EACCES)`);
      expect(readdirSync(dir)).toEqual([]);
    },
  );
});

describe('capi-render report --base', () => {
  it('an unknown revision is error[git], exit 1', async () => {
    const repo = copyExample({ committed: true });
    const env = gitEnv(tempDir());
    initRepo(repo, env);
    const r = await runCli(['report', '--offline', '--base', 'no-such-branch'], {
      cwd: repo,
      env: { ...env, CAPI_RENDER_CACHE_DIR: tempDir() },
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('error[git]: no-such-branch is not a commit of this repository');
    expect(git(repo, env, 'status', '--porcelain')).toBe('');
  });
});
