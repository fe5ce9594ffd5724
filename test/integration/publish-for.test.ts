/**
 * `capi-render publish --for flux|argocd` through a real registry (Debian's docker-registry on
 * 127.0.0.1), read back with skopeo — a client that shares no code with capi-render — and, for Argo
 * CD, the whole digest flow: publish prints the digest, the overlay pins it
 * (`gitops.argocd.source: oci`, `oci.digest`), build writes the Application with the `oci://`
 * source at that digest, and publishing the commit that pins it gives the same digest again.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import jsYaml from 'js-yaml';
import { filesUnder } from '../helpers/repo.js';
import { ARTIFACT_MEDIA_TYPES, type ArtifactTarget } from '../../src/publish/flux-artifact.js';
import { buildDelivery } from '../../src/report/delivery.js';
import { argocdFleetFiles, argocdSource } from '../../src/gitops/argocd-applications.js';
import { resolveGitopsOptions } from '../../src/gitops/options.js';
import { packagePath } from '../../src/package-files.js';
import { readTextFileSync } from '../../src/gitops/templates.js';
import { copyExample } from '../helpers/repo.js';
import { git, gitEnv, initRepo } from '../helpers/git.js';
import { registryUnavailableReason, startRegistry, type TestRegistry } from '../helpers/registry.js';
import { skipWithout } from '../helpers/requirements.js';
import { tempDir } from '../helpers/tmp.js';
import { consumerSchemaProblems } from '../helpers/consumer-schemas.js';
import { runCli } from '../helpers/cli.js';

const SKOPEO = '/usr/bin/skopeo';
const unavailable =
  registryUnavailableReason() ?? (existsSync(SKOPEO) ? undefined : `${SKOPEO} is missing (apt-get install skopeo)`);
const skipRegistry = skipWithout(unavailable, 'the publish --for tests');
const REMOTE = 'https://github.com/example/capi-render-example.git';
const DIGEST = /^sha256:[a-f0-9]{64}$/;

function checkout(): { repo: string; env: Record<string, string> } {
  const home = tempDir();
  const repo = copyExample({ committed: true });
  const env = { ...gitEnv(home), CAPI_RENDER_CACHE_DIR: path.join(home, 'cache') };
  initRepo(repo, env);
  git(repo, env, 'remote', 'add', 'origin', REMOTE);
  return { repo, env };
}

function skopeo(...args: string[]): string {
  const r = spawnSync(SKOPEO, ['--insecure-policy', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', HOME: tempDir() },
  });
  if (r.status !== 0) throw new Error(`skopeo ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** Reads the artifact back with skopeo alone: its manifest (digest recomputed here), config and the unpacked layer. */
function readBack(
  host: string,
  repository: string,
  tag: string,
): { digest: string; manifest: any; config: any; files: Map<string, string> } {
  const image = `docker://${host}/${repository}:${tag}`;
  const raw = skopeo('inspect', '--raw', '--tls-verify=false', image);
  const config = JSON.parse(skopeo('inspect', '--config', '--raw', '--tls-verify=false', image));
  // `dir:` keeps every blob as the registry serves it, named by its digest's hex.
  const copied = path.join(tempDir(), 'copy');
  skopeo('copy', '--src-tls-verify=false', '--preserve-digests', image, `dir:${copied}`);
  const manifest = JSON.parse(raw);
  const layerFile = path.join(copied, manifest.layers[0].digest.slice('sha256:'.length));
  const unpacked = path.join(tempDir(), 'unpacked');
  mkdirSync(unpacked);
  const tar = spawnSync('tar', ['-xzf', layerFile, '-C', unpacked], { encoding: 'utf8' });
  if (tar.status !== 0) throw new Error(tar.stderr);
  return {
    digest: `sha256:${createHash('sha256').update(raw).digest('hex')}`,
    manifest,
    config,
    files: filesUnder(unpacked),
  };
}

