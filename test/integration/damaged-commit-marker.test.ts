/**
 * A damaged commit marker (`.capi-render-write/commit.json`: a hand edit, a truncated file, a FIFO
 * or a link to /dev/zero in its place, neither waited on nor read) stops
 * `build` (every command that would finish the interrupted write) with one located error and a hint, exit 1,
 * no stack trace, nothing changed; and following the hint gets the repository back to a clean build.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';

const MARKER = '.capi-render-write/commit.json';

describe('a damaged commit marker', () => {
  it.each<[string, string | ((file: string) => void), RegExp]>([
    ['truncated', '{"version":1,"stages":["/tmp/stage-0', /Unterminated string in JSON|Unexpected end of JSON input/],
    ['empty', '', /Unexpected end of JSON input/],
    ['edited into another shape', '{"version":1,"stages":"all"}', /not the record capi-render writes/],
    [
      'a stage that is not an absolute path',
      '{"version":1,"stages":["stage-0"],"files":[]}',
      /not the record capi-render writes/,
    ],
    [
      'a FIFO',
      (file) => void execFileSync('mkfifo', [file]),
      /\.capi-render-write\/commit\.json is a FIFO \(named pipe\)/,
    ],
    [
      'a link to /dev/zero',
      (file) => symlinkSync('/dev/zero', file),
      /\.capi-render-write\/commit\.json is a symbolic link \(to \/dev\/zero\)/,
    ],
  ])(
    '%s: build refuses in one line naming the file and the fix (check sends the user to build); the hint works',
    async (_name, text, reason) => {
      const repo = makeRepo({ 'providers/core.yaml': CORE('v1.12.0') });
      const build = () =>
        runCli(['build', '--repo', repo], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: path.join(repo, '.cache') } });
      const first = await build();
      expect(first.code, first.stderr).toBe(0);
      const built = snapshotTree(path.join(repo, 'rendered'));
      mkdirSync(path.join(repo, '.capi-render-write'), { recursive: true });
      if (typeof text === 'string') writeFileSync(path.join(repo, MARKER), text);
      else text(path.join(repo, MARKER));

      // A read-only command sends the user to build, which is where the marker is read.
      const check = await runCli(['check', '--repo', repo], {
        cwd: repo,
        env: { CAPI_RENDER_CACHE_DIR: path.join(repo, '.cache') },
      });
      expect(check.code).toBe(1);
      expect(check.stderr).toMatch(
        /^\.capi-render-write\/: error\[write\]: an interrupted build left its output half-installed\n {2}hint: run `capi-render build`/,
      );
      for (const command of ['build', 'build --force']) {
        const result = await runCli([...command.split(' '), '--repo', repo], {
          cwd: repo,
          env: { CAPI_RENDER_CACHE_DIR: path.join(repo, '.cache') },
        });
        expect(result.code, `${command}: ${result.stderr}`).toBe(1);
        const [line, hint, ...rest] = result.stderr.trimEnd().split('\n');
        expect(line).toMatch(
          /^\.capi-render-write\/commit\.json: error\[write\]: the record of an interrupted write is damaged \(.+\), so capi-render cannot finish that write: the output and capi-render\.lock may be partly new$/,
        );
        expect(line).toMatch(reason);
        expect(hint).toBe(
          '  hint: look at what is in place (git status), then remove the folder .capi-render-write and run capi-render build --force, which renders every environment and rewrites any file left half-way',
        );
        expect(rest, `${command}: nothing more, no stack trace`).toEqual([]);
        expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(built);
      }

      // The hint, followed: a half-installed file is rewritten by the forced build.
      writeFileSync(
        path.join(
          repo,
          'rendered',
          Object.keys(built).find((f) => f.endsWith('.yaml'))!,
        ),
        'half-way\n',
      );
      rmSync(path.join(repo, '.capi-render-write'), { recursive: true });
      const forced = await runCli(['build', '--force', '--repo', repo], {
        cwd: repo,
        env: { CAPI_RENDER_CACHE_DIR: path.join(repo, '.cache') },
      });
      expect(forced.code, forced.stderr).toBe(0);
      expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(built);
    },
  );
});
