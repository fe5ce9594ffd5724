/**
 * cluster-api's proposed OCI layout (PR #14033) end to end against a real registry (Debian's
 * docker-registry on 127.0.0.1), with skopeo as the independent client: `mirror --format oci
 * --oci-layout cluster-api` pushes it, skopeo reads it back (manifest, annotations, files
 * byte-identical to the release), a repository renders from it through `oci://` provider URLs (a
 * CR's fetchConfig.url and a capi-render.yaml `providers:` entry) exactly what the local repository
 * renders, the lock records manifest digests and file sha256s, `--offline` re-renders from the cache
 * with the registry gone, and a re-pushed (tampered) tag fails the lock check.
 */
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { CORE, makeRepo, snapshotTree } from '../helpers/repo.js';
import { skopeoReadBack, skopeoUnavailableReason } from '../helpers/skopeo.js';
import { FIXTURES, REPO_ROOT, fixtureText } from '../helpers/fixtures.js';
import { startForwardProxy, startTlsFront } from '../helpers/forward-proxy.js';
import { suiteTempDir, tempDir } from '../helpers/tmp.js';
import { packProviderArtifact, pushProviderArtifact } from '../../src/publish/provider-artifact.js';

const unavailable = registryUnavailableReason() ?? skopeoUnavailableReason();
if (unavailable && !process.env.CI) console.warn(`\n!!! SKIPPING the cluster-api OCI layout tests: ${unavailable}\n`);

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const CORE_FILE = fixtureText('repository/cluster-api/v1.12.0/core-components.yaml');
const DOCKER_FILE = fixtureText('repository/infrastructure-docker/v1.12.0/infrastructure-components-development.yaml');
const DOCKER = (extra = '') =>
  `apiVersion: operator.cluster.x-k8s.io/v1alpha2\nkind: InfrastructureProvider\nmetadata:\n  name: docker\n  namespace: capd-system\nspec:\n  version: v1.12.0\n${extra}`;

/** A repository with the local fixtures: the reference output, and what mirror pushes. */
function localRepo(dir?: string): string {
  return makeRepo({ 'providers/core.yaml': CORE(), 'providers/docker.yaml': DOCKER() }, dir);
}

/**
 * A repository reading both providers from `oci://` URLs — core from its CR's fetchConfig.url, docker
 * from a `providers:` entry (clusterctl's list, as the proposal's Story 3 overrides it) — and only
 * cert-manager from a local repository.
 */
function ociRepo(host: string, coreUrl = `oci://${host}/capi/manifests/core-cluster-api`): string {
  const certManagerOnly = tempDir();
  cpSync(path.join(FIXTURES, 'repository/cert-manager'), path.join(certManagerOnly, 'cert-manager'), {
    recursive: true,
  });
  const config = [
    'apiVersion: capi-render/v1alpha1',
    'kind: Config',
    'certManager:\n  version: v1.19.4',
    `repositories:\n  - path: ${certManagerOnly}`,
    `providers:\n  - name: docker\n    type: InfrastructureProvider\n    url: oci://${host}/capi/manifests/infrastructure-docker`,
    '',
  ].join('\n');
  return makeRepo({
    'capi-render.yaml': config,
    'providers/core.yaml': CORE('v1.12.0', 'capi-system', `  fetchConfig:\n    url: ${coreUrl}\n`),
    'providers/docker.yaml': DOCKER(),
  });
}

/** Builds the local repository in `dir` (cache in `cache`) and mirrors it to `host`. */
async function mirrorTo(host: string, dir: string, cache: string): Promise<{ local: string; pushed: string }> {
  const local = localRepo(dir);
  const env = { CAPI_RENDER_CACHE_DIR: cache };
  const built = await runCli(['build'], { cwd: local, env });
  expect(built.code, built.stderr).toBe(0);
  const pushed = await runCli(
    ['mirror', '--format', 'oci', '--oci-layout', 'cluster-api', '--to', `http://${host}/capi/manifests`],
    { cwd: local, env },
  );
  expect(pushed.code, pushed.stderr).toBe(0);
  return { local, pushed: pushed.stderr };
}

