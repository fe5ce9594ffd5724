/**
 * The SBOM of a real environment, on this repository's own example: `capi-render sbom`
 * prints a CycloneDX 1.6 document that validates against the official schema and lists exactly the
 * release artifacts the lock records for the environment and the images `capi-render images` lists
 * (pinned by digest here, from digests seeded in the lock, so no registry is needed); the same bytes
 * on every run and in every timezone; `--out` writes like `report --out`. With `sbom: {write: true}`
 * the build writes `rendered/<env>/sbom.cdx.json` through its own plan: owned, checked by `check`,
 * repaired by the next build, removed when the setting goes, and never read by kustomize, Flux or
 * Argo CD.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import jsYaml from 'js-yaml';
import { PackageURL } from 'packageurl-js';
import { describe, expect, it } from 'vitest';
import type { CdxComponent, CdxDocument } from '../helpers/sbom-fixture.js';
import { runCli } from '../helpers/cli.js';
import { copyExample } from '../helpers/repo.js';
import { spdxProblems } from '../helpers/sbom-fixture.js';
import { tempDir } from '../helpers/tmp.js';

interface Lock {
  environments: {
    name: string;
    providers: { provider: string; source: string; version: string }[];
    images?: string[];
  }[];
  artifacts: { source: string; version: string; file: string; url: string; sha256: string }[];
  images?: { image: string; digest: string }[];
}
interface ImageList {
  environments: {
    environment: string;
    images: { reference: string; image: string; digest: string | null; pinned: boolean }[];
  }[];
}

const validate = (text: string) => new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
const readLock = (repo: string) => jsYaml.load(readFileSync(path.join(repo, 'capi-render.lock'), 'utf8')) as Lock;
const prop = (c: CdxComponent, name: string) => (c.properties ?? []).find((p) => p.name === name)?.value;
const flatten = (components: CdxComponent[]): CdxComponent[] =>
  components.flatMap((c) => [c, ...flatten(c.components ?? [])]);

/** A component's purl parsed by packageurl-js, after checking it round-trips (the library writes it back unchanged). */
function purlOf(c: CdxComponent): PackageURL {
  expect(c.purl, `${c.type} ${c.name} has a purl`).toEqual(expect.any(String));
  const parsed = PackageURL.fromString(c.purl!);
  expect(parsed.toString()).toBe(c.purl);
  return parsed;
}

/** `release file url sha256` of every artifact the lock records for `env`'s providers and cert-manager. */
function lockedArtifacts(lock: Lock, env: string): string[] {
  const entry = lock.environments.find((e) => e.name === env)!;
  return entry.providers
    .flatMap((p) =>
      lock.artifacts
        .filter((a) => a.source === p.source && a.version === p.version)
        .map((a) => `${p.version} ${a.file} ${a.url} ${a.sha256}`),
    )
    .sort();
}

/** The same, from the SBOM's release components and their nested files. */
function sbomArtifacts(doc: CdxDocument): string[] {
  return doc.components
    .filter((c) => c.type === 'application')
    .flatMap((r) =>
      (r.components ?? []).map((f) => {
        expect(f.type).toBe('file');
        expect(f.hashes).toHaveLength(1);
        expect(f.hashes![0]!.alg).toBe('SHA-256');
        expect(f.externalReferences!.map((x) => x.type)).toEqual(['distribution']);
        return `${r.version} ${f.name} ${f.externalReferences![0]!.url} ${f.hashes![0]!.content}`;
      }),
    )
    .sort();
}

async function imagesOf(repo: string, env: string, extra: string[] = []) {
  const listed = await runCli(['images', '--env', env, '--json', ...extra], { cwd: repo });
  expect(listed.code, listed.stderr).toBe(0);
  return (JSON.parse(listed.stdout) as ImageList).environments[0]!.images;
}

/** Every object `kubectl kustomize` builds from `dir`, as text. */
const kustomize = (dir: string) =>
  execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 256 << 20 });

