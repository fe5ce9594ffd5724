/**
 * capi-render as an Argo CD Config Management Plugin, run the way argocd-repo-server's cmp-server
 * runs it (ACD cmpserver/plugin/plugin.go, DELIVERY-REFERENCE §1.4): the argv of plugin.yaml's
 * `generate` (no shell), working directory = the Application's source path inside a fresh copy of
 * the repository under `_cmp_server/<random>` (no .git, modes reset to 0644/0755), the sidecar's
 * environment plus ARGOCD_APP_* / ARGOCD_ENV_* / KUBE_*, no TTY, stdout taken as the manifests and
 * any non-zero exit as a failed generation.
 */
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { REPO_ROOT, FIXTURES } from '../helpers/fixtures.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import { runCli } from '../helpers/cli.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const PLUGIN = jsYaml.load(readFileSync(path.join(REPO_ROOT, 'deploy/argocd-cmp/plugin.yaml'), 'utf8')) as {
  kind: string;
  metadata: { name: string };
  spec: { version?: string; discover: { fileName: string }; generate: { command: string[]; args: string[] } };
};

/** The stream rendered/<env> stands for: files in the order its kustomization.yaml files list them. */
function streamOfFolder(folder: string): string {
  const list = (dir: string) => (jsYaml.load(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] }).resources;
  const docs: string[] = [];
  for (const component of list(folder)) for (const file of list(path.join(folder, component))) docs.push(readFileSync(path.join(folder, component, file), 'utf8'));
  return docs.join('---\n');
}

/** A repo-server style copy of the example: `_cmp_server/<random>/`, no .git, modes reset as without preserveFileMode. */
function cmpWorkDir(): string {
  const source = copyExample({ committed: true });
  const work = path.join(source, '_cmp_server', `${Math.floor(Math.random() * 1e9)}`);
  mkdirSync(work, { recursive: true });
  for (const entry of readdirSync(source)) if (entry !== '_cmp_server') renameSync(path.join(source, entry), path.join(work, entry));
  const reset = (p: string) => {
    const s = statSync(p);
    chmodSync(p, s.isDirectory() ? 0o755 : 0o644);
    if (s.isDirectory()) for (const e of readdirSync(p)) reset(path.join(p, e));
  };
  reset(work);
  return work;
}

interface Generated {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs plugin.yaml's generate argv (capi-render → this build of the CLI) like the cmp-server. */
function generate(appPath: string, env: Record<string, string>, extraArgs: string[] = []): Promise<Generated> {
  const [command, ...rest] = PLUGIN.spec.generate.command;
  expect(command).toBe('capi-render');
  const argv = [CLI, ...rest, ...PLUGIN.spec.generate.args, ...extraArgs];
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argv, { cwd: appPath, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: Date.now() - started }));
  });
}

const EMPTY_OVERLAY = 'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: []\n';
const REVISION = '4a46692e1f0b6a3b9b0f2c7f1d4e5a6b7c8d9e0f';
/** The variables the repo-server sets for manifest generation (reposerver/repository.go newEnv), and the sidecar's own. */
function repoServerEnv(work: string, cache: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: path.join(work, '..', 'home'),
    CAPI_RENDER_CACHE_DIR: cache,
    ARGOCD_APP_NAME: 'capi-prod',
    // The destination namespace, not the Application's own (trap): never read by the plugin.
    ARGOCD_APP_NAMESPACE: 'capi-system',
    ARGOCD_APP_PROJECT_NAME: 'platform',
    ARGOCD_APP_REVISION: REVISION,
    ARGOCD_APP_REVISION_SHORT: REVISION.slice(0, 7),
    ARGOCD_APP_REVISION_SHORT_8: REVISION.slice(0, 8),
    ARGOCD_APP_SOURCE_PATH: '.',
    ARGOCD_APP_SOURCE_REPO_URL: 'https://github.com/example/capi-render-example.git',
    ARGOCD_APP_SOURCE_TARGET_REVISION: 'main',
    ARGOCD_APP_PARAMETERS: '[]',
    KUBE_VERSION: '1.31.2',
    KUBE_API_VERSIONS: 'admissionregistration.k8s.io/v1,apps/v1,apps/v1/Deployment,v1,v1/Namespace',
    ARGOCD_ENV_CAPI_ENV: 'prod',
    ...extra,
  };
}

