/**
 * A mirror's location is not part of the pin: the connected side pins the provider's image where
 * the provider releases it (registry.k8s.io, served here by a test registry behind a TLS front and
 * a forward proxy, as the real name), carries it in a folder, and the site pushes it to its own
 * registry and adds the `images:` override `mirror` printed. The site's `build --offline` then
 * reuses every locked digest: no image line of capi-render.lock changes, rendered/ changes only the
 * image names, `check --offline` agrees, and a digest edited in the lock still fails. Real
 * registries (Debian's docker-registry), a signed multi-platform image, a key verify rule.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  attachBundleReferrer,
  createTestSigstore,
  signImageLegacy,
  type TestSigstore,
} from '../helpers/cosign-signatures.js';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { startForwardProxy, startTlsFront, type ForwardProxy, type TlsFront } from '../helpers/forward-proxy.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { pushTestImage, type PushedTestImage } from '../helpers/test-images.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';

const skipRegistry = skipWithout(registryUnavailableReason(), 'the image mirror override tests');
const DEPLOYMENT = 'rendered/default/cluster-api/deployment-capi-controller-manager.yaml';
const RELEASED = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0';
const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');

/**
 * The CLI as a child process: NODE_EXTRA_CA_CERTS (the TLS front's certificate) is read at start-up
 * only. Asynchronous, so the proxy and the front in this process keep answering.
 */
