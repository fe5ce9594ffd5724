/**
 * A configured local repository is named in the lock by kind and label (`local:<label>`): moving it
 * changes no pin, the file found where capi-render.yaml says is still checked against the lock, and a
 * lock that named it by path (an older capi-render) keeps its pins and is rewritten by the next build.
 * Through the CLI on a copy of the committed example.
 */
import { appendFileSync, readFileSync, renameSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { copyExample } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';

const LOCK = 'capi-render.lock';
const read = (repo: string, file: string) => readFileSync(path.join(repo, file), 'utf8');

function moveMirror(repo: string, to: string): void {
  mkdirSync(path.dirname(path.join(repo, to)), { recursive: true });
  renameSync(path.join(repo, 'test/fixtures/repository'), path.join(repo, to));
  const config = read(repo, 'capi-render.yaml');
  writeFileSync(
    path.join(repo, 'capi-render.yaml'),
    config.replace('  - path: test/fixtures/repository\n', `  - path: ${to}\n`),
  );
}

describe('a configured local repository in the lock', () => {
  it('records no path: moving the mirror changes no lock line (pins, the digest of capi-render.yaml, inputs hashes), and check passes', async () => {
    const repo = copyExample({ committed: true });
    const before = read(repo, LOCK);
    expect(before).toMatch(/^ {4}source: local:cluster-api$/m);
    expect(before).toMatch(/^ {2}url: cluster-api\/v1\.12\.0\/core-components\.yaml$/m);
    expect(before).not.toContain('test/fixtures');
    moveMirror(repo, 'vendor/capi-releases');
    const build = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(build.code, build.stderr).toBe(0);
    expect(read(repo, LOCK)).toBe(before);
    const check = await runCli(['check'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(check.code, check.stderr).toBe(0);
  });

  it('the same in any YAML form capi-render.yaml writes its repositories in (a flow sequence here)', async () => {
    const repo = copyExample({ committed: true });
    const env = { CAPI_RENDER_CACHE_DIR: tempDir() };
    const config = read(repo, 'capi-render.yaml');
    writeFileSync(
      path.join(repo, 'capi-render.yaml'),
      config.replace(
        'repositories:\n  - path: test/fixtures/repository\n',
        'repositories: [{path: test/fixtures/repository}]\n',
      ),
    );
    expect((await runCli(['build'], { cwd: repo, env })).code).toBe(0);
    const before = read(repo, LOCK);
    mkdirSync(path.join(repo, 'vendor'), { recursive: true });
    renameSync(path.join(repo, 'test/fixtures/repository'), path.join(repo, 'vendor/flow'));
    writeFileSync(
      path.join(repo, 'capi-render.yaml'),
      read(repo, 'capi-render.yaml').replace('[{path: test/fixtures/repository}]', '[{path: vendor/flow}]'),
    );
    const build = await runCli(['build'], { cwd: repo, env });
    expect(build.code, build.stderr).toBe(0);
    expect(read(repo, LOCK)).toBe(before);
  });

  it('still checks the file found at the configured location against the locked sha256', async () => {
    const repo = copyExample({ committed: true });
    moveMirror(repo, 'mirror');
    appendFileSync(path.join(repo, 'mirror/cluster-api/v1.12.0/metadata.yaml'), '# edited\n');
    const build = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(build.code).toBe(1);
    expect(build.stderr).toContain(
      'error[digest-mismatch]: [dev] metadata.yaml of local repository mirror/cluster-api v1.12.0 has sha256',
    );
  });

  it('reads a lock that named it by path (older capi-render): check names each field, build keeps the pins', async () => {
    const repo = copyExample({ committed: true });
    const current = read(repo, LOCK);
    const old = current
      .replace(
        /^( {4}source|- version: .*\n {2}source|\s{2}source): local:([\w-]+)$/gm,
        '$1: local:test/fixtures/repository/$2',
      )
      .replace(/^ {2}url: ([\w-]+\/)/gm, '  url: test/fixtures/repository/$1');
    expect(old).toContain('    source: local:test/fixtures/repository/cluster-api\n');
    expect(old).toContain('  url: test/fixtures/repository/cluster-api/v1.12.0/core-components.yaml\n');
    writeFileSync(path.join(repo, LOCK), old);
    const check = await runCli(['check'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(check.code).toBe(1);
    expect(check.stderr).toContain(
      'warning[lock]: capi-render.lock names local repositories by their path (local:test/fixtures/repository/bootstrap-kubeadm, local:test/fixtures/repository/cert-manager and 3 more, written by an older capi-render)',
    );
    expect(check.stderr).toContain(
      'dev: CoreProvider/capi-system/cluster-api source local:test/fixtures/repository/cluster-api → local:cluster-api (a configured local repository is recorded without its path)',
    );
    const build = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain('rendered: 0 written');
    expect(read(repo, LOCK)).toBe(current);
  });
});
