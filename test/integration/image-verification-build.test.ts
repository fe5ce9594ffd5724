/**
 * imagePolicy.verify through the CLI: the build checks each pinned digest's signature
 * against the first matching rule and locks what passed, so --offline and check work from the
 * lock; a failed rule fails the build naming the image and the rule, changing nothing; a changed
 * rule is noticed. Real local registry, a Sigstore stand-in installed as a custom trusted root.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  createTestSigstore,
  signImageLegacy,
  attachBundleReferrer,
  type KeySigner,
  type KeylessSigner,
  type TestSigstore,
} from '../helpers/cosign-signatures.js';
import { FIXTURES } from '../helpers/fixtures.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { pushTestImage } from '../helpers/test-images.js';
import { tempDir } from '../helpers/tmp.js';

const unavailable = registryUnavailableReason();
const skipRegistry = skipWithout(unavailable, 'the imagePolicy.verify build tests');
const K8S = { identity: 'krel-trust@k8s-releng-prod.iam.gserviceaccount.com', issuer: 'https://accounts.google.com' };
const DEPLOYMENT = 'rendered/default/cluster-api/deployment-capi-controller-manager.yaml';

describe.skipIf(skipRegistry)('imagePolicy.verify in a build', () => {
  let registry: TestRegistry;
  let sigstore: TestSigstore;
  let k8s: KeylessSigner;
  let key: KeySigner;
  let trustDir: string;

  beforeAll(async () => {
    registry = await startRegistry();
    trustDir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-sigstore-'));
    sigstore = await createTestSigstore(trustDir);
    k8s = await sigstore.keyless(K8S);
    key = sigstore.key();
  });
  afterAll(async () => {
    await registry?.stop();
    rmSync(trustDir, { recursive: true, force: true });
  });

  /** A repository whose core provider runs `<registry>/<group>/cluster-api-controller:v1.12.0`, with `rules`. */
  function repoFor(group: string, rules: string): string {
    const config = `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nrepositories:\n  - path: ${FIXTURES}repository\nimages:\n  all: {repository: ${registry.host}/${group}}\nimagePolicy:\n  pinDigests: true\n  insecureRegistries: [${registry.host}]\n  trustedRoot: trust/trusted_root.json\n  verify:\n${rules}`;
    const repo = makeRepo({ 'capi-render.yaml': config, 'providers/core.yaml': CORE() });
    mkdirSync(path.join(repo, 'trust'), { recursive: true });
    cpSync(sigstore.trustedRootPath, path.join(repo, 'trust/trusted_root.json'));
    mkdirSync(path.join(repo, 'keys'), { recursive: true });
    writeFileSync(path.join(repo, 'keys/cosign.pub'), key.publicKeyPem);
    return repo;
  }
  const keylessRule = (group: string, identity = K8S.identity) =>
    `    - images: "${registry.host}/${group}/*"\n      keyless:\n        issuer: ${K8S.issuer}\n        identity: ${identity}\n`;
  const keyRule = (group: string) => `    - images: "${registry.host}/${group}/*"\n      key: keys/cosign.pub\n`;
  const env = (cache: string) => ({ CAPI_RENDER_CACHE_DIR: cache });

  it('a signed image passes and its verification is locked; --offline and check work from the lock; a changed rule is noticed', async () => {
    const pushed = await pushTestImage(registry.host, 'signed/cluster-api-controller', 'v1.12.0', {
      platforms: ['linux/amd64', 'linux/arm64'],
    });
    await signImageLegacy(registry.host, 'signed/cluster-api-controller', pushed.digest, k8s);
    const repo = repoFor('signed', keylessRule('signed'));
    const build = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
    expect(build.code, build.stderr).toBe(0);
    expect(readFileSync(path.join(repo, DEPLOYMENT), 'utf8')).toContain(`@${pushed.digest}`);
    const lock = readFileSync(path.join(repo, 'capi-render.lock'), 'utf8');
    expect(lock).toMatch(
      new RegExp(
        `digest: ${pushed.digest}\\n {2}verified:\\n {4}rule: sha256:[0-9a-f]{12}\\n {4}method: keyless\\n {4}format: legacy-tag\\n {4}identity: ${K8S.identity.replace(/\./g, '\\.')}\\n {4}issuer: https://accounts\\.google\\.com\\n {4}evidence: [A-Za-z0-9+/=]+\\n`,
      ),
    );

    // Offline (no connection is ever opened), from a fresh cache: the lock's evidence is verified again, offline.
    {
      const offline = await runCli(['build', '--offline', '--force'], { cwd: repo, env: env(tempDir()) });
      expect(offline.code, offline.stderr).toBe(0);
      expect((await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) })).code).toBe(0);
      // A changed rule is checked against the same evidence, still offline: the lock then records the
      // new rule, so check says the lock is stale and a build (offline) brings it up to date.
      writeFileSync(
        path.join(repo, 'capi-render.yaml'),
        readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace(
          `identity: ${K8S.identity}`,
          () => `identityRegExp: '^krel-trust@k8s-releng-prod\\.iam\\.gserviceaccount\\.com$'`,
        ),
      );
      const changed = await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) });
      expect(changed.code).toBe(1);
      expect(changed.stderr).toMatch(
        /verified against rule sha256:[0-9a-f]{12} → sha256:[0-9a-f]{12} \(the rule changed\)/,
      );
      const rebuilt = await runCli(['build', '--offline'], { cwd: repo, env: env(tempDir()) });
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      expect((await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) })).code).toBe(0);
      // A rule the evidence does not satisfy: offline there is nothing else to verify with.
      writeFileSync(
        path.join(repo, 'capi-render.yaml'),
        readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace(
          /identityRegExp: .*/,
          'identity: someone-else@example.com',
        ),
      );
      const other = await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) });
      expect(other.code).toBe(1);
      expect(other.stderr).toMatch(
        /^capi-render\.lock:\d+:1: error\[lock\]: image .*: capi-render\.lock keeps signature evidence that does not verify \(wrong identity/m,
      );
    }
  });

  it('a key rule with a key in the repository, and a Sigstore bundle referrer', async () => {
    const pushed = await pushTestImage(registry.host, 'internal/cluster-api-controller', 'v1.12.0');
    await attachBundleReferrer(registry.host, 'internal/cluster-api-controller', pushed.digest, key);
    const repo = repoFor('internal', keyRule('internal'));
    const build = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
    expect(build.code, build.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toMatch(/method: key\n {4}format: bundle\n/);
    // The bundle kept as evidence verifies again with no registry.
    expect((await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) })).code).toBe(0);
  });

  it('failures name the image and the rule, exit 1, and change nothing', async () => {
    const unsigned = await pushTestImage(registry.host, 'unsigned/cluster-api-controller', 'v1.12.0');
    const wrong = await pushTestImage(registry.host, 'wrong/cluster-api-controller', 'v1.12.0');
    await signImageLegacy(
      registry.host,
      'wrong/cluster-api-controller',
      wrong.digest,
      await sigstore.keyless({ identity: 'mallory@example.com', issuer: K8S.issuer }),
    );
    const cases = [
      { group: 'unsigned', digest: unsigned.digest, says: /no signature found/ },
      { group: 'wrong', digest: wrong.digest, says: /mallory@example\.com/ },
    ];
    for (const c of cases) {
      const repo = repoFor(c.group, keylessRule(c.group));
      const before = snapshotTree(repo);
      const r = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
      expect(r.code, `${c.group}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(
        `image ${registry.host}/${c.group}/cluster-api-controller:v1.12.0@${c.digest}: imagePolicy.verify[0]`,
      );
      expect(r.stderr).toMatch(c.says);
      expect(snapshotTree(repo)).toEqual(before);
    }
  });

  it('a locked digest edited to an unsigned image of the same repository: build, check, --frozen, --force and sbom all refuse it', async () => {
    const signed = await pushTestImage(registry.host, 'edited/cluster-api-controller', 'v1.12.0');
    await signImageLegacy(registry.host, 'edited/cluster-api-controller', signed.digest, key);
    const unsigned = await pushTestImage(registry.host, 'edited/cluster-api-controller', 'unsigned', { layers: 3 });
    expect(unsigned.digest).not.toBe(signed.digest);
    const repo = repoFor('edited', keyRule('edited'));
    const cache = tempDir();
    expect((await runCli(['build'], { cwd: repo, env: env(cache) })).code).toBe(0);
    const lockFile = path.join(repo, 'capi-render.lock');
    const lock = readFileSync(lockFile, 'utf8');
    expect(lock).toContain(`digest: ${signed.digest}`);
    writeFileSync(lockFile, lock.replace(`digest: ${signed.digest}`, `digest: ${unsigned.digest}`));
    const before = snapshotTree(repo);
    // The lock keys it as released (images: sends it to the test registry).
    const line =
      lock.split('\n').findIndex((l) => l.startsWith('- image: registry.k8s.io/cluster-api/cluster-api-controller:')) +
      1;
    expect(line).toBeGreaterThan(0);
    // check and --frozen: offline, from the lock alone (the registry is not asked).
    for (const args of [['check', '--offline'], ['build', '--frozen', '--offline'], ['check'], ['build', '--frozen']]) {
      const r = await runCli(args, { cwd: repo, env: env(cache) });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stderr.split('\n')[0], args.join(' ')).toMatch(
        new RegExp(
          `^capi-render\\.lock:${line}:1: error\\[lock\\]: image .*@${unsigned.digest}: capi-render\\.lock keeps signature evidence that does not verify \\(signature is for another digest`,
        ),
      );
      expect(snapshotTree(repo)).toEqual(before);
    }
    // build (warm cache, and a fresh clone's empty cache with --force) verifies the digest it pins again: it is unsigned.
    for (const [args, cacheDir] of [
      [['build'], cache],
      [['build', '--force'], tempDir()],
      [['sbom'], tempDir()],
    ] as const) {
      const r = await runCli([...args], { cwd: repo, env: env(cacheDir) });
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(
        `image ${registry.host}/edited/cluster-api-controller:v1.12.0@${unsigned.digest}: imagePolicy.verify[0] (key keys/cosign.pub): no signature found`,
      );
      expect(r.stdout).not.toContain('verified-by');
      expect(snapshotTree(repo)).toEqual(before);
    }
    // The right digest back, its evidence deleted: build verifies it from the registry again, says so in one line, and the lock proves itself again.
    writeFileSync(lockFile, lock.replace(/\n {4}evidence: .*/, ''));
    const repaired = await runCli(['build'], { cwd: repo, env: env(cache) });
    expect(repaired.code, repaired.stderr).toBe(0);
    expect(repaired.stderr).toMatch(
      /^capi-render\.lock:\d+:1: warning\[lock\]: image .*: capi-render\.lock has no signature evidence for imagePolicy\.verify\[0\] \(rule sha256:[0-9a-f]{12}\): verified again from the registry$/m,
    );
    expect(readFileSync(lockFile, 'utf8')).toBe(lock);
    expect((await runCli(['check', '--offline'], { cwd: repo, env: env(cache) })).code).toBe(0);
  });

  it('a rule written for the names a provider releases applies after images: moves them to a mirror; a rule that matches nothing is an error at its line', async () => {
    const pushed = await pushTestImage(registry.host, 'mirror/cluster-api-controller', 'v1.12.0');
    // The fixture releases registry.k8s.io/cluster-api/cluster-api-controller; the override pulls it from the mirror, where it is unsigned.
    const released = `    - images: "registry.k8s.io/cluster-api/*"\n      key: keys/cosign.pub\n`;
    const repo = repoFor('mirror', released);
    const unsigned = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
    expect(unsigned.code, unsigned.stderr).toBe(1);
    expect(unsigned.stderr).toContain(
      `image ${registry.host}/mirror/cluster-api-controller:v1.12.0@${pushed.digest}: imagePolicy.verify[0] (key keys/cosign.pub): no signature found`,
    );
    // Signed where it is pulled from: it passes, and the lock keeps the evidence.
    await signImageLegacy(registry.host, 'mirror/cluster-api-controller', pushed.digest, key);
    const signedBuild = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
    expect(signedBuild.code, signedBuild.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toMatch(
      /method: key\n {4}format: legacy-tag\n {4}evidence: [A-Za-z0-9+/=]+\n/,
    );
    // A second rule no image of the environment matches: it would verify nothing.
    writeFileSync(
      path.join(repo, 'capi-render.yaml'),
      `${readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8')}    - images: "quay.io/jetstack/cert-manager-*"\n      key: keys/cosign.pub\n`,
    );
    const before = snapshotTree(repo);
    const line =
      readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('quay.io/jetstack')) + 1;
    for (const args of [['build'], ['check']]) {
      const r = await runCli(args, { cwd: repo, env: env(tempDir()) });
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr.split('\n')[0]).toMatch(
        new RegExp(
          `^capi-render\\.yaml:${line}:\\d+: error\\[config\\]: imagePolicy\\.verify\\[1\\] \\(images "quay\\.io/jetstack/cert-manager-\\*"\\) matches no image this environment runs`,
        ),
      );
      expect(snapshotTree(repo)).toEqual(before);
    }
  });

  it('mirror --images carries the signatures (the .sig tag and the referrers) with each image: a rule for the released names passes at the mirror', async () => {
    const mirror = await startRegistry();
    try {
      const pushed = await pushTestImage(registry.host, 'airgap-src/cluster-api-controller', 'v1.12.0', {
        platforms: ['linux/amd64', 'linux/arm64'],
      });
      await signImageLegacy(registry.host, 'airgap-src/cluster-api-controller', pushed.digest, key);
      await attachBundleReferrer(registry.host, 'airgap-src/cluster-api-controller', pushed.digest, key);
      const released = `    - images: "registry.k8s.io/cluster-api/*"\n      key: keys/cosign.pub\n`;
      const repo = repoFor('airgap-src', released);
      writeFileSync(
        path.join(repo, 'capi-render.yaml'),
        readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace(
          `insecureRegistries: [${registry.host}]`,
          `insecureRegistries: [${registry.host}, ${mirror.host}]`,
        ),
      );
      const cache = tempDir();
      expect((await runCli(['build'], { cwd: repo, env: env(cache) })).code).toBe(0);
      const copied = await runCli(['mirror', '--images', `${mirror.host}/airgap`], { cwd: repo, env: env(cache) });
      expect(copied.code, copied.stderr).toBe(0);
      expect(copied.stderr).toContain(
        `with its .sig signatures and 1 referrer to ${mirror.host}/airgap/cluster-api-controller:v1.12.0`,
      );
      // The site pulls from the mirror: the same rule, the same pin, the signatures found there.
      writeFileSync(
        path.join(repo, 'capi-render.yaml'),
        readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace(
          `all: {repository: ${registry.host}/airgap-src}`,
          `all: {repository: ${mirror.host}/airgap}`,
        ),
      );
      rmSync(path.join(repo, 'capi-render.lock'));
      const atMirror = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
      expect(atMirror.code, atMirror.stderr).toBe(0);
      expect(readFileSync(path.join(repo, DEPLOYMENT), 'utf8')).toContain(
        `image: ${mirror.host}/airgap/cluster-api-controller:v1.12.0@${pushed.digest}`,
      );
      expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toMatch(/method: key\n {4}format: bundle\n/);
      // The legacy signature made the trip too: without the bundle, it is the one that passes.
      const tags = await fetch(`http://${mirror.host}/v2/airgap/cluster-api-controller/tags/list`).then(
        (r) => r.json() as Promise<{ tags: string[] }>,
      );
      expect(tags.tags.sort()).toEqual(
        [pushed.digest.replace(':', '-'), `${pushed.digest.replace(':', '-')}.sig`, 'v1.12.0'].sort(),
      );
    } finally {
      await mirror.stop();
    }
  });

  it('verify without pinDigests is a configuration error', async () => {
    const repo = repoFor('signed', keylessRule('signed'));
    writeFileSync(
      path.join(repo, 'capi-render.yaml'),
      readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace('pinDigests: true', 'pinDigests: false'),
    );
    const r = await runCli(['build', '--offline'], { cwd: repo, env: env(tempDir()) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('imagePolicy.verify needs imagePolicy.pinDigests: true');
  });
});
