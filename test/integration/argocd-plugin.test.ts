/**
 * capi-render as an Argo CD Config Management Plugin, run the way argocd-repo-server's cmp-server
 * runs it (argo-cd cmpserver/plugin/plugin.go): the argv of plugin.yaml's
 * `generate` (no shell), working directory = the Application's source path inside a fresh copy of
 * the repository under `_cmp_server/<random>` (no .git, modes reset to 0644/0755), the sidecar's
 * environment plus ARGOCD_APP_* / ARGOCD_ENV_* / KUBE_*, no TTY, stdout taken as the manifests and
 * any non-zero exit as a failed generation.
 */
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { REPO_ROOT, FIXTURES } from '../helpers/fixtures.js';
import { copyExample, snapshotTree } from '../helpers/repo.js';
import { tempDir } from '../helpers/tmp.js';
import { runCli } from '../helpers/cli.js';
import { restrictedViolations } from '../helpers/pod-security-restricted.js';
import { describeTimes, timeSideBySideUntil, type Timed } from '../helpers/timing.js';

const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const PLUGIN = jsYaml.load(readFileSync(path.join(REPO_ROOT, 'deploy/argocd-cmp/plugin.yaml'), 'utf8')) as {
  kind: string;
  metadata: { name: string };
  spec: { version?: string; discover: { fileName: string }; generate: { command: string[]; args: string[] } };
};