function runChild(
  argv: string[],
  cwd: string,
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...argv], {
      cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** Every file under `dir` by its relative path, as text. */
const textsOf = (dir: string) =>
  Object.fromEntries(Object.keys(snapshotTree(dir)).map((file) => [file, readFileSync(path.join(dir, file), 'utf8')]));
/** The lines of `after` that differ from `before` at the same position (both have as many lines). */
const changedLines = (before: string, after: string) => {
  const a = before.split('\n');
  const b = after.split('\n');
  expect(b.length).toBe(a.length);
  return b.filter((line, i) => line !== a[i]);
};

describe.skipIf(skipRegistry)('an images: override to a mirror changes no pin', () => {
  let release: TestRegistry;
  let site: TestRegistry;
  let front: TlsFront;
  let proxy: ForwardProxy;
  let sigstore: TestSigstore;
  let trustDir: string;
  let pushed: PushedTestImage;
  let connected: string;
  /** The connected side reaches "registry.k8s.io" through the proxy; the site's registry is loopback (never proxied). */
  const env = (cache: string) => ({
    CAPI_RENDER_CACHE_DIR: cache,
    HTTPS_PROXY: proxy.url,
    HTTP_PROXY: proxy.url,
    NODE_EXTRA_CA_CERTS: front.certFile,
  });

  beforeAll(async () => {
    [release, site] = await Promise.all([startRegistry(), startRegistry()]);
    front = await startTlsFront({ 'registry.k8s.io': `http://${release.host}` });
    proxy = await startForwardProxy((host, port) =>
      host === 'registry.k8s.io' && port === 443 ? { host: '127.0.0.1', port: front.port } : undefined,
    );
    trustDir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-sigstore-'));
    sigstore = await createTestSigstore(trustDir);
    const key = sigstore.key();
    pushed = await pushTestImage(release.host, 'cluster-api/cluster-api-controller', 'v1.12.0', {
      platforms: ['linux/amd64', 'linux/arm64'],
    });
    await signImageLegacy(release.host, 'cluster-api/cluster-api-controller', pushed.digest, key);
    await attachBundleReferrer(release.host, 'cluster-api/cluster-api-controller', pushed.digest, key);
    // No images: override: the connected side pulls the image where the provider releases it.
    const config = `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nrepositories:\n  - path: ${FIXTURES}repository\nimagePolicy:\n  pinDigests: true\n  insecureRegistries: [${site.host}]\n  trustedRoot: trust/trusted_root.json\n  verify:\n    - images: "registry.k8s.io/cluster-api/*"\n      key: keys/cosign.pub\n`;
    connected = makeRepo({ 'capi-render.yaml': config, 'providers/core.yaml': CORE() }, suiteTempDir());
    mkdirSync(path.join(connected, 'trust'), { recursive: true });
    cpSync(sigstore.trustedRootPath, path.join(connected, 'trust/trusted_root.json'));
    mkdirSync(path.join(connected, 'keys'), { recursive: true });
    writeFileSync(path.join(connected, 'keys/cosign.pub'), key.publicKeyPem);
    const built = await runChild(['build'], connected, env(suiteTempDir()));
    expect(built.code, built.stderr).toBe(0);
    expect(readFileSync(path.join(connected, DEPLOYMENT), 'utf8')).toContain(`image: ${RELEASED}@${pushed.digest}`);
  });
  afterAll(async () => {
    await Promise.all([release?.stop(), site?.stop(), front?.close(), proxy?.close()]);
    rmSync(trustDir, { recursive: true, force: true });
  });

  it('carried in a folder and pushed at the site: build --offline with the printed override keeps every image line of the lock', async () => {
    // Connected side: the folder names the image as released, the lock pins.
    const written = path.join(tempDir(), 'images');
    const wrote = await runChild(['mirror', '--images', '--to', written], connected, env(tempDir()));
    expect(wrote.code, wrote.stderr).toBe(0);
    const index = JSON.parse(readFileSync(path.join(written, 'index.json'), 'utf8')) as {
      manifests: { annotations?: Record<string, string> }[];
    };
    expect(index.manifests.map((m) => m.annotations?.['org.opencontainers.image.ref.name']).filter(Boolean)).toContain(
      RELEASED,
    );

    // Across the gap: the folder moves, the repository is cloned; the site has no route to registry.k8s.io.
    const carried = path.join(tempDir(), 'carried');
    cpSync(written, carried, { recursive: true });
    rmSync(written, { recursive: true });
    const atSite = makeRepo({}, tempDir());
    cpSync(connected, atSite, { recursive: true });
    const siteEnv = { CAPI_RENDER_CACHE_DIR: tempDir() };
    const push = await runCli(['mirror', '--images', '--from', carried, '--to', `${site.host}/capi`], {
      cwd: atSite,
      env: siteEnv,
    });
    expect(push.code, push.stderr).toBe(0);
    expect(push.stderr).toContain(
      `pushed ${RELEASED}@${pushed.digest} with its .sig signatures and 1 referrer to ${site.host}/capi/cluster-api-controller:v1.12.0`,
    );
    expect(push.stdout).toBe(`images:\n  all:\n    repository: ${site.host}/capi\n`);

    // The site adds the printed override and builds offline.
    const lockBefore = readFileSync(path.join(atSite, 'capi-render.lock'), 'utf8');
    const renderedBefore = textsOf(path.join(atSite, 'rendered'));
    writeFileSync(
      path.join(atSite, 'capi-render.yaml'),
      readFileSync(path.join(atSite, 'capi-render.yaml'), 'utf8') + push.stdout,
    );
    const built = await runCli(['build', '--offline'], { cwd: atSite, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(built.code, built.stderr).toBe(0);
    const lockAfter = readFileSync(path.join(atSite, 'capi-render.lock'), 'utf8');
    // Only what records the edited input: the environment's inputs hash and capi-render.yaml's sha256.
    expect(changedLines(lockBefore, lockAfter)).toEqual([
      expect.stringMatching(/^ {2}inputs: [0-9a-f]{64}$/),
      expect.stringMatching(/^ {2}sha256: [0-9a-f]{64}$/),
    ]);
    expect(lockAfter).toContain(`images:\n- image: ${RELEASED}\n  digest: ${pushed.digest}\n`);
    // rendered/: the image names, nothing else.
    const renamed = Object.fromEntries(
      Object.entries(renderedBefore).map(([file, text]) => [
        file,
        text.replaceAll(`${RELEASED}@`, `${site.host}/capi/cluster-api-controller:v1.12.0@`),
      ]),
    );
    const deployment = path.relative('rendered', DEPLOYMENT);
    expect(renamed[deployment]).toContain(`image: ${site.host}/capi/cluster-api-controller:v1.12.0@${pushed.digest}`);
    expect(textsOf(path.join(atSite, 'rendered'))).toEqual(renamed);
    const check = await runCli(['check', '--offline'], { cwd: atSite, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(check.code, check.stderr + check.stdout).toBe(0);

    // The override removed again: back to the released names, and still no image line changes.
    writeFileSync(
      path.join(atSite, 'capi-render.yaml'),
      readFileSync(path.join(connected, 'capi-render.yaml'), 'utf8'),
    );
    const back = await runCli(['build', '--offline'], { cwd: atSite, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(back.code, back.stderr).toBe(0);
    expect(readFileSync(path.join(atSite, 'capi-render.lock'), 'utf8')).toBe(lockBefore);
    expect(textsOf(path.join(atSite, 'rendered'))).toEqual(renderedBefore);

    // Every record still proves itself: a digest edited in the lock fails check.
    writeFileSync(
      path.join(atSite, 'capi-render.yaml'),
      readFileSync(path.join(connected, 'capi-render.yaml'), 'utf8') + push.stdout,
    );
    writeFileSync(
      path.join(atSite, 'capi-render.lock'),
      lockAfter.replaceAll(pushed.digest, `sha256:${'0'.repeat(64)}`),
    );
    const tampered = await runCli(['check', '--offline'], { cwd: atSite, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(
      /^capi-render\.lock:\d+:1: error\[lock\]: image .*signature is for another digest/m,
    );
  });
});