describe.skipIf(skipRegistry)('publish --for flux|argocd through a real registry, read back with skopeo', () => {
  let registry: TestRegistry;
  beforeAll(async () => {
    registry = await startRegistry();
  });
  afterAll(async () => registry?.stop());

  it.each<{ target: ArtifactTarget; env: string; config: string; layer: string }>([
    {
      target: 'flux',
      env: 'dev',
      config: 'application/vnd.cncf.flux.config.v1+json',
      layer: 'application/vnd.cncf.flux.content.v1.tar+gzip',
    },
    {
      target: 'argocd',
      env: 'prod',
      config: 'application/vnd.oci.image.config.v1+json',
      layer: 'application/vnd.oci.image.layer.v1.tar+gzip',
    },
  ])(
    "--for $target ($env): the controller's media types, one layer equal to rendered/$env, a digest stable across two publishes",
    async ({ target, env: name, config, layer }) => {
      const { repo, env } = checkout();
      const commit = git(repo, env, 'rev-parse', 'HEAD');
      const args = [
        'publish',
        '--env',
        name,
        '--for',
        target,
        '--oci',
        `http://${registry.host}/capi-${target}/${name}:v1`,
      ];
      const first = await runCli(args, { cwd: repo, env });
      expect(first.code, first.stderr).toBe(0);
      const digest = first.stdout.trim();
      expect(digest).toMatch(DIGEST);
      expect(first.stderr).toContain(`pin it: set gitops.${target}.oci.digest: ${digest}`);

      const back = readBack(registry.host, `capi-${target}/${name}`, 'v1');
      expect(back.digest).toBe(digest);
      expect(back.manifest).toMatchObject({
        schemaVersion: 2,
        mediaType: 'application/vnd.oci.image.manifest.v1+json',
        config: { mediaType: config },
      });
      expect(back.manifest.layers.map((l: { mediaType: string }) => l.mediaType)).toEqual([layer]);
      expect(ARTIFACT_MEDIA_TYPES[target]).toEqual({ config, layer });
      expect(back.manifest.annotations).toEqual({
        'org.opencontainers.image.revision': `main@sha1:${commit}`,
        'org.opencontainers.image.source': REMOTE,
      });
      expect(back.config.rootfs.diff_ids).toHaveLength(1);
      expect(back.files).toEqual(filesUnder(path.join(repo, 'rendered', name)));

      const again = await runCli(
        [...args.slice(0, -1), `http://${registry.host}/capi-${target}/${name}:v2`, '--json'],
        { cwd: repo, env },
      );
      expect(again.code, again.stderr).toBe(0);
      expect(JSON.parse(again.stdout)).toMatchObject({ digest, for: target, mediaTypes: { config, layer } });
      expect(readBack(registry.host, `capi-${target}/${name}`, 'v2').digest).toBe(digest);
    },
    120_000,
  );

  it('the two targets differ only in media types: same layer bytes, different manifest digests', async () => {
    const { repo, env } = checkout();
    const named = (t: string) => [
      'publish',
      '--env',
      'dev',
      '--for',
      t,
      '--oci',
      `http://${registry.host}/capi-both/dev:${t}`,
      '--json',
    ];
    const flux = JSON.parse((await runCli(named('flux'), { cwd: repo, env })).stdout);
    const argocd = JSON.parse((await runCli(named('argocd'), { cwd: repo, env })).stdout);
    expect(argocd.layerDigest).toBe(flux.layerDigest);
    expect(argocd.diffId).toBe(flux.diffId);
    expect(argocd.digest).not.toBe(flux.digest);
    const bad = await runCli(
      ['publish', '--env', 'dev', '--for', 'helm', '--oci', `http://${registry.host}/capi-both/dev:x`],
      { cwd: repo, env },
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--for must be flux or argocd, not "helm"/);
  }, 120_000);

  it('the Argo CD digest flow: publish prints it, the overlay pins it, build writes the oci:// Application at it, and the pinned commit publishes the same content', async () => {
    const { repo, env } = checkout();
    const repository = `${registry.host}/capi`;
    const published = await runCli(
      ['publish', '--env', 'prod', '--for', 'argocd', '--oci', `http://${repository}/prod:v1`],
      { cwd: repo, env },
    );
    expect(published.code, published.stderr).toBe(0);
    const digest = published.stdout.trim();

    const overlay = path.join(repo, 'overlays/prod/overlay.yaml');
    writeFileSync(
      overlay,
      readFileSync(overlay, 'utf8').replace(
        '    targetRevision: main\n',
        `    targetRevision: main\n    source: oci\n    oci:\n      repository: ${repository}\n      digest: ${digest}\n`,
      ),
    );
    const built = await runCli(['build'], { cwd: repo, env });
    expect(built.code, built.stderr).toBe(0);
    expect(built.stderr).not.toContain('gitops.argocd.oci.digest');
    // The overlay, the Application and the lock's record of the inputs change; rendered/ — the artifact's content — does not.
    const changed = git(repo, env, 'status', '--porcelain')
      .split('\n')
      .map((l) => l.slice(3));
    expect(changed).toContain('gitops/argocd/applications/prod.yaml');
    expect(changed.filter((f) => f.startsWith('rendered/'))).toEqual([]);
    const application = jsYaml.load(
      readFileSync(path.join(repo, 'gitops/argocd/applications/prod.yaml'), 'utf8'),
    ) as any;
    expect(application.spec.source).toEqual({ repoURL: `oci://${repository}/prod`, targetRevision: digest, path: '.' });
    expect(application.spec.sourceHydrator).toBeUndefined();
    expect(consumerSchemaProblems(application)).toEqual([]);

    git(repo, env, 'commit', '-qam', 'pin prod');
    const republished = await runCli(
      ['publish', '--env', 'prod', '--for', 'argocd', '--oci', `http://${repository}/prod:v2`],
      { cwd: repo, env },
    );
    expect(republished.code, republished.stderr).toBe(0);
    // The revision annotation names the new commit, so the digest is that of the new commit's artifact; the content is the same.
    const [a, b] = [readBack(registry.host, 'capi/prod', 'v1'), readBack(registry.host, 'capi/prod', 'v2')];
    expect(b.files).toEqual(a.files);
    expect(b.manifest.layers).toEqual(a.manifest.layers);
  }, 180_000);
});

