/**
 * A new user's first build, where it goes wrong most: no network (a fresh `init` repository must
 * fail fast, once per artifact, and say how to build without GitHub), a CI log without a terminal
 * (progress lines instead of silence), and `init --local-repository` (only versions the repository
 * has, so the first build works offline).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { startFakeGitHub } from '../helpers/fake-github.js';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { makeRepo } from '../helpers/repo.js';
import { skipWithout } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
/** A network namespace with nothing but loopback: no DNS, no route — a machine without network. */
const NO_NETWORK = ['unshare', '--user', '--map-root-user', '--net'];
const isolated = spawnSync(NO_NETWORK[0]!, [...NO_NETWORK.slice(1), 'true']).status === 0;

describe('first run', () => {
  it.skipIf(
    skipWithout(
      isolated ? undefined : 'unshare cannot create a user and network namespace here (util-linux; user namespaces)',
      'the no-network first-run test',
    ),
  )(
    'without network, a fresh init repository fails at once: one error per artifact, no retry, no wait, the ways out',
    () => {
      const repo = tempDir();
      const cache = tempDir();
      const env = { PATH: process.env.PATH, CAPI_RENDER_CACHE_DIR: cache };
      expect(spawnSync(process.execPath, [CLI, 'init'], { cwd: repo, env, encoding: 'utf8' }).status).toBe(0);
      const r = spawnSync(NO_NETWORK[0]!, [...NO_NETWORK.slice(1), process.execPath, CLI, 'build'], {
        cwd: repo,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status, r.stderr).toBe(1);
      // "At once", counted rather than timed: progress prints a line for every retry and for every
      // request still open after 5 s (its default interval), and here there is neither.
      expect(r.stderr).not.toMatch(/^ {2}waiting for /m);
      const errors = r.stderr.split('\n').filter((l) => /error\[/.test(l));
      // core, kubeadm (two providers) and docker all need cluster-api's release list: one error.
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatch(
        /error\[fetch\]: \[dev\] could not reach api\.github\.com \((EAI_AGAIN|ENOTFOUND)\) for GET https:\/\/api\.github\.com\/repos\/kubernetes-sigs\/cluster-api\/releases/,
      );
      expect(errors[0]).toContain(
        'needed by CoreProvider/capi-system/cluster-api, BootstrapProvider/capi-kubeadm-bootstrap-system/kubeadm, ControlPlaneProvider/capi-kubeadm-control-plane-system/kubeadm, InfrastructureProvider/capd-system/docker',
      );
      expect(r.stderr).not.toMatch(/retr(y|ied)/);
      for (const way of ['repositories:', 'init --local-repository', 'capi-render mirror', 'HTTPS_PROXY', '--offline'])
        expect(r.stderr).toContain(way);
    },
  );

  it('init --local-repository pins what the repository has, cert-manager included, and builds offline from it', async () => {
    const repo = tempDir();
    const init = await runCli(['init', '--local-repository', `${FIXTURES}repository`, '--allow-outside'], {
      cwd: repo,
    });
    expect(init.code, init.stderr).toBe(0);
    // Quoted, as init writes every version.
    expect(readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8')).toContain('version: "v1.19.4"');
    for (const file of ['providers/core.yaml', 'providers/kubeadm.yaml', 'providers/docker.yaml'])
      expect(readFileSync(path.join(repo, file), 'utf8')).toMatch(/version: "v1\.12\.0"\n/);
    const build = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain(
      'rendered dev: cert-manager v1.19.4, cluster-api v1.12.0, bootstrap-kubeadm v1.12.0, control-plane-kubeadm v1.12.0, infrastructure-docker v1.12.0',
    );
  });

  it('without a terminal, fetch progress is one plain line per artifact, and a line every few seconds while waiting', async () => {
    const gh = await startFakeGitHub();
    onTestFinished(() => gh.close());
    const repo = makeRepo({
      'capi-render.yaml': `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  version: v1.19.4\ngithub:\n  apiUrl: ${gh.baseUrl}\n`,
      'providers/core.yaml':
        'apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: CoreProvider\nmetadata:\n  name: cluster-api\n  namespace: capi-system\nspec:\n  version: v1.12.0\n',
    });
    // The first answer of the release list is slow, as a rate-limited or distant API is.
    let delayed = false;
    const slowFirst = async (url: string, init: RequestInit) => {
      if (!delayed && url.includes('/releases/tags/')) {
        delayed = true;
        await new Promise((resolve) => setTimeout(resolve, 1300));
      }
      return fetch(url, init);
    };
    const r = await runCli(['build'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: tempDir(), CAPI_RENDER_PROGRESS_INTERVAL: '0.5' },
      fetch: slowFirst,
    });
    expect(r.code, r.stderr).toBe(0);
    const fetched = r.stderr.split('\n').filter((l) => l.startsWith('  fetched '));
    expect(fetched.map((l) => l.replace(/ \(.*$/, ''))).toEqual(
      expect.arrayContaining([
        '  fetched https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/metadata.yaml',
        '  fetched https://github.com/kubernetes-sigs/cluster-api/releases/download/v1.12.0/core-components.yaml',
        '  fetched https://github.com/cert-manager/cert-manager/releases/download/v1.19.4/cert-manager.yaml',
      ]),
    );
    expect(new Set(fetched).size).toBe(fetched.length);
    expect(r.stderr).toMatch(
      / {2}waiting for 127\.0\.0\.1:\d+: http:\/\/127\.0\.0\.1:\d+\/repos\/kubernetes-sigs\/cluster-api\/releases\/tags\/v1\.12\.0 \(\ds\)\n/,
    );
    // No colour codes in a log.
    expect(r.stderr).not.toContain('\u001b[');
  });
});
