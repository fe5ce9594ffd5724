/**
 * The capi-render image, built for real from this repository with the command the release runs
 * before it pushes the layout (scripts/build-oci-image.sh for linux/amd64 and linux/arm64: Debian
 * packages extracted by mmdebstrap and pinned by digest, Node.js from the npm registry's
 * node-linux-<arch> package, the packed tarball of this checkout), then the amd64 image run the way
 * the Argo CD sidecar runs it: its layers unpacked in manifest order (digests checked),
 * `capi-render cmp-generate` started in that filesystem with unshare + chroot as uid 999, root
 * filesystem read-only, no network, only /tmp (the repository copy) and /cache writable. Its stdout
 * must be rendered/prod. Needs root, mmdebstrap, umoci, skopeo, unshare and chroot: skipped with a
 * warning without them, failed in CI.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { requireCurrentDist } from '../helpers/built-dist.js';
import { REPO_ROOT } from '../helpers/fixtures.js';
import { copyExample } from '../helpers/repo.js';
import { firstMissing, rootMissing, skipWithout, toolMissing } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';

const skipImage = skipWithout(
  firstMissing(
    rootMissing('mounts, chroot and a uid-999 process need it'),
    toolMissing('mmdebstrap', 'apt-get install mmdebstrap'),
    toolMissing('umoci', 'apt-get install umoci'),
    toolMissing('skopeo', 'apt-get install skopeo'),
    toolMissing('unshare', 'apt-get install util-linux'),
    toolMissing('chroot', 'apt-get install coreutils'),
    toolMissing('tar', 'apt-get install tar'),
  ),
  'the image test (build and run the capi-render image)',
);

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

interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** Reads an OCI layout the way a registry client would: index → image index → the platform's manifest → config and layers, every blob digest-checked. */
function readLayout(layout: string, tag: string, arch: string) {
  const blob = (d: Descriptor) => {
    const bytes = readFileSync(path.join(layout, 'blobs', ...d.digest.split(':')));
    expect(`sha256:${createHash('sha256').update(bytes).digest('hex')}`).toBe(d.digest);
    expect(bytes.length).toBe(d.size);
    return bytes;
  };
  const index = JSON.parse(readFileSync(path.join(layout, 'index.json'), 'utf8')) as { manifests: Descriptor[] };
  const entry = index.manifests.find((m) => m.annotations?.['org.opencontainers.image.ref.name'] === tag);
  expect(entry, `tag ${tag} in ${layout}/index.json`).toBeDefined();
  expect(entry!.mediaType).toBe('application/vnd.oci.image.index.v1+json');
  const platforms = (
    JSON.parse(blob(entry!).toString('utf8')) as { manifests: (Descriptor & { platform: { architecture: string } })[] }
  ).manifests;
  expect(platforms.map((m) => m.platform.architecture)).toEqual(['amd64', 'arm64']);
  const chosen = platforms.find((m) => m.platform.architecture === arch)!;
  const manifest = JSON.parse(blob(chosen).toString('utf8')) as {
    mediaType: string;
    config: Descriptor;
    layers: Descriptor[];
  };
  const config = JSON.parse(blob(manifest.config).toString('utf8')) as {
    architecture: string;
    os: string;
    config: {
      User?: string;
      Env?: string[];
      Entrypoint?: string[];
      WorkingDir?: string;
      Labels?: Record<string, string>;
    };
    rootfs: { diff_ids: string[] };
  };
  return { manifest, manifestType: chosen.mediaType, config, blob };
}

