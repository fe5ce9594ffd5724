/**
 * `capi-render publish` against a real registry (Debian's docker-registry on 127.0.0.1): push the
 * example's rendered/dev as a Flux artifact, pull it back, unpack it with the system's tar, compare
 * with rendered/dev byte for byte; the digest must not depend on the run, the checkout, TZ or umask.
 */
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { filesUnder } from '../helpers/repo.js';
import { createOciClient } from '../../src/source/oci/oci-client.js';
import { FLUX_CONFIG_MEDIA_TYPE, FLUX_CONTENT_MEDIA_TYPE } from '../../src/publish/flux-artifact.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';
import { consumerSchemaProblems } from '../helpers/consumer-schemas.js';
import { runCli } from '../helpers/cli.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const unavailable = registryUnavailableReason();
const skipRegistry = skipWithout(unavailable, 'the Flux OCI tests');
const REMOTE = 'https://github.com/example/capi-render-example.git';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI in its own process, with a shell only to set the umask first. */
function cli(cwd: string, args: string[], env: Record<string, string>, umask = '022'): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', `umask ${umask} && exec "$0" "$@"`, process.execPath, CLI, ...args], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A committed git checkout of the example on branch main, with an origin remote. */
function checkout(home: string): { repo: string; env: Record<string, string> } {
  const repo = copyExample({ committed: true });
  const env = { ...gitEnv(home), CAPI_RENDER_CACHE_DIR: path.join(home, 'cache') };
  initRepo(repo, env);
  git(repo, env, 'remote', 'add', 'origin', `https://ci-bot:s3cret@${REMOTE.slice('https://'.length)}`);
  return { repo, env };
}