/** The stream rendered/<env> stands for: files in the order its kustomization.yaml files list them. */
function streamOfFolder(folder: string): string {
  const list = (dir: string) =>
    (jsYaml.load(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')) as { resources: string[] }).resources;
  const docs: string[] = [];
  for (const component of list(folder))
    for (const file of list(path.join(folder, component)))
      docs.push(readFileSync(path.join(folder, component, file), 'utf8'));
  return docs.join('---\n');
}

/** A repo-server style copy of the example: `_cmp_server/<random>/`, no .git, modes reset as without preserveFileMode. */
function cmpWorkDir(): string {
  const source = copyExample({ committed: true });
  const work = path.join(source, '_cmp_server', `${Math.floor(Math.random() * 1e9)}`);
  mkdirSync(work, { recursive: true });
  for (const entry of readdirSync(source))
    if (entry !== '_cmp_server') renameSync(path.join(source, entry), path.join(work, entry));
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
}

/** Runs plugin.yaml's generate argv (capi-render → this build of the CLI) like the cmp-server. */
function generate(appPath: string, env: Record<string, string>, extraArgs: string[] = []): Promise<Generated> {
  const [command, ...rest] = PLUGIN.spec.generate.command;
  expect(command).toBe('capi-render');
  return spawnCli([...rest, ...PLUGIN.spec.generate.args, ...extraArgs], appPath, env);
}

/** Runs this build of the CLI with `args` in its own process. */
function spawnCli(args: string[], cwd: string, env: Record<string, string>): Promise<Generated> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => void (stdout += d.toString('utf8')));
    child.stderr.on('data', (d: Buffer) => void (stderr += d.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

// Still an Argo CD environment (capi-render.yaml's flavour is flux): what is tested is the removal guard.
const EMPTY_OVERLAY = 'apiVersion: capi-render/v1alpha1\nkind: Overlay\nresources: []\ngitops:\n  flavour: argocd\n';
const REVISION = '4a46692e1f0b6a3b9b0f2c7f1d4e5a6b7c8d9e0f';
/** The variables the repo-server sets for manifest generation (reposerver/repository.go newEnv), and the sidecar's own. */
function repoServerEnv(work: string, cache: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: path.join(work, '..', 'home'),
    CAPI_RENDER_CACHE_DIR: cache,
    // As the sidecar sets it (deploy/argocd-cmp/repo-server-patch.yaml): on Node >= 22.1 the launcher's
    // compile cache goes to the cache volume, not under TMPDIR.
    NODE_COMPILE_CACHE: path.join(cache, 'node-compile-cache'),
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
    const r = await runCli(['build', '--env', env, '--stdout'], {
      cwd: repo,
      env: { CAPI_RENDER_CACHE_DIR: path.join(tempDir(), 'cache') },
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(streamOfFolder(path.join(repo, 'rendered', env)));
  });
});

describe('the plugin run as argocd-repo-server runs it', () => {
  // tempDir() cleans up after the test that made it, so each test sets up its own copy.
  const setup = () => ({ work: cmpWorkDir(), cache: path.join(tempDir(), 'cache') });

  it('plugin.yaml is a ConfigManagementPlugin the Applications name correctly and that claims capi-render.yaml', () => {
    expect(PLUGIN.kind).toBe('ConfigManagementPlugin');
    // With spec.version the Application would have to say <name>-<version>.
    expect(PLUGIN.spec.version).toBeUndefined();
    expect(PLUGIN.metadata.name).toBe('capi-render');
    expect(PLUGIN.spec.discover.fileName).toBe('capi-render.yaml');
    expect(PLUGIN.spec.generate.command.length).toBeGreaterThan(0);
  });

  it('prints exactly rendered/<env>, writes nothing into the checkout, and costs no more than build --stdout of it (cold and warm cache)', async () => {
    const { work, cache } = setup();
    const before = snapshotTree(work);
    const cold = await generate(work, repoServerEnv(work, cache));
    expect(cold.code, cold.stderr).toBe(0);
    expect(cold.stdout).toBe(streamOfFolder(path.join(work, 'rendered/prod')));
    const warm = await generate(work, repoServerEnv(work, cache));
    expect(warm.stdout).toBe(cold.stdout);
    expect(snapshotTree(work)).toEqual(before);
    // Argo CD kills generate at the repo-server RPC deadline (60 s by default), so the plugin must
    // cost what a build of that one environment costs (the bench tracks the absolute figures). As
    // ratios of medians of alternating runs with the same cache state: one wall-clock sample on a
    // loaded runner measured the other workers.
    const stdoutBuild = (cacheDir: string) =>
      spawnCli(['build', '--stdout', '--env', 'prod'], work, repoServerEnv(work, cacheDir));
    const ok = (r: Generated) => expect(r.code, r.stderr).toBe(0);
    const fresh = () => path.join(tempDir(), 'cache');
    type PluginTimes = Record<
      'generate, empty cache' | 'build --stdout, empty cache' | 'generate, warm cache' | 'build --stdout, warm cache',
      Timed
    >;
    const emptyRatio = (t: PluginTimes) => t['generate, empty cache'].median / t['build --stdout, empty cache'].median;
    const warmRatio = (t: PluginTimes) => t['generate, warm cache'].median / t['build --stdout, warm cache'].median;
    const times = await timeSideBySideUntil(
      {
        'generate, empty cache': async () => ok(await generate(work, repoServerEnv(work, fresh()))),
        'build --stdout, empty cache': async () => ok(await stdoutBuild(fresh())),
        'generate, warm cache': async () => ok(await generate(work, repoServerEnv(work, cache))),
        'build --stdout, warm cache': async () => ok(await stdoutBuild(cache)),
      },
      (t) => emptyRatio(t) < 1.5 && warmRatio(t) < 1,
      3,
    );
    expect(emptyRatio(times), describeTimes(times)).toBeLessThan(1.5);
    // Warm, the stream stored by the run before is printed as it is: well under a build (about 0.2×).
    expect(warmRatio(times), describeTimes(times)).toBeLessThan(1);
    expect(snapshotTree(work)).toEqual(before);
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
      const r =
        i === variants.length - 1
          ? await generate(work, env)
          : await runCli([...PLUGIN.spec.generate.command.slice(1), ...PLUGIN.spec.generate.args], { cwd: work, env });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected);
    }
  });

  it('a SIGTERM at the deadline ends it at once, with nothing written', async () => {
    const { work } = setup();
    const before = snapshotTree(work);
    const coldEnv = () => repoServerEnv(work, path.join(tempDir(), 'cold-cache'));
    const interrupted = async () => {
      const child = spawn(process.execPath, [CLI, 'cmp-generate'], {
        cwd: work,
        env: coldEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await new Promise((r) => setTimeout(r, 150));
      child.kill('SIGTERM');
      const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((r) =>
        child.on('close', (c, s) => r([c, s])),
      );
      expect(code === 0 || signal === 'SIGTERM').toBe(true);
      expect(snapshotTree(work)).toEqual(before);
    };
    // "At once" against the same run left alone, as medians of alternating runs: a handler that
    // waited for the work to finish would take about as long; one that stops takes the 150 ms
    // before the signal and little more. No absolute bound, which a loaded runner breaks.
    const ratio = (t: Record<'SIGTERM after 150 ms' | 'uninterrupted', Timed>) =>
      t['SIGTERM after 150 ms'].median / t.uninterrupted.median;
    const times = await timeSideBySideUntil(
      {
        'SIGTERM after 150 ms': interrupted,
        uninterrupted: async () => expect((await spawnCli(['cmp-generate'], work, coldEnv())).code).toBe(0),
      },
      (t) => ratio(t) < 0.5,
      3,
    );
    expect(ratio(times), describeTimes(times)).toBeLessThan(0.5);
  });

  const failures: {
    name: string;
    env: (work: string, cache: string) => Record<string, string>;
    prepare?: (work: string) => unknown;
    code: number;
    stderr: RegExp;
  }[] = [
    {
      name: 'no CAPI_ENV with two environments → usage error naming the variable',
      env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: '' }),
      code: 2,
      stderr: /plugin env CAPI_ENV to one of dev, prod/,
    },
    {
      name: 'an unknown environment',
      env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'staging' }),
      code: 2,
      stderr: /unknown environment "staging"/,
    },
    {
      name: 'a value the plugin must never interpret (no shell)',
      env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'prod; touch pwned' }),
      code: 2,
      stderr: /unknown environment "prod; touch pwned"/,
    },
    {
      name: 'a lock that does not pin everything (the output would depend on the network)',
      env: repoServerEnv,
      prepare: (w) => rmSync(path.join(w, 'capi-render.lock')),
      code: 1,
      stderr: /error\[frozen\].*capi-render\.lock does not pin/,
    },
    {
      name: 'an artifact cache inside the checkout',
      env: (w) => repoServerEnv(w, path.join(w, '.cache')),
      code: 1,
      stderr: /error\[plugin\].*inside the checkout/,
    },
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
        return runCli(['build', '--env', 'empty', '--allow-removal'], {
          cwd: w,
          env: { CAPI_RENDER_CACHE_DIR: path.join(w, '..', '..', 'build-cache') },
        }).then((built) => expect(built.code, built.stderr).toBe(0));
      },
      code: 1,
      stderr: /error\[removal\].*environment empty renders no objects/,
    },
    // The plugin renders Argo CD environments only (dev is prepared for Flux by capi-render.yaml).
    {
      name: 'a Flux environment (CAPI_ENV=dev) → usage error naming its overlay',
      env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'dev' }),
      code: 2,
      stderr:
        /overlays\/dev\/overlay\.yaml: environment dev is prepared for Flux \(gitops\.flavour from capi-render\.yaml\), not for Argo CD[^]*CAPI_ALLOW_FLAVOUR=flux/,
    },
    {
      name: 'a Flux environment allowed a different flavour than its own → still refused',
      env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'dev', ARGOCD_ENV_CAPI_ALLOW_FLAVOUR: 'kustomize' }),
      code: 2,
      stderr: /overlays\/dev\/overlay\.yaml: environment dev is prepared for Flux/,
    },
    {
      name: 'an allowance that names no flavour',
      env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'dev', ARGOCD_ENV_CAPI_ALLOW_FLAVOUR: 'true' }),
      code: 2,
      stderr: /CAPI_ALLOW_FLAVOUR\) is "true"; it names the one flavour to accept besides argocd: flux or kustomize/,
    },
    {
      name: 'a Flux environment with no lock at all: refused for its flavour before anything is rendered',
      env: (w, c) => repoServerEnv(w, c, { ARGOCD_ENV_CAPI_ENV: 'dev' }),
      prepare: (w) => rmSync(path.join(w, 'capi-render.lock')),
      code: 2,
      stderr: /overlays\/dev\/overlay\.yaml: environment dev is prepared for Flux/,
    },
    {
      name: 'an overlay that sets another flavour itself is named as where it is set',
      env: repoServerEnv,
      prepare: (w) => {
        const file = path.join(w, 'overlays/prod/overlay.yaml');
        writeFileSync(file, readFileSync(file, 'utf8').replace('flavour: argocd', 'flavour: kustomize'));
      },
      code: 2,
      stderr:
        /overlays\/prod\/overlay\.yaml: environment prod is prepared for plain kustomize \(no GitOps flavour\) \(its gitops\.flavour\)/,
    },
  ];
  // The first case runs as its own process like the rest of this file; the others through the same
  // CLI function in-process (same argv, working directory, environment and exit code), to save time.
  it.each(failures.map((f, i) => ({ ...f, spawned: i === 0 })))(
    '$name: non-zero exit, nothing on stdout',
    async ({ env, prepare, code, stderr, spawned }) => {
      const { work: w, cache } = setup();
      await prepare?.(w);
      const before = snapshotTree(w);
      const r = spawned
        ? await generate(w, env(w, cache))
        : await runCli([...PLUGIN.spec.generate.command.slice(1), ...PLUGIN.spec.generate.args], {
            cwd: w,
            env: env(w, cache),
          });
      expect(r.code).toBe(code);
      expect(r.stdout).toBe('');
      expect(r.stderr).toMatch(stderr);
      expect(snapshotTree(w)).toEqual(before);
    },
  );

  it('an environment of another flavour is rendered when the Application allows that flavour by name (plugin env or flag)', async () => {
    const { work, cache } = setup();
    const expected = streamOfFolder(path.join(work, 'rendered/dev'));
    const viaEnv = await generate(
      work,
      repoServerEnv(work, cache, { ARGOCD_ENV_CAPI_ENV: 'dev', ARGOCD_ENV_CAPI_ALLOW_FLAVOUR: 'flux' }),
    );
    expect(viaEnv.code, viaEnv.stderr).toBe(0);
    expect(viaEnv.stdout).toBe(expected);
    const viaFlag = await runCli(['cmp-generate', '--allow-flavour', 'flux'], {
      cwd: work,
      env: repoServerEnv(work, cache, { ARGOCD_ENV_CAPI_ENV: 'dev' }),
    });
    expect(viaFlag.code, viaFlag.stderr).toBe(0);
    expect(viaFlag.stdout).toBe(expected);
  });

  it('writes only to its cache volume: nothing under TMPDIR or HOME, nothing in the checkout', async () => {
    const { work, cache } = setup();
    const tmp = tempDir();
    const home = path.join(tempDir(), 'home');
    const before = snapshotTree(work);
    for (let i = 0; i < 2; i++) {
      const r = await generate(work, repoServerEnv(work, cache, { TMPDIR: tmp, HOME: home }));
      expect(r.code, r.stderr).toBe(0);
    }
    expect(readdirSync(tmp)).toEqual([]);
    expect(existsSync(home)).toBe(false);
    expect(snapshotTree(work)).toEqual(before);
    expect(readdirSync(cache).sort()).toEqual(expect.arrayContaining(['plugin-documents', 'plugin-streams']));
  });

  describe('the stream store (answers from the committed lock and the cache)', () => {
    const stored = async () => {
      const { work, cache } = setup();
      const first = await generate(work, repoServerEnv(work, cache));
      expect(first.code, first.stderr).toBe(0);
      return { work, cache, expected: first.stdout };
    };
    const filesUnder = (dir: string): string[] =>
      existsSync(dir)
        ? readdirSync(dir, { recursive: true, withFileTypes: true })
            .filter((e) => e.isFile())
            .map((e) => path.join(e.parentPath, e.name))
        : [];

    it('a second run prints the stored stream — the same bytes — without reading a release artifact', async () => {
      const { work, cache, expected } = await stored();
      expect(expected).toBe(streamOfFolder(path.join(work, 'rendered/prod')));
      const old = new Date('2001-01-01T00:00:00Z');
      const artifacts = readdirSync(cache)
        .filter(
          (d) => !d.startsWith('plugin-') && d !== 'validated' && d !== 'node-compile-cache' && !d.startsWith('lock-'),
        )
        .flatMap((d) => filesUnder(path.join(cache, d)));
      expect(artifacts.length).toBeGreaterThan(0);
      for (const f of [...artifacts, ...filesUnder(path.join(cache, 'plugin-streams'))]) utimesSync(f, old, old);
      const second = await generate(work, repoServerEnv(work, cache));
      expect(second.code, second.stderr).toBe(0);
      expect(second.stdout).toBe(expected);
      // Every read marks an entry used (its mtime): the stream was, no artifact was.
      for (const f of artifacts) expect(statSync(f).mtimeMs, f).toBe(old.getTime());
      for (const f of filesUnder(path.join(cache, 'plugin-streams')))
        expect(statSync(f).mtimeMs).toBeGreaterThan(old.getTime());
    });

    it.each([
      [
        'its own overlay changed',
        'overlays/prod/overlay.yaml',
        /error\[frozen\][^]*prod: inputs changed \(changed input files: overlays\/prod\/overlay\.yaml \(edited\)\)/,
      ],
      [
        'another environment’s overlay changed',
        'overlays/dev/overlay.yaml',
        /error\[frozen\][^]*input files changed: overlays\/dev\/overlay\.yaml \(edited\)/,
      ],
      ['capi-render.yaml changed', 'capi-render.yaml', /error\[frozen\][^]*capi-render\.yaml \(edited\)/],
    ])(
      'is never printed once the lock no longer matches the files (%s): the frozen render fails as before',
      async (_what, file, stderr) => {
        const { work, cache } = await stored();
        writeFileSync(
          path.join(work, file),
          `${readFileSync(path.join(work, file), 'utf8')}# edited after the lock was written\n`,
        );
        const r = await generate(work, repoServerEnv(work, cache));
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(stderr);
      },
    );

    it('a damaged or missing document is a miss: the environment is rendered again, in full, and the store repaired', async () => {
      const { work, cache, expected } = await stored();
      const documents = readdirSync(path.join(cache, 'plugin-documents')).sort();
      writeFileSync(path.join(cache, 'plugin-documents', documents[0]!), 'kind: Truncated\n');
      rmSync(path.join(cache, 'plugin-documents', documents[1]!));
      const r = await generate(work, repoServerEnv(work, cache));
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toBe(expected);
      expect(readdirSync(path.join(cache, 'plugin-documents')).sort()).toEqual(documents);
      const again = await generate(work, repoServerEnv(work, cache));
      expect(again.stdout).toBe(expected);
    });

    it('is listed and pruned with the rest of the cache (cache info)', async () => {
      const { work, cache } = await stored();
      const info = await runCli(['cache', 'info', '--json', '--cache-dir', cache], { cwd: work });
      expect(info.code, info.stderr).toBe(0);
      const kinds = (JSON.parse(info.stdout) as { kinds: Record<string, { entries: number }> }).kinds;
      // The index and one file per distinct document.
      expect(kinds.plugin!.entries).toBe(1 + readdirSync(path.join(cache, 'plugin-documents')).length);
      const pruned = await runCli(['cache', 'prune', '--max-size', '0', '--cache-dir', cache], { cwd: work });
      expect(pruned.code, pruned.stderr).toBe(0);
      expect(filesUnder(path.join(cache, 'plugin-streams'))).toEqual([]);
    });
  });
});

