/**
 * mirror --images --to DIR carries the pinned images across an air gap as an OCI image layout (or
 * an oci-archive tar of it), with their cosign .sig tags and referrers; mirror --images --from DIR
 * --to REGISTRY/PREFIX pushes them at the site. skopeo, which shares no code with capi-render,
 * reads the folder, the archive and the site's registry back. Real registries (Debian's
 * docker-registry), a signed multi-platform image.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  attachBundleReferrer,
  createTestSigstore,
  signImageLegacy,
  type KeySigner,
  type TestSigstore,
} from '../helpers/cosign-signatures.js';
import { FIXTURES, REPO_ROOT } from '../helpers/fixtures.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { skopeo, skopeoUnavailableReason } from '../helpers/skopeo.js';
import { pushTestImage, type PushedTestImage } from '../helpers/test-images.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';

const unavailable = registryUnavailableReason() ?? skopeoUnavailableReason();
const skipRegistry = skipWithout(unavailable, 'the image folder mirror tests');
const CLI = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
const DEPLOYMENT = 'rendered/default/cluster-api/deployment-capi-controller-manager.yaml';
const sha256 = (text: string | Buffer) => `sha256:${createHash('sha256').update(text).digest('hex')}`;
/** The lock's image lines: the top-level `images:` list and each environment's. */
const lockedImages = (lock: string) =>
  [...lock.matchAll(/^( {2})?(images:\n(?:\1[- ] .*\n)+)/gm)].map((m) => m[0]).join('');
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