describe('the Argo CD OCI source', () => {
  const DIGEST_VALUE = `sha256:${'cd'.repeat(32)}`;
  const resolved = (oci: { repository?: string; digest?: string; tag?: string } | undefined, more = {}) =>
    resolveGitopsOptions({
      flavour: 'argocd',
      argocd: {
        application: true,
        source: 'oci',
        ...(oci ? { oci } : {}),
        destination: { name: 'mgmt-prod' },
        ...more,
      },
    });

  it('is oci://<repository>/<env> at path ., pinned by the digest, else the tag', () => {
    expect(argocdSource('prod', resolved({ repository: 'ghcr.io/acme/capi', digest: DIGEST_VALUE }).argocd)).toEqual({
      source: { repoURL: 'oci://ghcr.io/acme/capi/prod', targetRevision: DIGEST_VALUE, path: '.' },
      sourceHydrator: null,
    });
    expect(
      argocdSource('prod', resolved({ repository: 'ghcr.io/acme/capi', tag: 'stable' }).argocd).source,
    ).toMatchObject({ targetRevision: 'stable' });
  });

  it("the ApplicationSet carries each environment's digest in its element", () => {
    const templates = { userDir: undefined, bundledDir: packagePath('bundled-templates'), read: readTextFileSync };
    const member = (name: string, digest: string, server: string) => ({
      name,
      options: resolveGitopsOptions({
        flavour: 'argocd',
        argocd: {
          applicationSet: true,
          source: 'oci',
          oci: { repository: 'ghcr.io/acme/capi', digest },
          destination: { server },
        },
      }),
    });
    const other = `sha256:${'ef'.repeat(32)}`;
    const [[, text]] = argocdFleetFiles(
      [member('dev', DIGEST_VALUE, 'https://dev.example:6443'), member('prod', other, 'https://prod.example:6443')],
      templates,
    ) as [[string, string]];
    const set = jsYaml.load(text) as any;
    expect(set.spec.generators[0].list.elements.map((e: any) => [e.env, e.targetRevision])).toEqual([
      ['dev', DIGEST_VALUE],
      ['prod', other],
    ]);
    expect(set.spec.template.spec.source).toEqual({
      repoURL: 'oci://ghcr.io/acme/capi/{{.env}}',
      targetRevision: '{{.targetRevision}}',
      path: '.',
    });
    expect(consumerSchemaProblems(set)).toEqual([]);
    const moved = member('prod', other, 'https://prod.example:6443');
    moved.options.argocd.oci = { repository: 'registry.example/other', digest: other };
    expect(() => argocdFleetFiles([member('dev', DIGEST_VALUE, 'https://dev.example:6443'), moved], templates)).toThrow(
      /set gitops\.argocd\.oci\.repository differently/,
    );
  });

  it('the delivery card shows the artifact and the pinned digest, or says how to pin it', () => {
    const pinned = buildDelivery('prod', {
      options: resolved({ repository: 'ghcr.io/acme/capi', digest: DIGEST_VALUE }),
      outputDir: 'rendered',
    });
    expect(pinned).toMatchObject({ controller: 'Argo CD', mode: 'oci', digest: DIGEST_VALUE, note: [] });
    expect(pinned.facts.map((f) => `${f.label}: ${f.value}`)).toEqual([
      'controller: Argo CD',
      'destination: mgmt-prod',
      'source: oci',
      'artifact: oci://ghcr.io/acme/capi/prod',
      `pinned digest: ${DIGEST_VALUE}`,
      'Application: capi-prod',
    ]);
    const following = buildDelivery('prod', {
      options: resolved({ repository: 'ghcr.io/acme/capi' }),
      outputDir: 'rendered',
    });
    expect(following.digest).toBe('');
    expect(following.facts.find((f) => f.label === 'pinned digest')).toMatchObject({
      value: 'none',
      note: 'follows the tag latest',
    });
    expect(following.note.map((s) => s.text).join('')).toContain('gitops.argocd.oci.digest');
  });
});