/** The objects `kubectl kustomize` makes of Argo CD's own repo-server Deployment with deploy/argocd-cmp as a component. */
function kustomizeSidecar(
  component = path.join(REPO_ROOT, 'deploy/argocd-cmp'),
): { kind: string; metadata: { name: string }; data?: Record<string, string>; spec?: any }[] {
  const dir = tempDir();
  cpSync(path.join(FIXTURES, 'argo-cd/argocd-repo-server-deployment.yaml'), path.join(dir, 'repo-server.yaml'));
  writeFileSync(
    path.join(dir, 'kustomization.yaml'),
    `resources:\n- repo-server.yaml\ncomponents:\n- ${path.relative(dir, component)}\n`,
  );
  const out = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  expect(out.status, out.stderr).toBe(0);
  return jsYaml.loadAll(out.stdout) as ReturnType<typeof kustomizeSidecar>;
}

describe('the sidecar component (deploy/argocd-cmp) on Argo CD v3.5.1’s repo-server', () => {
  it('kustomizes onto the upstream Deployment: the plugin ConfigMap and a sidecar whose every mount has a volume', () => {
    const objects = kustomizeSidecar();
    const configMap = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'capi-render-cmp')!;
    expect(jsYaml.load(configMap.data!['plugin.yaml']!)).toEqual(PLUGIN);
    const pod = objects.find((o) => o.kind === 'Deployment')!.spec.template.spec;
    const sidecar = pod.containers.find((c: { name: string }) => c.name === 'capi-render');
    expect(sidecar.command).toEqual(['/var/run/argocd/argocd-cmp-server']);
    expect(sidecar.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 999 });
    const volumes = new Set(pod.volumes.map((v: { name: string }) => v.name));
    for (const m of sidecar.volumeMounts) expect(volumes.has(m.name), m.name).toBe(true);
    expect(sidecar.volumeMounts.map((m: { mountPath: string }) => m.mountPath)).toEqual(
      expect.arrayContaining([
        '/var/run/argocd',
        '/home/argocd/cmp-server/plugins',
        '/home/argocd/cmp-server/config/plugin.yaml',
        '/tmp',
        '/cache',
      ]),
    );
    expect(sidecar.env).toContainEqual({ name: 'CAPI_RENDER_CACHE_DIR', value: '/cache' });
  });

  it('the patched repo-server Deployment passes Pod Security "restricted" (every container and init container, pod and container fields, volume types)', () => {
    const deployment = kustomizeSidecar().find((o) => o.kind === 'Deployment')!;
    expect(restrictedViolations(deployment.spec.template)).toEqual([]);
    // Argo CD's own Deployment passes too (the sidecar is what the component adds).
    const upstream = jsYaml.load(
      readFileSync(path.join(FIXTURES, 'argo-cd/argocd-repo-server-deployment.yaml'), 'utf8'),
    ) as { spec: { template: { spec: any } } };
    expect(restrictedViolations(upstream.spec.template)).toEqual([]);
  });

  it('the sidecar has the restricted settings of Argo CD’s own containers, a read-only root, and writes only to a cache volume and a scratch TMPDIR', () => {
    const pod = kustomizeSidecar().find((o) => o.kind === 'Deployment')!.spec.template.spec;
    const sidecar = pod.containers.find((c: { name: string }) => c.name === 'capi-render');
    expect(sidecar.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 999,
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    // The same five fields as the repo-server's own containers (argocd-repo-server's Deployment in Argo CD's install manifests).
    const own = pod.containers.find((c: { name: string }) => c.name === 'argocd-repo-server').securityContext;
    for (const field of [
      'runAsNonRoot',
      'readOnlyRootFilesystem',
      'allowPrivilegeEscalation',
      'capabilities',
      'seccompProfile',
    ])
      expect(sidecar.securityContext[field], field).toEqual(own[field]);
    const env = Object.fromEntries(sidecar.env.map((e: { name: string; value: string }) => [e.name, e.value]));
    const volumeAt = (dir: string) => {
      const mount = sidecar.volumeMounts.find(
        (m: { mountPath: string; subPath?: string }) =>
          !m.subPath && (dir === m.mountPath || dir.startsWith(`${m.mountPath}/`)),
      );
      return mount && pod.volumes.find((v: { name: string }) => v.name === mount.name);
    };
    // A read-only root: every folder it writes is a volume of its own, never shared with the repo-server.
    const cache = volumeAt(env.CAPI_RENDER_CACHE_DIR);
    const scratch = volumeAt(env.TMPDIR);
    expect(cache?.emptyDir ?? cache?.persistentVolumeClaim).toBeDefined();
    expect(scratch?.emptyDir).toBeDefined();
    expect(cache.name).not.toBe(scratch.name);
    expect(volumeAt(env.NODE_COMPILE_CACHE)?.name).toBe(cache.name);
    const repoServerMounts = pod.containers
      .find((c: { name: string }) => c.name === 'argocd-repo-server')
      .volumeMounts.map((m: { name: string }) => m.name);
    expect(repoServerMounts).not.toContain(cache.name);
    expect(repoServerMounts).not.toContain(scratch.name);
    expect(env.CAPI_RENDER_CACHE_MAX_SIZE).toMatch(/^\d+[MG]$/);
    // docs/argocd.md shows these settings as they are.
    const guide = readFileSync(path.join(REPO_ROOT, 'docs/argocd.md'), 'utf8');
    const section = guide.slice(
      guide.indexOf('## Argo CD plugin and source hydrator'),
      guide.indexOf('## OCI artifacts for Argo CD'),
    );
    const shown = [...section.matchAll(/```yaml\n([^]*?)```/g)]
      .map((m) => jsYaml.load(m[1]!) as { securityContext?: unknown })
      .find((d) => d?.securityContext);
    expect(shown?.securityContext).toEqual(sidecar.securityContext);
  });

  it.each<[string, (pod: any, sidecar: any) => void, RegExp]>([
    [
      'the CMP docs’ sidecar example (runAsNonRoot and runAsUser only)',
      (_pod, c) => (c.securityContext = { runAsNonRoot: true, runAsUser: 999 }),
      /allowPrivilegeEscalation: containers\[capi-render\][^]*capabilities: containers\[capi-render\] does not drop ALL[^]*seccompProfile: containers\[capi-render\] has none/,
    ],
    [
      'no runAsNonRoot on a container of a pod that does not set it',
      (_pod, c) => delete c.securityContext.runAsNonRoot,
      /runAsNonRoot: neither containers\[capi-render\] nor the pod/,
    ],
    ['uid 0', (_pod, c) => (c.securityContext.runAsUser = 0), /runAsUser: containers\[capi-render\] runs as uid 0/],
    [
      'an added capability',
      (_pod, c) => (c.securityContext.capabilities.add = ['SYS_ADMIN']),
      /capabilities \(baseline\): containers\[capi-render\] adds SYS_ADMIN/,
    ],
    [
      'a hostPath cache',
      (pod) =>
        Object.assign(
          pod.volumes.find((v: { name: string }) => v.name === 'capi-render-cache'),
          { emptyDir: undefined, hostPath: { path: '/var/cache' } },
        ),
      /hostPathVolumes: volume capi-render-cache[^]*restrictedVolumes: volume capi-render-cache is hostPath/,
    ],
    [
      'an init container without the settings',
      (pod) => pod.initContainers.push({ name: 'warm', image: 'x' }),
      /allowPrivilegeEscalation: initContainers\[warm\][^]*runAsNonRoot: neither initContainers\[warm\]/,
    ],
    [
      'an Unconfined seccomp profile on the pod',
      (pod) => (pod.securityContext = { seccompProfile: { type: 'Unconfined' } }),
      /seccompProfile \(baseline\): pod is Unconfined/,
    ],
    [
      'a privileged container with a host port',
      (_pod, c) => ((c.securityContext.privileged = true), (c.ports = [{ containerPort: 80, hostPort: 80 }])),
      /privileged: containers\[capi-render\][^]*hostPorts: containers\[capi-render\] uses hostPort 80/,
    ],
  ])('the check has teeth: %s is refused', (_name, mutate, message) => {
    const template = kustomizeSidecar().find((o) => o.kind === 'Deployment')!.spec.template;
    mutate(
      template.spec,
      template.spec.containers.find((c: { name: string }) => c.name === 'capi-render'),
    );
    expect(restrictedViolations(template).join('\n')).toMatch(message);
  });
});
