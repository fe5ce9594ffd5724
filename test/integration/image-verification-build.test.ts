/**
 * imagePolicy.verify through the CLI (issue 25): the build checks each pinned digest's signature
 * against the first matching rule and locks what passed, so --offline and check work from the
 * lock; a failed rule fails the build naming the image and the rule, changing nothing; a changed
 * rule is noticed. Real local registry, a Sigstore stand-in installed as a custom trusted root.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createTestSigstore, signImageLegacy, attachBundleReferrer, type KeySigner, type KeylessSigner, type TestSigstore } from '../helpers/cosign-signatures.js';
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
  const keylessRule = (group: string, identity = K8S.identity) => `    - images: "${registry.host}/${group}/*"\n      keyless:\n        issuer: ${K8S.issuer}\n        identity: ${identity}\n`;
  const keyRule = (group: string) => `    - images: "${registry.host}/${group}/*"\n      key: keys/cosign.pub\n`;
  const env = (cache: string) => ({ CAPI_RENDER_CACHE_DIR: cache });

  it('a signed image passes and its verification is locked; --offline and check work from the lock; a changed rule is noticed', async () => {
    const pushed = await pushTestImage(registry.host, 'signed/cluster-api-controller', 'v1.12.0', { platforms: ['linux/amd64', 'linux/arm64'] });
    await signImageLegacy(registry.host, 'signed/cluster-api-controller', pushed.digest, k8s);
    const repo = repoFor('signed', keylessRule('signed'));
    const build = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
    expect(build.code, build.stderr).toBe(0);
    expect(readFileSync(path.join(repo, DEPLOYMENT), 'utf8')).toContain(`@${pushed.digest}`);
    const lock = readFileSync(path.join(repo, 'capi-render.lock'), 'utf8');
    expect(lock).toMatch(new RegExp(`digest: ${pushed.digest}\\n {2}verified:\\n {4}rule: sha256:[0-9a-f]{12}\\n {4}method: keyless\\n {4}format: legacy-tag\\n {4}identity: ${K8S.identity.replace(/\./g, '\\.')}\\n {4}issuer: https://accounts\\.google\\.com\\n {4}signature: sha256:[0-9a-f]{64}`));

    // Offline (no connection is ever opened), from a fresh cache: the lock's record is enough.
    {
      const offline = await runCli(['build', '--offline', '--force'], { cwd: repo, env: env(tempDir()) });
      expect(offline.code, offline.stderr).toBe(0);
      expect((await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) })).code).toBe(0);
      // A changed rule must be verified again: offline, that is an error naming it, and check notices.
      writeFileSync(path.join(repo, 'capi-render.yaml'), readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace(`identity: ${K8S.identity}`, 'identityRegExp: "^krel-trust@"'));
      const changed = await runCli(['check', '--offline'], { cwd: repo, env: env(tempDir()) });
      expect(changed.code).toBe(1);
      expect(changed.stderr).toMatch(/has no verification against imagePolicy\.verify\[0\] \(rule sha256:[0-9a-f]{12}\) in capi-render\.lock/);
    }
  });

  it('a key rule with a key in the repository, and a Sigstore bundle referrer', async () => {
    const pushed = await pushTestImage(registry.host, 'internal/cluster-api-controller', 'v1.12.0');
    await attachBundleReferrer(registry.host, 'internal/cluster-api-controller', pushed.digest, key);
    const repo = repoFor('internal', keyRule('internal'));
    const build = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
    expect(build.code, build.stderr).toBe(0);
    expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toMatch(/method: key\n {4}format: bundle\n/);
  });

  it('failures name the image and the rule, exit 1, and change nothing', async () => {
    const unsigned = await pushTestImage(registry.host, 'unsigned/cluster-api-controller', 'v1.12.0');
    const wrong = await pushTestImage(registry.host, 'wrong/cluster-api-controller', 'v1.12.0');
    await signImageLegacy(registry.host, 'wrong/cluster-api-controller', wrong.digest, await sigstore.keyless({ identity: 'mallory@example.com', issuer: K8S.issuer }));
    const cases = [
      { group: 'unsigned', digest: unsigned.digest, says: /no signature found/ },
      { group: 'wrong', digest: wrong.digest, says: /mallory@example\.com/ },
    ];
    for (const c of cases) {
      const repo = repoFor(c.group, keylessRule(c.group));
      const before = snapshotTree(repo);
      const r = await runCli(['build'], { cwd: repo, env: env(tempDir()) });
      expect(r.code, `${c.group}: ${r.stderr}`).toBe(1);
      expect(r.stderr).toContain(`image ${registry.host}/${c.group}/cluster-api-controller:v1.12.0@${c.digest}: imagePolicy.verify[0]`);
      expect(r.stderr).toMatch(c.says);
      expect(snapshotTree(repo)).toEqual(before);
    }
  });

  it('verify without pinDigests is a configuration error', async () => {
    const repo = repoFor('signed', keylessRule('signed'));
    writeFileSync(path.join(repo, 'capi-render.yaml'), readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace('pinDigests: true', 'pinDigests: false'));
    const r = await runCli(['build', '--offline'], { cwd: repo, env: env(tempDir()) });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('imagePolicy.verify needs imagePolicy.pinDigests: true');
  });
});