describe.skipIf(unavailable !== undefined && !process.env.CI)(
  'cluster-api OCI layout: mirror → skopeo → oci:// source',
  () => {
    let registry: TestRegistry;
    let local: string;
    let pushed: string;
    const suite = suiteTempDir();
    beforeAll(async () => {
      registry = await startRegistry();
      mkdirSync(path.join(suite, 'local'));
      ({ local, pushed } = await mirrorTo(registry.host, path.join(suite, 'local'), path.join(suite, 'cache')));
    });
    afterAll(async () => {
      await registry?.stop();
    });

    it('pushes <prefix>/{type}-{name}:<version>, which skopeo reads as the proposal lays it out', () => {
      const digests = Object.fromEntries(
        [
          ...pushed.matchAll(
            /pushed http:\/\/127\.0\.0\.1:\d+\/capi\/manifests\/([a-z-]+):v1\.12\.0 \((sha256:[0-9a-f]{64})\)/g,
          ),
        ].map((m) => [m[1], m[2]]),
      );
      expect(Object.keys(digests).sort()).toEqual(['core-cluster-api', 'infrastructure-docker']);
      const cases = [
        {
          repository: 'core-cluster-api',
          type: 'core',
          name: 'cluster-api',
          files: { 'core-components.yaml': CORE_FILE },
        },
        {
          repository: 'infrastructure-docker',
          type: 'infrastructure',
          name: 'docker',
          files: { 'infrastructure-components-development.yaml': DOCKER_FILE },
        },
      ];
      for (const c of cases) {
        const back = skopeoReadBack(registry.host, `capi/manifests/${c.repository}`, 'v1.12.0');
        expect(back.digest).toBe(digests[c.repository]);
        expect(back.manifest.mediaType).toBe('application/vnd.oci.image.manifest.v1+json');
        expect(back.manifest.artifactType).toBeUndefined();
        expect(back.manifest.layers.map((l: { mediaType: string }) => l.mediaType)).toEqual([
          'application/vnd.oci.image.layer.v1.tar+gzip',
        ]);
        expect(back.manifest.annotations).toEqual({
          'cluster-api.sigs.k8s.io/provider-name': c.name,
          'cluster-api.sigs.k8s.io/provider-type': c.type,
          'org.opencontainers.image.source': 'https://github.com/kubernetes-sigs/cluster-api',
          'org.opencontainers.image.title': c.repository,
          'org.opencontainers.image.version': 'v1.12.0',
        });
        // NFR1 of the proposal: the files are byte for byte the release's.
        const label = c.type === 'core' ? 'cluster-api' : 'infrastructure-docker';
        expect(Object.fromEntries(back.unpack(back.manifest.layers[0].digest))).toEqual({
          'metadata.yaml': fixtureText(`repository/${label}/v1.12.0/metadata.yaml`),
          ...c.files,
        });
      }
    });

    it('renders from oci:// URLs what the local repository renders, locking manifest digests and file sha256s', async () => {
      const repo = ociRepo(registry.host);
      const built = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(built.code, built.stderr).toBe(0);
      expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(snapshotTree(path.join(local, 'rendered')));
      const lock = readFileSync(path.join(repo, 'capi-render.lock'), 'utf8');
      const core = skopeoReadBack(registry.host, 'capi/manifests/core-cluster-api', 'v1.12.0').digest;
      expect(lock).toContain(`source: oci:${registry.host}/capi/manifests/core-cluster-api#core-cluster-api\n`);
      expect(lock).toContain(
        `url: oci://${registry.host}/capi/manifests/core-cluster-api@${core}#core-components.yaml\n  sha256: ${sha256(CORE_FILE)}`,
      );
      expect(lock).toMatch(
        new RegExp(
          `url: oci://${registry.host}/capi/manifests/infrastructure-docker@sha256:[0-9a-f]{64}#infrastructure-components-development.yaml\\n  sha256: ${sha256(DOCKER_FILE)}`,
        ),
      );
    });

    it("pins an artifact by digest (oci://…@sha256:…), and reads it through the operator's fetchConfig.oci too", async () => {
      const core = skopeoReadBack(registry.host, 'capi/manifests/core-cluster-api', 'v1.12.0').digest;
      const pinned = ociRepo(registry.host, `oci://${registry.host}/capi/manifests/core-cluster-api@${core}`);
      const built = await runCli(['build'], { cwd: pinned, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(built.code, built.stderr).toBe(0);
      expect(snapshotTree(path.join(pinned, 'rendered'))).toEqual(snapshotTree(path.join(local, 'rendered')));

      const viaOperatorField = makeRepo({
        'providers/core.yaml': CORE(
          'v1.12.0',
          'capi-system',
          `  fetchConfig:\n    oci: http://${registry.host}/capi/manifests/core-cluster-api:v1.12.0\n`,
        ),
        'providers/docker.yaml': DOCKER(),
      });
      const read = await runCli(['build'], { cwd: viaOperatorField, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(read.code, read.stderr).toBe(0);
      expect(snapshotTree(path.join(viaOperatorField, 'rendered'))).toEqual(snapshotTree(path.join(local, 'rendered')));
    });

    it("reads the operator's layout through oci:// too, and resolves a range from the tags", async () => {
      const env = { CAPI_RENDER_CACHE_DIR: path.join(suite, 'cache') };
      const mirrored = await runCli(['mirror', '--format', 'oci', '--to', `http://${registry.host}/capi/operator`], {
        cwd: local,
        env,
      });
      expect(mirrored.code, mirrored.stderr).toBe(0);
      const repo = ociRepo(registry.host, `oci://${registry.host}/capi/operator/cluster-api`);
      const ranged = path.join(repo, 'providers/core.yaml');
      writeFileSync(ranged, readFileSync(ranged, 'utf8').replace('version: v1.12.0', 'version: ~1.12'));
      const built = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(built.code, built.stderr).toBe(0);
      expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(snapshotTree(path.join(local, 'rendered')));
      expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toContain(`/capi/operator/cluster-api@`);
      expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toContain(
        '#core-cluster-api-v1.12.0-components.yaml',
      );
    });

    it("refuses an artifact whose annotations name another provider (the proposal's consumer check)", async () => {
      const wrong = ociRepo(registry.host, `oci://${registry.host}/capi/manifests/infrastructure-docker`);
      const built = await runCli(['build'], { cwd: wrong, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(built.code).toBe(1);
      expect(built.stderr).toContain('does not conform to the cluster-api artifact contract');
      expect(built.stderr).toContain(
        'org.opencontainers.image.title is "infrastructure-docker", expected "core-cluster-api"',
      );
      // Only the provider whose URL is wrong fails: docker reads the same repository as its own.
      expect(built.stderr).not.toContain('providers/docker.yaml');

      // Through fetchConfig.oci the operator's file names apply: the release's development file is none of them.
      const viaOperatorField = makeRepo({
        'providers/core.yaml': CORE(),
        'providers/docker.yaml': DOCKER(
          `  fetchConfig:\n    oci: http://${registry.host}/capi/manifests/infrastructure-docker:v1.12.0\n`,
        ),
      });
      const missing = await runCli(['build'], { cwd: viaOperatorField, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(missing.code).toBe(1);
      expect(missing.stderr).toContain(
        'collected artifact needs to provide components as infrastructure-docker-v1.12.0-components.yaml or infrastructure-components.yaml or components.yaml file',
      );
      expect(missing.stderr).toContain('the artifact has: infrastructure-components-development.yaml, metadata.yaml');
    });

    it('fails the lock check when the tag is re-pushed with other content', async () => {
      const repo = ociRepo(registry.host);
      expect((await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } })).code).toBe(0);
      const tampered = packProviderArtifact({
        identity: { type: 'core', name: 'cluster-api', version: 'v1.12.0' },
        source: 'https://github.com/kubernetes-sigs/cluster-api',
        files: [
          {
            name: 'metadata.yaml',
            bytes: new TextEncoder().encode(fixtureText('repository/cluster-api/v1.12.0/metadata.yaml')),
          },
          { name: 'core-components.yaml', bytes: new TextEncoder().encode(`${CORE_FILE}# one more line\n`) },
        ],
      });
      const [host, port] = registry.host.split(':');
      await pushProviderArtifact(
        { registry: `${host}:${port}`, repository: 'capi/manifests/core-cluster-api', tag: 'v1.12.0', plainHttp: true },
        tampered,
        undefined,
      );
      const checked = await runCli(['check'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(checked.code).toBe(1);
      expect(checked.stderr).toContain('error[digest-mismatch]');
    });
  },
);

describe.skipIf(unavailable !== undefined && !process.env.CI)(
  'cluster-api OCI layout: --offline from the cache',
  () => {
    it('re-renders with the registry gone from a warm cache, and names what a cold one lacks', async () => {
      const registry = await startRegistry();
      let local: string;
      const cache = tempDir();
      let repo: string;
      try {
        ({ local } = await mirrorTo(registry.host, tempDir(), tempDir()));
        repo = ociRepo(registry.host);
        const built = await runCli(['build'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
        expect(built.code, built.stderr).toBe(0);
      } finally {
        await registry.stop();
      }
      rmSync(path.join(repo, 'rendered'), { recursive: true, force: true });
      const offline = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: cache } });
      expect(offline.code, offline.stderr).toBe(0);
      expect(snapshotTree(path.join(repo, 'rendered'))).toEqual(snapshotTree(path.join(local, 'rendered')));
      const cold = await runCli(['build', '--offline'], { cwd: repo, env: { CAPI_RENDER_CACHE_DIR: tempDir() } });
      expect(cold.code).toBe(1);
      expect(cold.stderr).toContain('error[offline]');
    });
  },
);

describe.skipIf(unavailable !== undefined && !process.env.CI)(
  'cluster-api OCI layout: oci:// through HTTPS_PROXY',
  () => {
    const HOST = 'manifests.registry.test';
    it('reaches an https:// registry through the proxy (CONNECT), as every other source does', async () => {
      const registry = await startRegistry();
      const front = await startTlsFront({ [HOST]: `http://${registry.host}` });
      const proxy = await startForwardProxy((host, port) =>
        host === HOST && port === 443 ? { host: '127.0.0.1', port: front.port } : undefined,
      );
      try {
        const [host, port] = registry.host.split(':');
        const artifact = packProviderArtifact({
          identity: { type: 'core', name: 'cluster-api', version: 'v1.12.0' },
          source: 'https://github.com/kubernetes-sigs/cluster-api',
          files: [
            {
              name: 'metadata.yaml',
              bytes: new TextEncoder().encode(fixtureText('repository/cluster-api/v1.12.0/metadata.yaml')),
            },
            { name: 'core-components.yaml', bytes: new TextEncoder().encode(CORE_FILE) },
          ],
        });
        await pushProviderArtifact(
          {
            registry: `${host}:${port}`,
            repository: 'capi/manifests/core-cluster-api',
            tag: 'v1.12.0',
            plainHttp: true,
          },
          artifact,
          undefined,
        );
        const repo = makeRepo({
          'capi-render.yaml': 'apiVersion: capi-render/v1alpha1\nkind: Config\ncertManager:\n  install: false\n',
          'providers/core.yaml': CORE(
            'v1.12.0',
            'capi-system',
            `  fetchConfig:\n    url: oci://${HOST}/capi/manifests/core-cluster-api\n`,
          ),
        });
        // Its own process: NODE_EXTRA_CA_CERTS is read at start-up (the built CLI, as proxy.test.ts runs it).
        const cli = path.join(REPO_ROOT, 'dist/bin/capi-render.js');
        expect(existsSync(cli), `${cli} is missing: npm run build first`).toBe(true);
        // Asynchronously: the registry, the TLS front and the proxy answer from this process.
        const child = spawn(process.execPath, [cli, 'build'], {
          cwd: repo,
          env: {
            PATH: process.env.PATH,
            HOME: tempDir(),
            CAPI_RENDER_CACHE_DIR: tempDir(),
            NODE_EXTRA_CA_CERTS: front.certFile,
            HTTPS_PROXY: proxy.url,
          },
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        let stderr = '';
        child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
        const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
        expect(status, stderr).toBe(0);
        expect(stderr).toContain('rendered default: cluster-api v1.12.0');
        expect(proxy.requests.length).toBeGreaterThan(0);
        expect(proxy.requests.every((q) => q.method === 'CONNECT' && q.target === `${HOST}:443`)).toBe(true);
        expect(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')).toContain(
          `url: oci://${HOST}/capi/manifests/core-cluster-api@${artifact.manifestDigest}#core-components.yaml`,
        );
      } finally {
        await Promise.all([proxy.close(), front.close(), registry.stop()]);
      }
    });
  },
);