/**
 * The example with imagePolicy.pinDigests and every image's digest seeded in the lock (made-up
 * digests: an offline build takes the lock's word and never asks a registry), built once.
 */
async function pinnedExample(extraConfig = ''): Promise<string> {
  const repo = copyExample({ committed: true });
  const images = [
    ...new Set([...(await imagesOf(repo, 'dev')), ...(await imagesOf(repo, 'prod'))].map((i) => i.image)),
  ].sort();
  appendFileSync(
    path.join(repo, 'capi-render.lock'),
    `images:\n${images.map((image) => `- image: ${image}\n  digest: sha256:${createHash('sha256').update(image).digest('hex')}\n`).join('')}`,
  );
  appendFileSync(path.join(repo, 'capi-render.yaml'), `imagePolicy:\n  pinDigests: true\n${extraConfig}`);
  const build = await runCli(['build', '--offline'], { cwd: repo });
  expect(build.code, build.stderr).toBe(0);
  return repo;
}

describe('capi-render sbom', () => {
  it('prints a valid CycloneDX 1.6 document listing exactly the locked artifacts and the pinned images of the environment', async () => {
    const repo = await pinnedExample();
    const out = await runCli(['sbom', '--env', 'dev', '--offline'], { cwd: repo });
    expect(out.code, out.stderr).toBe(0);
    expect(await validate(out.stdout)).toBeNull();
    const doc = JSON.parse(out.stdout) as CdxDocument;
    expect(doc.metadata.component.name).toBe('dev');
    expect(doc.metadata.tools.components.map((t) => t.name)).toEqual(['capi-render']);

    // Exactly the artifacts the lock pins for dev: four providers' components files and metadata.yaml, and cert-manager.yaml.
    const lock = readLock(repo);
    expect(sbomArtifacts(doc)).toEqual(lockedArtifacts(lock, 'dev'));
    expect(sbomArtifacts(doc)).toHaveLength(9);
    expect(
      doc.components
        .filter((c) => c.type === 'application')
        .map((c) => c.name)
        .sort(),
    ).toEqual(['bootstrap-kubeadm', 'cert-manager', 'cluster-api', 'control-plane-kubeadm', 'infrastructure-docker']);

    // Exactly the images of the output, each with the digest the lock pinned.
    const images = await imagesOf(repo, 'dev', ['--offline']);
    const containers = doc.components.filter((c) => c.type === 'container');
    expect(containers.map((c) => prop(c, 'capi-render:reference')).sort()).toEqual(
      images.map((i) => i.reference).sort(),
    );
    const locked = new Map(lock.images!.map((i) => [i.image, i.digest]));
    for (const image of images) {
      expect(image.pinned).toBe(true);
      const c = containers.find((x) => prop(x, 'capi-render:reference') === image.reference)!;
      const digest = locked.get(image.image)!;
      expect(c.hashes).toEqual([{ alg: 'SHA-256', content: digest.slice('sha256:'.length) }]);
      const [repository, tag] = [
        image.image.slice(0, image.image.lastIndexOf(':')),
        image.image.slice(image.image.lastIndexOf(':') + 1),
      ];
      expect({ ...purlOf(c) }).toMatchObject({
        type: 'oci',
        name: repository.slice(repository.lastIndexOf('/') + 1),
        version: digest,
        qualifiers: { repository_url: repository, tag },
      });
      expect(c).toMatchObject({ name: repository, version: tag });
    }
    expect(out.stderr).toContain('dev: 5 releases');

    // Every component has a purl: the example's releases come from a local repository, so generic
    // with the checksum of the components file the lock pins, and each release file likewise.
    for (const c of flatten(doc.components)) {
      const purl = purlOf(c);
      if (c.type === 'application') {
        const components = lock.artifacts.find(
          (a) => a.source === prop(c, 'capi-render:source') && a.version === c.version && a.file !== 'metadata.yaml',
        )!;
        expect({ ...purl }).toMatchObject({
          type: 'generic',
          name: c.name,
          version: c.version,
          qualifiers: { checksum: `sha256:${components.sha256}` },
        });
      }
      if (c.type === 'file')
        expect({ ...purl }).toMatchObject({
          type: 'generic',
          name: c.name,
          qualifiers: { checksum: `sha256:${c.hashes![0]!.content}` },
        });
    }
  });

  it('gives the same bytes on every run and in every timezone; an unpinned environment lists its images by tag, without digests', async () => {
    const repo = copyExample({ committed: true });
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'America/St_Johns';
      const first = await runCli(['sbom', '--env', 'prod', '--offline'], { cwd: repo });
      process.env.TZ = 'Asia/Kathmandu';
      const second = await runCli(['sbom', '--env', 'prod', '--offline'], { cwd: repo, env: { TZ: 'Asia/Kathmandu' } });
      expect(first.code, first.stderr).toBe(0);
      expect(second.stdout).toBe(first.stdout);
      expect(await validate(first.stdout)).toBeNull();
      // prod is not pinned: its images are listed by tag, with a purl without version and no hash, and the command says so.
      const doc = JSON.parse(first.stdout) as CdxDocument;
      const containers = doc.components.filter((c) => c.type === 'container');
      expect(containers.length).toBeGreaterThan(0);
      expect(containers.every((c) => c.hashes === undefined && prop(c, 'capi-render:pinned') === 'false')).toBe(true);
      for (const c of containers)
        expect({ ...purlOf(c) }).toMatchObject({ type: 'oci', version: undefined, qualifiers: { tag: c.version } });
      expect(containers.map((c) => prop(c, 'capi-render:reference')).sort()).toEqual(
        (await imagesOf(repo, 'prod', ['--offline'])).map((i) => i.reference).sort(),
      );
      expect(sbomArtifacts(doc)).toEqual(lockedArtifacts(readLock(repo), 'prod'));
      expect(first.stderr).toMatch(/by tag alone, without a digest: set imagePolicy\.pinDigests: true/);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('prints SPDX 2.3 with --format spdx: valid against the official schema, the same artifacts and images, the creation time from SOURCE_DATE_EPOCH', async () => {
    const repo = await pinnedExample();
    const out = await runCli(['sbom', '--env', 'dev', '--offline', '--format', 'spdx'], { cwd: repo });
    expect(out.code, out.stderr).toBe(0);
    expect(spdxProblems(out.stdout)).toEqual([]);
    const doc = JSON.parse(out.stdout) as {
      creationInfo: { created: string };
      packages: {
        SPDXID: string;
        name: string;
        versionInfo?: string;
        packageFileName?: string;
        downloadLocation: string;
        sourceInfo?: string;
        primaryPackagePurpose: string;
        checksums?: { checksumValue: string }[];
        comment?: string;
      }[];
    };
    expect(doc.creationInfo.created).toBe('1970-01-01T00:00:00Z');
    const files = doc.packages.filter((p) => p.primaryPackagePurpose === 'FILE');
    // Local-repository artifacts: no URL to download from, so the path is the source.
    expect(
      files
        .map(
          (f) =>
            `${f.versionInfo} ${f.packageFileName} ${f.sourceInfo!.replace(/^read from /, '')} ${f.checksums![0]!.checksumValue}`,
        )
        .sort(),
    ).toEqual(lockedArtifacts(readLock(repo), 'dev'));
    const images = await imagesOf(repo, 'dev', ['--offline']);
    const containers = doc.packages.filter((p) => p.primaryPackagePurpose === 'CONTAINER');
    expect(containers.map((c) => /^reference: (.*)$/m.exec(c.comment!)![1]).sort()).toEqual(
      images.map((i) => i.reference).sort(),
    );
    for (const c of containers) expect(c.checksums).toHaveLength(1);

    const again = await runCli(['sbom', '--env', 'dev', '--offline', '--format', 'spdx'], {
      cwd: repo,
      env: { TZ: 'Europe/Chatham' },
    });
    expect(again.stdout).toBe(out.stdout);
    const dated = await runCli(['sbom', '--env', 'dev', '--offline', '--format', 'spdx'], {
      cwd: repo,
      env: { SOURCE_DATE_EPOCH: '1767225600' },
    });
    expect((JSON.parse(dated.stdout) as { creationInfo: { created: string } }).creationInfo.created).toBe(
      '2026-01-01T00:00:00Z',
    );
    // --out recognises its own SPDX document too.
    const file = path.join(tempDir(), 'dev.spdx.json');
    expect(
      (await runCli(['sbom', '--env', 'dev', '--offline', '--format', 'spdx', '--out', file], { cwd: repo })).code,
    ).toBe(0);
    const replaced = await runCli(['sbom', '--env', 'dev', '--offline', '--format', 'spdx', '--out', file], {
      cwd: repo,
    });
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(out.stdout);
  });

  it('writes --out atomically, replaces its own SBOM, and refuses a foreign file, the output folder and a bad --format', async () => {
    const repo = copyExample({ committed: true });
    const outside = tempDir();
    const file = path.join(outside, 'dev.cdx.json');
    const first = await runCli(['sbom', '--env', 'dev', '--offline', '--out', file], { cwd: repo });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe('');
    expect(first.stderr).toMatch(/wrote .*dev\.cdx\.json/);
    const printed = await runCli(['sbom', '--env', 'dev', '--offline'], { cwd: repo });
    expect(readFileSync(file, 'utf8')).toBe(printed.stdout);
    const again = await runCli(['sbom', '--env', 'dev', '--offline', '--out', file], { cwd: repo });
    expect(again.code, again.stderr).toBe(0);

    const foreign = path.join(outside, 'notes.json');
    writeFileSync(foreign, '{"mine": true}\n');
    const refused = await runCli(['sbom', '--env', 'dev', '--offline', '--out', foreign], { cwd: repo });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('exists and is not an SBOM capi-render wrote');
    expect(readFileSync(foreign, 'utf8')).toBe('{"mine": true}\n');

    const inside = await runCli(['sbom', '--env', 'dev', '--offline', '--out', 'rendered/dev/sbom.json'], {
      cwd: repo,
    });
    expect(inside.code).toBe(2);
    expect(inside.stderr).toContain('is inside the outputDir output folder');

    const format = await runCli(['sbom', '--env', 'dev', '--format', 'cyclondx'], { cwd: repo });
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('did you mean "cyclonedx"?');
    const several = await runCli(['sbom', '--offline'], { cwd: repo });
    expect(several.code).toBe(2);
    expect(several.stderr).toContain('choose one environment with --env (dev, prod)');
  });
});

describe('sbom: {write: true}', () => {
  it('makes build write rendered/<env>/sbom.cdx.json, owned and checked like every rendered file, repaired and removed by later builds', async () => {
    const repo = await pinnedExample('sbom:\n  write: true\n');
    const file = path.join(repo, 'rendered/dev/sbom.cdx.json');
    const written = readFileSync(file, 'utf8');
    expect(await validate(written)).toBeNull();
    const printed = await runCli(['sbom', '--env', 'dev', '--offline'], { cwd: repo });
    expect(written, 'the build writes what `sbom` prints').toBe(printed.stdout);
    expect(existsSync(path.join(repo, 'rendered/prod/sbom.cdx.json'))).toBe(true);
    const owned = readFileSync(path.join(repo, 'rendered/.capi-render-owned'), 'utf8').split('\n');
    expect(owned).toContain('dev/sbom.cdx.json');
    expect(owned).toContain('prod/sbom.cdx.json');

    const check = await runCli(['check', '--offline'], { cwd: repo });
    expect(check.code, check.stderr + check.stdout).toBe(0);

    // A forced rebuild (another timezone) writes the same bytes.
    const tz = process.env.TZ;
    process.env.TZ = 'Australia/Lord_Howe';
    try {
      const rebuilt = await runCli(['build', '--offline', '--force'], { cwd: repo });
      expect(rebuilt.code, rebuilt.stderr).toBe(0);
      expect(readFileSync(file, 'utf8')).toBe(written);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }

    // A hand edit is drift, and the next build repairs it.
    writeFileSync(file, written.replace('"specVersion": "1.6"', '"specVersion": "1.5"'));
    const drift = await runCli(['check', '--offline'], { cwd: repo });
    expect(drift.code).toBe(1);
    expect(drift.stdout + drift.stderr).toContain('rendered/dev/sbom.cdx.json');
    const repair = await runCli(['build', '--offline'], { cwd: repo });
    expect(repair.code, repair.stderr).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(written);

    // A deleted one is missing.
    rmSync(file);
    const missing = await runCli(['check', '--offline'], { cwd: repo });
    expect(missing.code).toBe(1);
    expect(missing.stdout + missing.stderr).toContain('rendered/dev/sbom.cdx.json');
    expect((await runCli(['build', '--offline'], { cwd: repo })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(written);

    // Turning the setting off removes the files the build owned.
    const config = path.join(repo, 'capi-render.yaml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('sbom:\n  write: true\n', ''));
    const off = await runCli(['build', '--offline'], { cwd: repo });
    expect(off.code, off.stderr).toBe(0);
    expect(existsSync(file)).toBe(false);
    expect(readFileSync(path.join(repo, 'rendered/.capi-render-owned'), 'utf8')).not.toContain('sbom.cdx.json');
    expect((await runCli(['check', '--offline'], { cwd: repo })).code).toBe(0);
  });

  it('is never applied: kustomize builds the same objects with it, and every Flux and Argo CD path is a folder whose kustomization.yaml lists its resources', async () => {
    const repo = copyExample({ committed: true });
    appendFileSync(path.join(repo, 'capi-render.yaml'), 'sbom:\n  write: true\n');
    const build = await runCli(['build', '--offline'], { cwd: repo });
    expect(build.code, build.stderr).toBe(0);
    for (const env of ['dev', 'prod']) {
      const dir = path.join(repo, 'rendered', env);
      expect(existsSync(path.join(dir, 'sbom.cdx.json'))).toBe(true);
      const without = path.join(tempDir(), env);
      mkdirSync(without);
      cpSync(dir, without, { recursive: true });
      rmSync(path.join(without, 'sbom.cdx.json'));
      const built = kustomize(dir);
      expect(built).toBe(kustomize(without));
      expect(built).not.toContain('CycloneDX');
      expect(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8')).not.toContain('sbom');
    }
    // Flux (dev) applies component folders; Argo CD (prod) the environment folder: each has a kustomization.yaml, so neither generates one over *.json.
    const fluxPaths = (
      jsYaml.loadAll(readFileSync(path.join(repo, 'gitops/flux/dev/flux-kustomizations.yaml'), 'utf8')) as {
        kind: string;
        spec: { path: string };
      }[]
    )
      .filter((d) => d?.kind === 'Kustomization')
      .map((d) => d.spec.path);
    const app = jsYaml.load(readFileSync(path.join(repo, 'gitops/argocd/applications/prod.yaml'), 'utf8')) as {
      spec: { source: { path: string } };
    };
    const consumerPaths = [...fluxPaths, app.spec.source.path];
    expect(fluxPaths.length).toBeGreaterThan(0);
    for (const p of consumerPaths) expect(existsSync(path.join(repo, p, 'kustomization.yaml')), p).toBe(true);
  });
});