describe('build --stdout is exactly what rendered/<env> holds', () => {
  it.each(['dev', 'prod'])('%s: same objects, same order, same bytes per object', async (env) => {
    const repo = copyExample({ committed: true });
    const r = await runCli(['build', '--env', env, '--stdout'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'cache') } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(streamOfFolder(path.join(repo, 'rendered', env)));
  });
});

describe('the plugin run as argocd-repo-server runs it', () => {
  // tempDir() cleans up after the test that made it, so each test sets up its own copy.
  const setup = () => ({ work: cmpWorkDir(), cache: path.join(tempDir(), 'cache') });

  it('plugin.yaml is a ConfigManagementPlugin the Applications name correctly and that claims capi-render.yaml', () => {
    expect(PLUGIN.kind).toBe('ConfigManagementPlugin');
    // With spec.version the Application would have to say <name>-<version> (trap 3).
    expect(PLUGIN.spec.version).toBeUndefined();
    expect(PLUGIN.metadata.name).toBe('capi-render');
    expect(PLUGIN.spec.discover.fileName).toBe('capi-render.yaml');
    expect(PLUGIN.spec.generate.command.length).toBeGreaterThan(0);
  });

  it('prints exactly rendered/<env>, writes nothing into the checkout, and is fast (cold and warm cache)', async () => {
    const { work, cache } = setup();
    const before = snapshotTree(work);
    const cold = await generate(work, repoServerEnv(work, cache));
    expect(cold.code, cold.stderr).toBe(0);
    expect(cold.stdout).toBe(streamOfFolder(path.join(work, 'rendered/prod')));
    const warm = await generate(work, repoServerEnv(work, cache));
    expect(warm.stdout).toBe(cold.stdout);
    expect(snapshotTree(work)).toEqual(before);
    // Argo CD kills generate at the repo-server RPC deadline (60 s by default).
    console.info(`plugin generate of prod: ${cold.ms} ms cold, ${warm.ms} ms warm, ${cold.stdout.length} bytes`);
    expect(Math.max(cold.ms, warm.ms)).toBeLessThan(20_000);
  });

  it('reads nothing but its own variables: another destination namespace, offline, or the reduced repo-query environment give the same output', async () => {
    const { work, cache } = setup();
    const expected = streamOfFolder(path.join(work, 'rendered/prod'));
    const variants: Record<string, string>[] = [
      repoServerEnv(work, cache, { ARGOCD_APP_NAMESPACE: 'somewhere-else', KUBE_VERSION: '1.33.0' }),
      repoServerEnv(work, cache, { ARGOCD_ENV_CAPI_OFFLINE: 'true' }),
      // newEnvRepoQuery sets only these five (plus the plugin env).
      {
        PATH: process.env.PATH ?? '',
        CAPI_RENDER_CACHE_DIR: cache,
        ARGOCD_APP_NAME: 'capi-prod',
        ARGOCD_APP_REVISION: REVISION,
        ARGOCD_APP_SOURCE_REPO_URL: 'https://github.com/example/capi-render-example.git',
        ARGOCD_APP_SOURCE_PATH: '.',
        ARGOCD_APP_SOURCE_TARGET_REVISION: 'main',
        ARGOCD_ENV_CAPI_ENV: 'prod',
      },
    ];
    for (const [i, env] of variants.entries()) {
      // The reduced environment as a process of its own; the other two in-process.
      const r = i === variants.length - 1 ? await generate(work, env) : await runCli([...PLUGIN.spec.generate.command.slice(1), ...PLUGIN.spec.generate.args], { cwd: work, env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected);
    }
  });

  it('a SIGTERM at the deadline ends it at once, with nothing written', async () => {
    const { work } = setup();
    const before = snapshotTree(work);
    const child = spawn(process.execPath, [CLI, 'cmp-generate'], { cwd: work, env: repoServerEnv(work, path.join(tempDir(), 'cold-cache')), stdio: ['ignore', 'pipe', 'pipe'] });
    await new Promise((r) => setTimeout(r, 150));
    const started = Date.now();
    child.kill('SIGTERM');
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) => child.on('close', (c, s) => r([c, s])));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(code === 0 || signal === 'SIGTERM').toBe(true);
    expect(snapshotTree(work)).toEqual(before);
  });

  const failures: { name: string; env: (work: string, cache: string) => Record<string, string>; prepare?: (work: string) => unknown; code: number; stderr: RegExp }[] = [
    { name: 'no CAPI_ENV with two environments → usage error naming the variable', env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: '' }), code: 2, stderr: /plugin env CAPI_ENV to one of dev, prod/ },
    { name: 'an unknown environment', env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'staging' }), code: 2, stderr: /unknown environment "staging"/ },
    { name: 'a value the plugin must never interpret (no shell)', env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'prod; touch pwned' }), code: 2, stderr: /unknown environment "prod; touch pwned"/ },
    { name: 'a lock that does not pin everything (the output would depend on the network)', env: repoServerEnv, prepare: (w) => rmSync(path.join(w, 'capi-render.lock')), code: 1, stderr: /error\[frozen\].*capi-render\.lock does not pin/ },
    { name: 'an artifact cache inside the checkout', env: (w) => repoServerEnv(w, path.join(w, '.cache')), code: 1, stderr: /error\[plugin\].*inside the checkout/ },
    {
      name: 'an environment whose providers were all removed (Argo CD would prune everything): the lock no longer matches',
      env: repoServerEnv,
      prepare: (w) => writeFileSync(path.join(w, 'overlays/prod/overlay.yaml'), EMPTY_OVERLAY),
      code: 1,
      stderr: /error\[frozen\][^]*CoreProvider\/capi-system\/cluster-api removed/,
    },
    {
      name: 'an environment that renders nothing, even with a lock that agrees',
      env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'empty' }),
      prepare: (w) => {
        mkdirSync(path.join(w, 'overlays/empty'));
        writeFileSync(path.join(w, 'overlays/empty/overlay.yaml'), `${EMPTY_OVERLAY}certManager:\n  install: false\n`);
        return runCli(['build', '--env', 'empty', '--allow-removal'], { cwd: w, env: { CAPI_RENDER_CACHE_DIR: path.join(w, '..', '..', 'build-cache') } }).then((built) => expect(built.code, built.stderr).toBe(0));
      },
      code: 1,
      stderr: /error\[removal\].*environment empty renders no objects/,
    },
  ];
  // The first case runs as its own process like the rest of this file; the others through the same
  // CLI function in-process (same argv, working directory, environment and exit code), to save time.
  it.each(failures.map((f, i) => ({ ...f, spawned: i === 0 })))('$name: non-zero exit, nothing on stdout', async ({ env, prepare, code, stderr, spawned }) => {
    const { work: w, cache } = setup();
    await prepare?.(w);
    const before = snapshotTree(w);
    const r = spawned ? await generate(w, env(w, cache)) : await runCli([...PLUGIN.spec.generate.command.slice(1), ...PLUGIN.spec.generate.args], { cwd: w, env: env(w, cache) });
    expect(r.code).toBe(code);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(stderr);
    expect(snapshotTree(w)).toEqual(before);
  });
});