describe.skipIf(skipRegistry)('Flux OCI artifacts through a real registry', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry();
  });
  afterAll(async () => registry?.stop());

  it('publish → pull → unpack equals rendered/dev byte for byte; Flux media types and annotations; the digest is stable across runs, checkouts, TZ and umask', async () => {
    const home = tempDir();
    const { repo, env } = checkout(home);
    const commit = git(repo, env, 'rev-parse', 'HEAD');
    const before = snapshotTree(repo);
    const first = await cli(repo, ['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/dev:v1`], env);
    expect(first.code, first.stderr).toBe(0);
    const digest = first.stdout.trim();
    expect(digest).toMatch(/^sha256:[a-f0-9]{64}$/);
    expect(snapshotTree(repo)).toEqual(before);
    expect(first.stdout + first.stderr).not.toContain('s3cret');

    const client = createOciClient({ registry: registry.host, plainHttp: true });
    const manifest = await client.getManifest('capi/dev', 'v1');
    expect(manifest.digest).toBe(digest);
    const parsed = JSON.parse(Buffer.from(manifest.bytes).toString('utf8'));
    expect(parsed.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
    expect(parsed.config.mediaType).toBe(FLUX_CONFIG_MEDIA_TYPE);
    expect(parsed.layers.map((l: { mediaType: string }) => l.mediaType)).toEqual([FLUX_CONTENT_MEDIA_TYPE]);
    // No created annotation (flux push stamps the current time there) and no credential in the source.
    expect(parsed.annotations).toEqual({
      'org.opencontainers.image.revision': `main@sha1:${commit}`,
      'org.opencontainers.image.source': REMOTE,
    });

    const layer = await client.getBlob('capi/dev', parsed.layers[0].digest, parsed.layers[0].size);
    const unpacked = tempDir();
    writeFileSync(path.join(unpacked, '..', `${path.basename(unpacked)}.tgz`), layer);
    const tar = spawnSync(
      'tar',
      ['-xzf', path.join(unpacked, '..', `${path.basename(unpacked)}.tgz`), '-C', unpacked],
      { encoding: 'utf8' },
    );
    expect(tar.status, tar.stderr).toBe(0);
    expect(filesUnder(unpacked)).toEqual(filesUnder(path.join(repo, 'rendered/dev')));
    // Headers: owner 0/0, epoch mtime, 0644 files and 0755 folders, whatever the checkout had.
    const listing = spawnSync(
      'tar',
      ['--numeric-owner', '--full-time', '-tvzf', path.join(unpacked, '..', `${path.basename(unpacked)}.tgz`)],
      { encoding: 'utf8', env: { TZ: 'UTC', PATH: process.env.PATH } },
    )
      .stdout.trim()
      .split('\n');
    expect(listing[0]).toMatch(/^drwxr-xr-x 0\/0 +0 1970-01-01 00:00:00 \.$/);
    for (const line of listing) expect(line).toMatch(/^(-rw-r--r--|drwxr-xr-x) 0\/0 +\d+ 1970-01-01 00:00:00 /);

    // Again: the same run; another clone with another umask, cache, TZ and file modes.
    const again = await cli(repo, ['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/dev:v1`], env);
    expect(again.stdout.trim()).toBe(digest);
    const other = path.join(tempDir(), 'clone');
    git(home, env, 'clone', '-q', repo, other);
    git(other, env, 'remote', 'set-url', 'origin', REMOTE);
    for (const f of readdirSync(path.join(other, 'rendered/dev/cluster-api')))
      chmodSync(path.join(other, 'rendered/dev/cluster-api', f), 0o600);
    const viaHttp = await cli(
      other,
      ['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/dev:v2`, '--json'],
      { ...env, TZ: 'Pacific/Chatham', CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'cache2') },
      '077',
    );
    expect(viaHttp.code, viaHttp.stderr).toBe(0);
    expect(JSON.parse(viaHttp.stdout)).toMatchObject({ digest, url: `oci://${registry.host}/capi/dev`, tag: 'v2' });
  }, 120_000);

  it('--created commit adds the commit time (a deterministic source); the digest is still stable', async () => {
    const { repo, env } = checkout(tempDir());
    const args = [
      'publish',
      '--env',
      'dev',
      '--oci',
      `http://${registry.host}/capi/dev:created`,
      '--created',
      'commit',
      '--json',
    ];
    const a = JSON.parse((await runCli(args, { cwd: repo, env })).stdout);
    const b = JSON.parse((await cli(repo, args, { ...env, TZ: 'America/St_Johns' })).stdout);
    expect(a.annotations['org.opencontainers.image.created']).toBe('2026-01-01T00:00:00Z');
    expect(b.digest).toBe(a.digest);
  }, 60_000);

  // Through the CLI function in-process (the same exit codes), in one copy of the example without
  // git: --source and --revision are given, as a pipeline outside git would.
  const named = ['--source', REMOTE, '--revision', `main@sha1:${'0'.repeat(40)}`];
  const failures: {
    name: string;
    args: (host: string) => string[];
    prepare?: (repo: string) => () => void;
    code: number;
    message: RegExp;
  }[] = [
    {
      name: 'no --oci',
      args: () => ['publish', '--env', 'dev'],
      code: 2,
      message: /--oci REGISTRY\/REPO:TAG is required/,
    },
    {
      name: 'a reference without a tag',
      args: (h) => ['publish', '--env', 'dev', '--oci', `http://${h}/capi/dev`],
      code: 1,
      message: /error\[publish\].*has no tag/,
    },
    {
      name: 'a bad --created',
      args: (h) => ['publish', '--env', 'dev', '--oci', `http://${h}/capi/dev:x`, '--created', 'yesterday'],
      code: 2,
      message: /--created must be "commit" or an RFC 3339 time/,
    },
    {
      name: 'two environments and no --env',
      args: (h) => ['publish', '--oci', `http://${h}/capi/dev:x`, ...named],
      code: 2,
      message: /choose one environment with --env \(dev, prod\)/,
    },
    {
      name: 'rendered/dev edited by hand (the artifact would not be the committed output)',
      args: (h) => ['publish', '--env', 'dev', '--oci', `http://${h}/capi/dev:x`, ...named],
      prepare: (repo) => {
        const file = path.join(repo, 'rendered/dev/kustomization.yaml');
        const text = readFileSync(file, 'utf8');
        writeFileSync(file, 'resources: []\n');
        return () => writeFileSync(file, text);
      },
      code: 1,
      message: /rendered\/dev\/kustomization\.yaml: error\[drift\]/,
    },
    {
      name: 'a registry that does not answer',
      args: () => ['publish', '--env', 'dev', '--oci', 'http://127.0.0.1:9/capi/dev:x', ...named],
      code: 1,
      message: /error\[fetch\]/,
    },
  ];
  it('the error cases: the right exit code and message, nothing on stdout', async () => {
    const repo = copyExample({ committed: true });
    const env = { CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'cache'), GIT_CEILING_DIRECTORIES: path.dirname(repo) };
    for (const { name, args, prepare, code, message } of failures) {
      const restore = prepare?.(repo);
      const r = await runCli(args(registry.host), { cwd: repo, env });
      restore?.();
      expect(r.code, name).toBe(code);
      expect(r.stderr, name).toMatch(message);
      expect(r.stdout, name).toBe('');
    }
  }, 60_000);

  it('uncommitted output is refused unless --revision names it; outside git --source and --revision are needed', async () => {
    const { repo, env } = checkout(tempDir());
    writeFileSync(path.join(repo, 'rendered/dev/extra.txt'), 'x');
    const dirty = await runCli(['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/dev:x`], {
      cwd: repo,
      env,
    });
    expect(dirty.code).toBe(1);
    expect(dirty.stderr).toMatch(/error\[(publish|drift)\]/);
    const plain = copyExample({ committed: true });
    const outside = {
      PATH: process.env.PATH ?? '',
      CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'c'),
      GIT_CEILING_DIRECTORIES: path.dirname(plain),
    };
    const noGit = await runCli(['publish', '--env', 'dev', '--oci', `http://${registry.host}/capi/dev:x`], {
      cwd: plain,
      env: outside,
    });
    expect(noGit.code).toBe(2);
    expect(noGit.stderr).toMatch(/--source is required/);
    const named = await runCli(
      [
        'publish',
        '--env',
        'dev',
        '--oci',
        `http://${registry.host}/capi/dev:x`,
        '--source',
        REMOTE,
        '--revision',
        'v1.0.0@sha1:0000000000000000000000000000000000000000',
      ],
      { cwd: plain, env: outside },
    );
    expect(named.code, named.stderr).toBe(0);
  }, 60_000);
});

describe('the flux flavour from an OCI artifact', () => {
  it('writes a schema-valid OCIRepository pinned by digest and Kustomizations reading the artifact root; kubectl kustomize builds the folder', async () => {
    const repo = copyExample({ committed: true });
    const digest = `sha256:${'ab'.repeat(32)}`;
    const config = readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace(
      /  flux:\n    sourceRef:\n      kind: GitRepository\n      name: capi-render-example\n      namespace: flux-system\n/,
      `  flux:\n    oci:\n      repository: registry.example.com/capi-render\n    kubeConfig:\n      secretRef:\n        name: mgmt-dev-kubeconfig\n`,
    );
    writeFileSync(path.join(repo, 'capi-render.yaml'), config);
    writeFileSync(
      path.join(repo, 'overlays/dev/overlay.yaml'),
      `${readFileSync(path.join(repo, 'overlays/dev/overlay.yaml'), 'utf8')}gitops:\n  flux:\n    oci:\n      digest: ${digest}\n`,
    );
    const built = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'cache') } });
    expect(built.code, built.stderr).toBe(0);
    const folder = path.join(repo, 'gitops/flux/dev');
    expect(readdirSync(folder).sort()).toEqual([
      'flux-kustomizations.yaml',
      'kustomization.yaml',
      'oci-repository.yaml',
    ]);
    const out = spawnSync('kubectl', ['kustomize', folder], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const objects = jsYaml.loadAll(out.stdout) as any[];
    for (const o of objects) expect(consumerSchemaProblems(o), `${o.kind}/${o.metadata.name}`).toEqual([]);
    const source = objects.find((o) => o.kind === 'OCIRepository');
    expect(source).toMatchObject({
      apiVersion: 'source.toolkit.fluxcd.io/v1',
      metadata: { name: 'capi-dev', namespace: 'flux-system' },
      spec: { url: 'oci://registry.example.com/capi-render/dev', ref: { digest } },
    });
    const kustomizations = objects.filter((o) => o.kind === 'Kustomization');
    expect(kustomizations.map((k) => k.spec.path).sort()).toEqual([
      './bootstrap-kubeadm',
      './cert-manager',
      './cluster-api',
      './control-plane-kubeadm',
      './infrastructure-docker',
    ]);
    for (const k of kustomizations) {
      expect(k.spec.sourceRef).toEqual({ kind: 'OCIRepository', name: 'capi-dev' });
      // The CRD's CEL rule: exactly one of kubeConfig.configMapRef and kubeConfig.secretRef.
      expect(k.spec.kubeConfig).toEqual({ secretRef: { name: 'mgmt-dev-kubeconfig' } });
    }
    // prod stays Argo CD and is untouched by the Flux settings.
    expect(readdirSync(path.join(repo, 'gitops/flux'))).toEqual(['dev']);
  }, 60_000);
});