describe.skipIf(skipRegistry)('mirror --images --to DIR and --from DIR', () => {
  let source: TestRegistry;
  let site: TestRegistry;
  let sigstore: TestSigstore;
  let key: KeySigner;
  let trustDir: string;
  let pushed: PushedTestImage;
  let repo: string;
  let ref: string;
  const env = (cache: string) => ({ CAPI_RENDER_CACHE_DIR: cache });
  let cache: string;

  beforeAll(async () => {
    cache = suiteTempDir();
    source = await startRegistry();
    site = await startRegistry();
    trustDir = mkdtempSync(path.join(os.tmpdir(), 'capi-render-sigstore-'));
    sigstore = await createTestSigstore(trustDir);
    key = sigstore.key();
    pushed = await pushTestImage(source.host, 'release/cluster-api-controller', 'v1.12.0', {
      platforms: ['linux/amd64', 'linux/arm64'],
    });
    await signImageLegacy(source.host, 'release/cluster-api-controller', pushed.digest, key);
    await attachBundleReferrer(source.host, 'release/cluster-api-controller', pushed.digest, key);
    // The folder names each image as the lock does: as its provider releases it, wherever it was read from.
    ref = 'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0';
    // A rule for the names the provider releases: it passes wherever the signatures travel with the image.
    const config = `apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\nrepositories:\n  - path: ${FIXTURES}repository\nimages:\n  all: {repository: ${source.host}/release}\nimagePolicy:\n  pinDigests: true\n  insecureRegistries: [${source.host}, ${site.host}]\n  trustedRoot: trust/trusted_root.json\n  verify:\n    - images: "registry.k8s.io/cluster-api/*"\n      key: keys/cosign.pub\n`;
    repo = makeRepo({ 'capi-render.yaml': config, 'providers/core.yaml': CORE() }, suiteTempDir());
    mkdirSync(path.join(repo, 'trust'), { recursive: true });
    cpSync(sigstore.trustedRootPath, path.join(repo, 'trust/trusted_root.json'));
    mkdirSync(path.join(repo, 'keys'), { recursive: true });
    writeFileSync(path.join(repo, 'keys/cosign.pub'), key.publicKeyPem);
    const built = await runCli(['build'], { cwd: repo, env: env(cache) });
    expect(built.code, built.stderr).toBe(0);
  });
  afterAll(async () => {
    await source?.stop();
    await site?.stop();
    rmSync(trustDir, { recursive: true, force: true });
  });

  /** Writes the layout (or archive) of the repository's pinned images to a new path; returns it. */
  async function writeFolder(format?: 'oci-archive'): Promise<string> {
    const target = path.join(tempDir(), format ? 'images.tar' : 'images');
    const r = await runCli(['mirror', '--images', '--to', target, ...(format ? ['--format', format] : [])], {
      cwd: repo,
      env: env(cache),
    });
    expect(r.code, r.stderr).toBe(0);
    return target;
  }
  const tags = async (registry: TestRegistry, repository: string) => {
    const answer = await fetch(`http://${registry.host}/v2/${repository}/tags/list`);
    return answer.status === 200 ? ((await answer.json()) as { tags: string[] }).tags.sort() : [];
  };

  it('writes an OCI image layout and an oci-archive skopeo reads at the pinned digest, the same bytes every time, with the signatures', async () => {
    const layout = await writeFolder();
    expect(readFileSync(path.join(layout, 'oci-layout'), 'utf8')).toBe('{"imageLayoutVersion":"1.0.0"}\n');
    const index = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8'));
    const sigRef = `registry.k8s.io/cluster-api/cluster-api-controller:${pushed.digest.replace(':', '-')}.sig`;
    expect(
      index.manifests.map(
        (m: any) =>
          m.annotations['org.opencontainers.image.ref.name'] ??
          `referrer of ${m.annotations['dev.capi-render.referrer-of']}`,
      ),
    ).toEqual([sigRef, ref, `referrer of ${ref}`]);
    for (const transport of [`oci:${layout}:${ref}`, `oci-archive:${await writeFolder('oci-archive')}:${ref}`]) {
      expect(sha256(skopeo('inspect', '--raw', transport))).toBe(pushed.digest);
    }
    expect(sha256(skopeo('inspect', '--raw', `oci:${layout}:${sigRef}`))).toBe(
      sha256(
        skopeo(
          'inspect',
          '--raw',
          '--tls-verify=false',
          `docker://${source.host}/release/cluster-api-controller:${pushed.digest.replace(':', '-')}.sig`,
        ),
      ),
    );
    // Deterministic: a second run writes the same tree, and the same archive bytes.
    expect(snapshotTree(await writeFolder())).toEqual(snapshotTree(layout));
    expect(sha256(readFileSync(await writeFolder('oci-archive')))).toBe(
      sha256(readFileSync(await writeFolder('oci-archive'))),
    );
  });

  it('pushes the folder and the archive at the site: same digests, the .sig tag and the referrer; a build there pins and verifies them', async () => {
    for (const [from, prefix] of [
      [await writeFolder(), 'airgap'],
      [await writeFolder('oci-archive'), 'airgap-tar'],
    ] as const) {
      const overrides = path.join(tempDir(), 'images.yaml');
      const r = await runCli(
        ['mirror', '--images', '--from', from, '--to', `${site.host}/${prefix}`, '--write-overrides', overrides],
        { cwd: repo, env: env(cache) },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.stderr).toContain(
        `pushed ${ref}@${pushed.digest} with its .sig signatures and 1 referrer to ${site.host}/${prefix}/cluster-api-controller:v1.12.0`,
      );
      expect(r.stdout).toBe(`images:\n  all:\n    repository: ${site.host}/${prefix}\n`);
      expect(readFileSync(overrides, 'utf8')).toBe(r.stdout);
      expect(
        sha256(
          skopeo(
            'inspect',
            '--raw',
            '--tls-verify=false',
            `docker://${site.host}/${prefix}/cluster-api-controller:v1.12.0`,
          ),
        ),
      ).toBe(pushed.digest);
      expect(await tags(site, `${prefix}/cluster-api-controller`)).toEqual(
        [pushed.digest.replace(':', '-'), `${pushed.digest.replace(':', '-')}.sig`, 'v1.12.0'].sort(),
      );
    }
    // The site's repository points at its registry: the pin is the same digest, and the signature rule passes there.
    const atSite = makeRepo({}, tempDir());
    cpSync(repo, atSite, { recursive: true });
    writeFileSync(
      path.join(atSite, 'capi-render.yaml'),
      readFileSync(path.join(repo, 'capi-render.yaml'), 'utf8').replace(
        `all: {repository: ${source.host}/release}`,
        `all: {repository: ${site.host}/airgap}`,
      ),
    );
    rmSync(path.join(atSite, 'capi-render.lock'));
    const built = await runCli(['build'], { cwd: atSite, env: env(tempDir()) });
    expect(built.code, built.stderr).toBe(0);
    expect(readFileSync(path.join(atSite, DEPLOYMENT), 'utf8')).toContain(
      `image: ${site.host}/airgap/cluster-api-controller:v1.12.0@${pushed.digest}`,
    );
    expect(readFileSync(path.join(atSite, 'capi-render.lock'), 'utf8')).toMatch(/method: key\n {4}format: bundle\n/);
    // Resolved at the site's registry, locked under the released name: the images the connected side locked.
    expect(lockedImages(readFileSync(path.join(atSite, 'capi-render.lock'), 'utf8'))).toBe(
      lockedImages(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')),
    );
    expect((await runCli(['build', '--offline', '--force'], { cwd: atSite, env: env(tempDir()) })).code).toBe(0);
    // The next carry: the site's repository pins its own registry's names, the folder the released
    // ones; the same name, tag and digest match them.
    const again = await runCli(['mirror', '--images', '--from', await writeFolder(), '--to', `${site.host}/again`], {
      cwd: atSite,
      env: env(tempDir()),
    });
    expect(again.code, again.stderr).toBe(0);
    expect(
      sha256(
        skopeo('inspect', '--raw', '--tls-verify=false', `docker://${site.host}/again/cluster-api-controller:v1.12.0`),
      ),
    ).toBe(pushed.digest);
    expect(await tags(site, 'again/cluster-api-controller')).toEqual(
      [pushed.digest.replace(':', '-'), `${pushed.digest.replace(':', '-')}.sig`, 'v1.12.0'].sort(),
    );
  });

  it('a site that points images: at its mirror builds offline from the same lock: no image line changes, rendered/ changes only the image names', async () => {
    // Carried: the folder is written on the connected side, moved, and pushed at the site.
    const written = await writeFolder();
    const carried = path.join(tempDir(), 'carried');
    cpSync(written, carried, { recursive: true });
    rmSync(written, { recursive: true });
    const atSite = makeRepo({}, tempDir());
    cpSync(repo, atSite, { recursive: true });
    const pushedAt = await runCli(['mirror', '--images', '--from', carried, '--to', `${site.host}/offline`], {
      cwd: atSite,
      env: env(tempDir()),
    });
    expect(pushedAt.code, pushedAt.stderr).toBe(0);
    expect(pushedAt.stdout).toBe(`images:\n  all:\n    repository: ${site.host}/offline\n`);
    const lockBefore = readFileSync(path.join(atSite, 'capi-render.lock'), 'utf8');
    const renderedBefore = textsOf(path.join(atSite, 'rendered'));
    // The override it printed replaces the connected side's: configuration, not part of the pin.
    const configFile = path.join(atSite, 'capi-render.yaml');
    writeFileSync(
      configFile,
      readFileSync(configFile, 'utf8').replace(
        `images:\n  all: {repository: ${source.host}/release}\n`,
        pushedAt.stdout,
      ),
    );
    const built = await runCli(['build', '--offline'], { cwd: atSite, env: env(tempDir()) });
    expect(built.code, built.stderr).toBe(0);
    const lockAfter = readFileSync(path.join(atSite, 'capi-render.lock'), 'utf8');
    expect(changedLines(lockBefore, lockAfter)).toEqual([
      expect.stringMatching(/^ {2}inputs: [0-9a-f]{64}$/),
      expect.stringMatching(/^ {2}sha256: [0-9a-f]{64}$/),
    ]);
    expect(lockedImages(lockAfter)).toBe(lockedImages(lockBefore));
    expect(lockAfter).toContain(
      `- image: registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0\n  digest: ${pushed.digest}\n`,
    );
    expect(readFileSync(path.join(atSite, DEPLOYMENT), 'utf8')).toContain(
      `image: ${site.host}/offline/cluster-api-controller:v1.12.0@${pushed.digest}`,
    );
    const renamed = Object.fromEntries(
      Object.entries(renderedBefore).map(([file, text]) => [
        file,
        text.replaceAll(`${source.host}/release/`, `${site.host}/offline/`),
      ]),
    );
    expect(textsOf(path.join(atSite, 'rendered'))).toEqual(renamed);
    expect(Object.values(renamed).some((text) => text.includes(`${site.host}/offline/`))).toBe(true);
    const check = await runCli(['check', '--offline'], { cwd: atSite, env: env(tempDir()) });
    expect(check.code, check.stderr + check.stdout).toBe(0);

    // Every record still proves itself: a digest edited in the lock fails check (the evidence signs the pinned one).
    const edited = lockAfter.replaceAll(pushed.digest, `sha256:${'0'.repeat(64)}`);
    writeFileSync(path.join(atSite, 'capi-render.lock'), edited);
    const tampered = await runCli(['check', '--offline'], { cwd: atSite, env: env(tempDir()) });
    expect(tampered.code).toBe(1);
    expect(tampered.stderr).toMatch(/^capi-render\.lock:\d+:1: error\[lock\]: .*signature is for another digest/m);

    // A lock written before origin keys (images under the names the output pulls them from) is read,
    // and the next build re-keys it with the same digest and evidence: the one lock change.
    const rendered = `${site.host}/offline/cluster-api-controller:v1.12.0`;
    writeFileSync(
      path.join(atSite, 'capi-render.lock'),
      lockAfter.replaceAll('registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0', rendered),
    );
    const stale = await runCli(['check', '--offline'], { cwd: atSite, env: env(tempDir()) });
    expect(stale.code).toBe(1);
    expect(stale.stderr).toContain(
      'capi-render.lock: warning[lock]: capi-render.lock names pinned images where the output pulls them from',
    );
    const migrated = await runCli(['build', '--offline'], { cwd: atSite, env: env(tempDir()) });
    expect(migrated.code, migrated.stderr).toBe(0);
    expect(migrated.stderr).toContain(
      `capi-render.lock: warning[lock]: capi-render.lock names pinned images where the output pulls them from (${rendered}, written by an older capi-render)`,
    );
    expect(readFileSync(path.join(atSite, 'capi-render.lock'), 'utf8')).toBe(lockAfter);
  });

  /** A layer blob of the layout (the largest file under blobs/). */
  const layerOf = (layout: string) => {
    const dir = path.join(layout, 'blobs/sha256');
    return readdirSync(dir)
      .map((n) => path.join(dir, n))
      .sort((a, b) => readFileSync(b).length - readFileSync(a).length)[0]!;
  };

  it.each([
    {
      name: 'a tampered blob is refused, naming it, and nothing is pushed',
      spoil: (layout: string) => {
        const blob = layerOf(layout);
        const bytes = readFileSync(blob);
        bytes[bytes.length - 1]! ^= 1;
        writeFileSync(blob, bytes);
        return path.relative(layout, blob);
      },
      error: /error\[digest-mismatch\]: .*blobs\/sha256\/[0-9a-f]{64}: the blob is not sha256:/,
    },
    {
      name: 'a missing blob is refused, naming it',
      spoil: (layout: string) => (unlinkSync(layerOf(layout)), ''),
      error: /error\[image\]: .*blobs\/sha256\/[0-9a-f]{64}: blob sha256:[0-9a-f]{64} \(\d+ bytes\) is missing/,
    },
    {
      name: 'a symbolic link inside the folder is refused, naming it',
      spoil: (layout: string) => (symlinkSync('/etc/passwd', path.join(layout, 'blobs/sha256/passwd')), ''),
      error: /error\[image\]: .*blobs\/sha256\/passwd: is a symbolic link/,
    },
    {
      name: 'a folder without index.json (an unfinished copy) is refused',
      spoil: (layout: string) => (unlinkSync(path.join(layout, 'index.json')), ''),
      error: /error\[image\]: .*index\.json: is missing/,
    },
  ])('$name', async ({ spoil, error }) => {
    const layout = await writeFolder();
    spoil(layout);
    const prefix = `spoiled-${Math.random().toString(36).slice(2, 8)}`;
    const r = await runCli(['mirror', '--images', '--from', layout, '--to', `${site.host}/${prefix}`], {
      cwd: repo,
      env: env(cache),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(error);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.includes('error[')),
    ).toHaveLength(1);
    expect(await tags(site, `${prefix}/cluster-api-controller`)).toEqual([]);
  });

  it('a tampered archive member is refused, naming it', async () => {
    const archive = await writeFolder('oci-archive');
    const bytes = readFileSync(archive);
    const layout = await writeFolder();
    const layer = readFileSync(layerOf(layout));
    const at = bytes.indexOf(layer);
    bytes[at + layer.length - 1]! ^= 1;
    writeFileSync(archive, bytes);
    const r = await runCli(['mirror', '--images', '--from', archive, '--to', `${site.host}/tampered-tar`], {
      cwd: repo,
      env: env(cache),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${archive}:blobs/sha256/${path.basename(layerOf(layout))}: the blob is not`);
  });

  it.each([
    {
      name: 'an existing non-empty folder',
      target: () => {
        const d = tempDir();
        writeFileSync(path.join(d, 'keep.txt'), 'mine');
        return d;
      },
      error: /error\[write\]: --to .* is a folder that is not empty/,
    },
    {
      name: 'a read-only location',
      target: () => '/sys/capi-render-images',
      error: /error\[write\]: cannot write \/sys\/capi-render-images: EPERM/,
    },
  ])('refuses to write into $name, changing nothing', async ({ target, error }) => {
    const to = target();
    const before = existsSync(to) ? snapshotTree(to) : undefined;
    const r = await runCli(['mirror', '--images', '--to', to], { cwd: repo, env: env(cache) });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(error);
    if (before) expect(snapshotTree(to)).toEqual(before);
  });

  it('refuses a target inside the output folder, as the release mirror does', async () => {
    const r = await runCli(['mirror', '--images', '--to', 'rendered/images'], { cwd: repo, env: env(cache) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('choose a folder of its own for the mirror, such as vendor/images');
    expect(existsSync(path.join(repo, 'rendered/images'))).toBe(false);
  });

  it('an interrupted run leaves no layout under the target name; the next run keeps the verified blobs and fetches a spoiled one again', async () => {
    const complete = await writeFolder();
    const parent = tempDir();
    const target = path.join(parent, 'images');
    // What a run killed while fetching leaves: the staging folder, one whole blob, one cut short.
    const staging = path.join(parent, '.images.capi-render-partial');
    const blobs = readdirSync(path.join(complete, 'blobs/sha256'));
    mkdirSync(path.join(staging, 'blobs/sha256'), { recursive: true });
    cpSync(path.join(complete, 'blobs/sha256', blobs[0]!), path.join(staging, 'blobs/sha256', blobs[0]!));
    writeFileSync(path.join(staging, 'blobs/sha256', blobs[1]!), 'cut');
    expect(existsSync(target)).toBe(false);
    const r = await runCli(['mirror', '--images', '--to', target], { cwd: repo, env: env(cache) });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\(\d+ blobs fetched, 1 already there\)/);
    expect(snapshotTree(target)).toEqual(snapshotTree(complete));
    expect(existsSync(staging)).toBe(false);
  });

  it.each([
    { format: [], step: 'blob:3' },
    { format: [], step: 'publish:1' },
    { format: ['--format', 'oci-archive'], step: 'blob:2' },
    { format: ['--format', 'oci-archive'], step: 'publish:1' },
    { format: ['--format', 'oci-archive'], step: 'archive:3' },
  ])(
    'killed at $step ($format): nothing under the target name; the next run finishes with the blobs already fetched',
    async ({ format, step }) => {
      const archive = format.length > 0;
      const complete = await writeFolder(archive ? 'oci-archive' : undefined);
      const target = path.join(tempDir(), archive ? 'images.tar' : 'images');
      const killed = spawnSync(process.execPath, [CLI, 'mirror', '--images', '--to', target, ...format], {
        cwd: repo,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, CAPI_RENDER_CACHE_DIR: cache, CAPI_RENDER_TEST_KILL_AT: step },
      });
      expect(killed.signal, killed.stderr).toBe('SIGKILL');
      expect(existsSync(target)).toBe(false);
      const again = await runCli(['mirror', '--images', '--to', target, ...format], { cwd: repo, env: env(cache) });
      expect(again.code, again.stderr).toBe(0);
      expect(again.stderr).toMatch(/ [1-9]\d* already there\)/);
      if (archive) expect(readFileSync(target)).toEqual(readFileSync(complete));
      else expect(snapshotTree(target)).toEqual(snapshotTree(complete));
      expect(readdirSync(path.dirname(target))).toEqual([path.basename(target)]);
    },
  );

  it.each([
    { args: ['--images', '--to', 'x', '--format', 'oci'], error: '--format must be one of oci-layout, oci-archive' },
    { args: ['--images', '--from', 'x'], error: '--images needs a REGISTRY/PREFIX, or --to DIR' },
    { args: ['--images', 'r.example/p', '--to', 'x'], error: '--images REGISTRY/PREFIX goes without --to' },
    { args: ['--to', 'x', '--format', 'oci-archive'], error: '(oci-archive goes with --images --to DIR)' },
    {
      args: ['--images', '--from', 'x', '--to', 'r.example/p', '--format', 'oci-archive'],
      error: '--format goes with --images --to DIR, not with --from',
    },
  ])('usage: mirror $args', async ({ args, error }) => {
    const r = await runCli(['mirror', ...args], { cwd: repo, env: env(cache) });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(error);
  });
});