describe.skipIf(skipImage)('the capi-render image, built and run here', () => {
  it('is built from the packed tarball as an OCI layout, and cmp-generate inside it (uid 999, read-only root, no network) prints rendered/prod', () => {
    const dir = tempDir('capi-render-image-');
    const version = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string })
      .version;
    // The tarball `npm publish` would upload, of the dist/ `npm test` built before the tests run.
    requireCurrentDist();
    const packed = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', dir], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
    })
      .trim()
      .split('\n')
      .pop()!;
    const tarball = path.join(dir, packed);
    const layout = path.join(dir, 'layout');
    const started = Date.now();
    const built = spawnSync(
      path.join(REPO_ROOT, 'scripts/build-oci-image.sh'),
      ['--tarball', tarball, '--out', layout, '--platforms', 'linux/amd64,linux/arm64'],
      { cwd: REPO_ROOT, encoding: 'utf8' },
    );
    expect(built.status, built.stderr).toBe(0);
    const buildMs = Date.now() - started;

    // What a registry would receive: an image manifest, its config, three gzip layers.
    const { manifest, manifestType, config, blob } = readLayout(layout, version, 'amd64');
    expect(manifestType).toBe('application/vnd.oci.image.manifest.v1+json');
    expect(manifest.layers.map((l) => l.mediaType)).toEqual(
      Array(3).fill('application/vnd.oci.image.layer.v1.tar+gzip'),
    );
    expect(config.rootfs.diff_ids).toHaveLength(3);
    expect([config.os, config.architecture]).toEqual(['linux', 'amd64']);
    expect(config.config.User).toBe('999:999');
    expect(config.config.Entrypoint).toEqual(['capi-render']);
    expect(config.config.Labels?.['org.opencontainers.image.version']).toBe(version);

    // Unpacked in manifest order (our layers carry no whiteouts; a runtime would apply them).
    const unpackStarted = Date.now();
    const rootfs = path.join(dir, 'rootfs');
    mkdirSync(rootfs);
    for (const layer of manifest.layers) {
      blob(layer);
      const names = execFileSync(
        'tar',
        [
          '-xzvf',
          path.join(layout, 'blobs', ...layer.digest.split(':')),
          '-C',
          rootfs,
          '--numeric-owner',
          '--same-owner',
          '--same-permissions',
        ],
        { encoding: 'utf8', maxBuffer: 64 << 20 },
      );
      expect(names).not.toMatch(/(^|\/)\.wh\./m);
    }
    const unpackMs = Date.now() - unpackStarted;
    expect(existsSync(path.join(rootfs, 'usr/local/lib/node_modules/capi-render/package.json'))).toBe(true);
    // No shell and no package manager: the sidecar runs an exec-form command.
    for (const absent of ['bin/sh', 'bin/bash', 'bin/dash', 'usr/bin/dpkg', 'usr/bin/apt-get', 'usr/local/bin/npm'])
      expect(existsSync(path.join(rootfs, absent)), absent).toBe(false);
    // The arm64 image shares the capi-render layer and runs an aarch64 Node.js (ELF machine 183).
    const arm = readLayout(layout, version, 'arm64');
    expect(arm.config.architecture).toBe('arm64');
    expect(arm.manifest.layers[2]!.digest).toBe(manifest.layers[2]!.digest);
    const armNode = execFileSync(
      'tar',
      ['-xzOf', path.join(layout, 'blobs', ...arm.manifest.layers[1]!.digest.split(':')), 'usr/local/bin/node'],
      { maxBuffer: 512 << 20 },
    );
    expect(armNode.readUInt16LE(18)).toBe(183);

    // The repo-server's copy of the repository (owned by the sidecar's user), and the cache volume.
    const work = path.join(dir, 'tmp-volume');
    const app = path.join(work, '_cmp_server', '4711');
    mkdirSync(app, { recursive: true });
    copyExample({ committed: true, dir: app });
    const cache = path.join(dir, 'cache-volume');
    mkdirSync(cache);
    execFileSync('chown', ['-R', '999:999', work, cache]);

    const script = [
      'set -eu',
      'R="$1"',
      'mount --make-rprivate /',
      'mount --bind "$R" "$R"',
      'mount -o remount,bind,ro "$R"',
      'mount -t proc proc "$R/proc"',
      'mount -t tmpfs -o mode=0755,size=1m tmpfs "$R/dev"',
      'for d in null zero random urandom; do touch "$R/dev/$d"; mount --bind "/dev/$d" "$R/dev/$d"; done',
      'mount --bind "$2" "$R/tmp"',
      'mount --bind "$3" "$R/cache"',
      // The evidence: no interface but a down loopback, and a root filesystem nobody can write (the
      // image has no shell: each probe is one command in it).
      'tail -n +3 "$R/proc/net/dev" | cut -d: -f1 | tr -d " " >&2',
      'chroot --userspec=999:999 "$R" /usr/bin/id -u >&2',
      'if chroot --userspec=999:999 "$R" /usr/bin/touch /probe 2>/dev/null; then echo "root filesystem is writable" >&2; exit 9; fi',
      'exec chroot --userspec=999:999 "$R" /usr/bin/env -i -C /tmp/_cmp_server/4711 PATH=/usr/local/bin:/usr/bin:/bin HOME=/home/capi-render TMPDIR=/tmp CAPI_RENDER_CACHE_DIR=/cache ARGOCD_ENV_CAPI_ENV=prod ARGOCD_APP_NAME=capi-prod ARGOCD_APP_SOURCE_PATH=. capi-render cmp-generate',
    ].join('\n');
    const runStarted = Date.now();
    const run = spawnSync(
      'unshare',
      ['--mount', '--net', '--pid', '--fork', '--ipc', '--uts', 'sh', '-c', script, 'sh', rootfs, work, cache],
      { encoding: 'utf8', maxBuffer: 64 << 20 },
    );
    const runMs = Date.now() - runStarted;
    const [interfaces, uid] = run.stderr.split('\n');
    expect(run.status, run.stderr).toBe(0);
    expect(interfaces).toBe('lo');
    expect(uid).toBe('999');
    const expected = streamOfFolder(path.join(REPO_ROOT, 'rendered/prod'));
    expect(run.stdout.length).toBeGreaterThan(1000);
    expect(run.stdout === expected, 'cmp-generate in the image prints exactly rendered/prod').toBe(true);
    // It wrote only to its volumes: the cache filled, the repository copy untouched.
    expect(readdirSync(cache).length).toBeGreaterThan(0);
    console.info(
      `image ${version}: layers ${manifest.layers.map((l) => `${(l.size / 1e6).toFixed(1)} MB`).join(' + ')}; build ${buildMs} ms, unpack ${unpackMs} ms, cmp-generate prod ${runMs} ms (${run.stdout.length} bytes, identical to rendered/prod)`,
    );
  }, 180_000);
});
