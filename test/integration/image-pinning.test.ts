/**
 * Images pinned all the way down, against a real registry (Debian's docker-registry) with
 * images this test builds and pushes: pin and lock, each distinct image resolved once (counted at a
 * forward proxy the CLI goes through), offline rebuild, --frozen, a re-pushed tag reported by plan and
 * picked up only by upgrade --images, images --json, mirror --images into a second registry with equal
 * digests, plain HTTP refused unless listed, and failures that change nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { startForwardProxy, type ForwardProxy } from '../helpers/forward-proxy.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { pushTestImage } from '../helpers/test-images.js';
import { tempDir } from '../helpers/tmp.js';
import { createImageRegistry } from '../../src/images/registry/image-registry.js';

const unavailable = registryUnavailableReason();
const skipRegistry = skipWithout(unavailable, 'the image pinning tests');

const CONTROLLER = 'capi/cluster-api-controller';
const DEPLOYMENT = 'rendered/dev/cluster-api/deployment-capi-controller-manager.yaml';

describe.skipIf(skipRegistry)('images pinned by digest', () => {
  let registry: TestRegistry;
  let second: TestRegistry;
  let proxy: ForwardProxy;
  /** The name the repositories use for the registry: reached only through the proxy (a name, not loopback). */
  let host: string;
  let pushed: { digest: string; platformDigests: Record<string, string> };

  beforeAll(async () => {
    [registry, second] = await Promise.all([startRegistry(), startRegistry()]);
    const port = Number(registry.host.split(':')[1]);
    const secondPort = Number(second.host.split(':')[1]);
    proxy = await startForwardProxy((name, p) =>
      name === 'registry.test' && p === port
        ? { host: '127.0.0.1', port }
        : name === 'mirror.test' && p === secondPort
          ? { host: '127.0.0.1', port: secondPort }
          : undefined,
    );
    host = `registry.test:${port}`;
    pushed = await pushTestImage(registry.host, CONTROLLER, 'v1.12.0', { platforms: ['linux/amd64', 'linux/arm64'] });
  });
  afterAll(async () => {
    await Promise.all([registry?.stop(), second?.stop(), proxy?.close()]);
  });

  const config = (extra = '') =>
    `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nrepositories:\n  - path: ${FIXTURES}repository\nimages:\n  all: {repository: ${host}/capi}\nimagePolicy:\n  pinDigests: true\n  insecureRegistries: [${host}, mirror.test:${second.host.split(':')[1]}]\n${extra}`;
  const overlay = 'apiVersion: capi-render/v1alpha1\nkind: Overlay\n';
  const repoWith = (cfg = config()) =>
    makeRepo({
      'capi-render.yaml': cfg,
      'providers/core.yaml': CORE(),
      'overlays/dev/overlay.yaml': overlay,
      'overlays/prod/overlay.yaml': overlay,
    });
  const env = (cache: string) => ({ CAPI_RENDER_CACHE_DIR: cache, HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url });
  const manifestRequests = (image: string) =>
    proxy.requests.filter((r) => r.target.includes(`/v2/${image}/manifests/`)).length;
  const lockDigest = (repo: string) =>
    /image: \S+cluster-api-controller:v1\.12\.0\n {2}digest: (sha256:[0-9a-f]{64})/.exec(
      readFileSync(path.join(repo, 'capi-render.lock'), 'utf8'),
    )?.[1];

  it('pins the index digest, locks it, resolves it once for two environments, and rebuilds offline from the lock', async () => {
    const repo = repoWith();
    const cache = tempDir();
    const before = manifestRequests(CONTROLLER);
    const build = await runCli(['build'], { cwd: repo, env: env(cache) });
    expect(build.code, build.stderr).toBe(0);
    expect(manifestRequests(CONTROLLER) - before, 'one resolution for dev and prod together').toBe(1);
    const rendered = readFileSync(path.join(repo, DEPLOYMENT), 'utf8');
    expect(rendered).toContain(`image: ${host}/capi/cluster-api-controller:v1.12.0@${pushed.digest}`);
    expect(rendered).not.toContain(pushed.platformDigests['linux/amd64']!);
    expect(lockDigest(repo)).toBe(pushed.digest);
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toMatch(
      /- name: dev\n[\s\S]*?images:\n {2}- \S+cluster-api-controller:v1\.12\.0/,
    );

    // Offline, from another cache: the lock is enough, and nothing asks the registry.
    const output = snapshotTree(path.join(repo, 'rendered'));
    const counted = proxy.requests.length;
    const offline = await runCli(['build', '--offline', '--force'], { cwd: repo, env: env(tempDir()) });
    expect(offline.code, offline.stderr).toBe(0);
    expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(output);
    const check = await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) });
    expect(check.code, check.stderr).toBe(0);
    const frozen = await runCli(['build', '--frozen', '--force'], { cwd: repo, env: env(tempDir()) });
    expect(frozen.code, frozen.stderr).toBe(0);
    expect(proxy.requests.length, 'a locked digest is never asked for again').toBe(counted);

    // images: one reference per line, and --json with who uses it.
    const list = await runCli(['images', '--offline'], { cwd: repo, env: env(cache) });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toBe(`${host}/capi/cluster-api-controller:v1.12.0@${pushed.digest}\n`);
    const json = JSON.parse(
      (await runCli(['images', '--offline', '--json', '--env', 'prod'], { cwd: repo, env: env(cache) })).stdout,
    );
    expect(json).toMatchObject({
      kind: 'ImageList',
      environments: [
        {
          environment: 'prod',
          images: [
            {
              image: `${host}/capi/cluster-api-controller:v1.12.0`,
              digest: pushed.digest,
              pinned: true,
              components: ['cluster-api'],
            },
          ],
        },
      ],
    });
    expect(json.environments[0].images[0].usedBy[0]).toMatch(
      /^Deployment\/capi-system\/capi-controller-manager container "manager"/,
    );
  });

  it('--offline and --frozen refuse an image the lock lacks, naming it; nothing changes', async () => {
    const repo = repoWith(config().replace('pinDigests: true', 'pinDigests: false'));
    expect((await runCli(['build', '--offline'], { cwd: repo, env: env(tempDir()) })).code).toBe(0);
    writeFileSync(path.join(repo, 'capi-render.yaml'), config());
    const before = snapshotTree(repo);
    const offline = await runCli(['build', '--offline'], { cwd: repo, env: env(tempDir()) });
    expect(offline.code).toBe(1);
    expect(offline.stderr).toContain(
      `--offline: image ${host}/capi/cluster-api-controller:v1.12.0 has no digest in capi-render.lock`,
    );
    const frozen = await runCli(['build', '--frozen'], { cwd: repo, env: env(tempDir()) });
    expect(frozen.code).toBe(1);
    expect(frozen.stderr).toMatch(
      /--frozen: the build would change capi-render\.lock:[\s\S]*dev: image \S+cluster-api-controller:v1\.12\.0 pinned/,
    );
    expect(snapshotTree(repo)).toEqual(before);
  });

  it('a re-pushed tag: plan reports both digests, build keeps the pin, upgrade --images re-pins with the diff', async () => {
    const image = 'capi/moving-controller';
    const first = await pushTestImage(registry.host, image, 'v1.12.0', { platforms: ['linux/amd64'] });
    const repo = repoWith(
      config().replace(`all: {repository: ${host}/capi}`, `all: {repository: ${host}/capi, name: moving-controller}`),
    );
    const cache = tempDir();
    expect((await runCli(['build'], { cwd: repo, env: env(cache) })).code).toBe(0);
    const moved = await pushTestImage(registry.host, image, 'v1.12.0', { platforms: ['linux/amd64', 'linux/arm64'] });
    expect(moved.digest).not.toBe(first.digest);

    const plan = await runCli(['plan'], { cwd: repo, env: env(cache) });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('Images: 1 pinned by digest, 1 tag moved since locked');
    expect(plan.stdout).toMatch(
      new RegExp(
        `${host.replace('.', '\\.')}/capi/moving-controller:v1\\.12\\.0\\s+${first.digest}\\s+${moved.digest}`,
      ),
    );
    const planJson = JSON.parse(
      (await runCli(['plan', '--json', '--env', 'dev'], { cwd: repo, env: env(cache) })).stdout,
    );
    expect(planJson.environments[0].images).toEqual([
      { image: `${host}/capi/moving-controller:v1.12.0`, locked: first.digest, current: moved.digest, moved: true },
    ]);

    // A build keeps the locked digest: the move reaches the output only as a reviewed change.
    const rebuilt = await runCli(['build', '--force'], { cwd: repo, env: env(cache) });
    expect(rebuilt.code).toBe(0);
    expect(readFileSync(path.join(repo, DEPLOYMENT), 'utf8')).toContain(`@${first.digest}`);

    const upgrade = await runCli(['upgrade', '--images'], { cwd: repo, env: env(cache) });
    expect(upgrade.code, upgrade.stderr).toBe(0);
    // Named as the lock keys it: as released (the override renames it; the pin is of the released image).
    expect(upgrade.stderr).toContain(
      `re-pinned registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0: ${first.digest} → ${moved.digest} (dev, prod)`,
    );
    expect(upgrade.stdout).toContain(`${first.digest}`);
    expect(upgrade.stdout).toContain(`${moved.digest}`);
    expect(readFileSync(path.join(repo, DEPLOYMENT), 'utf8')).toContain(`@${moved.digest}`);
    expect((await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) })).code).toBe(0);
  });

  it('mirror --images copies every pinned image into a second registry with equal digests and prints the override', async () => {
    const repo = repoWith();
    const cache = tempDir();
    expect((await runCli(['build'], { cwd: repo, env: env(cache) })).code).toBe(0);
    const target = `mirror.test:${second.host.split(':')[1]}/airgap`;
    const overrides = path.join(tempDir(), 'overrides.yaml');
    const r = await runCli(['mirror', '--images', target, '--write-overrides', overrides], {
      cwd: repo,
      env: env(cache),
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      `[1/1] mirrored ${host}/capi/cluster-api-controller:v1.12.0@${pushed.digest} to ${target}/cluster-api-controller:v1.12.0`,
    );
    expect(r.stdout).toBe(`images:\n  all:\n    repository: ${target}\n`);
    expect(readFileSync(overrides, 'utf8')).toBe(r.stdout);
    // An independent look at the copy: the same digest under the new name.
    const copy = await createImageRegistry({ env: {}, insecureRegistries: [second.host] }).resolve({
      registry: second.host,
      repository: 'airgap/cluster-api-controller',
      tag: 'v1.12.0',
    });
    expect(copy.digest).toBe(pushed.digest);
    expect(copy.platforms.sort()).toEqual(['linux/amd64', 'linux/arm64']);

    // Pointing the environments at the mirror keeps the same pin.
    writeFileSync(
      path.join(repo, 'capi-render.yaml'),
      config().replace(`all: {repository: ${host}/capi}`, `all: {repository: ${target}}`),
    );
    const again = await runCli(['build'], { cwd: repo, env: env(cache) });
    expect(again.code, again.stderr).toBe(0);
    expect(readFileSync(path.join(repo, DEPLOYMENT), 'utf8')).toContain(
      `image: ${target}/cluster-api-controller:v1.12.0@${pushed.digest}`,
    );
  });

  it('failures name the image, the registry and the reason, exit 1, and change nothing', async () => {
    const cases: { name: string; cfg: string; says: RegExp }[] = [
      {
        name: 'an image that is not there',
        cfg: config().replace(`all: {repository: ${host}/capi}`, `all: {repository: ${host}/nowhere}`),
        says: new RegExp(
          `${host.replace('.', '\\.')}/nowhere/cluster-api-controller:v1\\.12\\.0.*(not found|unknown)`,
          'i',
        ),
      },
      {
        name: 'plain HTTP to a registry not listed as insecure',
        cfg: config().replace(/ {2}insecureRegistries: .*\n/, ''),
        says: /insecureRegistries/,
      },
    ];
    for (const c of cases) {
      const repo = repoWith(c.cfg);
      const before = snapshotTree(repo);
      const r = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
      expect(r.code, `${c.name}: ${r.stderr}`).toBe(1);
      expect(r.stderr, c.name).toMatch(c.says);
      expect(r.stderr, c.name).toContain('capi-controller-manager');
      expect(snapshotTree(repo), c.name).toEqual(before);
    }
  });
});