describe('the sidecar component (deploy/argocd-cmp) on Argo CD v3.5.1’s repo-server', () => {
  it('kustomizes onto the upstream Deployment: the plugin ConfigMap and a sidecar whose every mount has a volume', () => {
    const dir = tempDir();
    cpSync(path.join(FIXTURES, 'argo-cd/argocd-repo-server-deployment.yaml'), path.join(dir, 'repo-server.yaml'));
    writeFileSync(path.join(dir, 'kustomization.yaml'), `resources:\n- repo-server.yaml\ncomponents:\n- ${path.relative(dir, path.join(REPO_ROOT, 'deploy/argocd-cmp'))}\n`);
    const out = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
    expect(out.status, out.stderr).toBe(0);
    const objects = jsYaml.loadAll(out.stdout) as { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: any }[];
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'capi-render-cmp')!;
    expect(jsYaml.load(configMap.data!['plugin.yaml']!)).toEqual(PLUGIN);
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    const sidecar = pod.containers.find((c: { name: string }) => c.name === 'capi-render');
    expect(sidecar.command).toEqual(['/var/run/argocd/argocd-cmp-server']);
    expect(sidecar.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 999 });
    const volumes = new Set(pod.volumes.map((v: { name: string }) => v.name));
    for (const m of sidecar.volumeMounts) expect(volumes.has(m.name), m.name).toBe(true);
    expect(sidecar.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual(
      expect.arrayContaining(['/var/run/argocd', '/home/argocd/cmp-server/plugins', '/home/argocd/cmp-server/config/plugin.yaml', '/tmp', '/cache']),
    );
    expect(sidecar.env).toContainEqual({ name: 'CAPI_RENDER_CACHE_DIR', value: '/cache' });
  });
});
