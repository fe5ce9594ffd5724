/**
 * The CycloneDX 1.6 SBOM of an environment, from an EnvironmentResult-like fixture: it
 * validates against the official 1.6 schema with the CycloneDX library's own strict JSON validator
 * (the schemas ship with the library: offline), lists exactly the fixture's release artifacts and
 * images, with purls (every source kind: sbom-purl.test.ts), hashes, URLs, verification properties and
 * dependencies, and is deterministic.
 */
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import { describe, expect, it } from 'vitest';
import type { CdxComponent, CdxDocument } from '../helpers/sbom-fixture.js';
import { contentUuid, cyclonedxText } from '../../src/sbom/cyclonedx.js';
import { environmentSbom } from '../../src/sbom/environment-sbom.js';
import { withSbomFile } from '../../src/sbom/sbom-output.js';
import { sbomSubject } from '../../src/sbom/sbom-subject.js';
import { DIGEST_CM, DIGEST_CORE, DIGEST_SHIPPED, hex, sbomFixture as fixture } from '../helpers/sbom-fixture.js';

const props = (c: CdxComponent, name: string) =>
  (c.properties ?? []).filter((p) => p.name === name).map((p) => p.value);

async function validate(text: string) {
  return new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(text);
}

describe('CycloneDX SBOM of an environment', () => {
  it("validates against the official CycloneDX 1.6 schema (the library's strict validator)", async () => {
    const text = environmentSbom(fixture());
    expect(await validate(text)).toBeNull();
    // The validator does reject what the schema forbids: the check is not vacuous.
    const broken = JSON.parse(text) as CdxDocument;
    broken.components[0]!.hashes = [{ alg: 'SHA-256', content: `sha256:${hex('1')}` }];
    expect(await validate(JSON.stringify(broken))).not.toBeNull();
  });

  it('has the document shape: spec 1.6, a content serial number, no timestamp, capi-render as the tool, the environment as the subject', () => {
    const doc = JSON.parse(cyclonedxText(sbomSubject(fixture()), { version: '9.8.7' })) as CdxDocument;
    expect(doc.bomFormat).toBe('CycloneDX');
    expect(doc.specVersion).toBe('1.6');
    expect(doc.version).toBe(1);
    expect(doc.serialNumber).toMatch(/^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(doc.metadata.timestamp).toBeUndefined();
    expect(doc.metadata.lifecycles).toEqual([{ phase: 'build' }]);
    expect(doc.metadata.tools.components).toEqual([
      expect.objectContaining({
        type: 'application',
        name: 'capi-render',
        version: '9.8.7',
        purl: 'pkg:npm/capi-render@9.8.7',
      }),
    ]);
    expect(doc.metadata.component).toMatchObject({ type: 'application', name: 'prod', 'bom-ref': 'environment:prod' });
    expect(props(doc.metadata.component, 'capi-render:gitops-flavour')).toEqual(['argocd']);
  });

  it('lists every release with exactly its artifacts: URL as a distribution reference, bare-hex SHA-256, purls', () => {
    const doc = JSON.parse(environmentSbom(fixture())) as CdxDocument;
    const releases = doc.components.filter((c) => c.type === 'application');
    expect(releases.map((r) => `${r.name}@${r.version}`).sort()).toEqual([
      'cert-manager@v1.19.4',
      'cluster-api@v1.12.0',
      'infrastructure-docker@v1.12.0',
    ]);
    const files = releases.flatMap((r) =>
      (r.components ?? []).map((f) => ({
        release: r.name,
        type: f.type,
        file: f.name,
        hashes: f.hashes,
        refs: f.externalReferences,
      })),
    );
    const source = fixture();
    const expected = [
      ...source.providers.flatMap((p) => p.artifacts.map((a) => ({ release: p.label, ...a }))),
      { release: 'cert-manager', ...source.certManager!.artifact },
    ];
    expect(files.map((f) => `${f.release} ${f.file}`).sort()).toEqual(
      expected.map((a) => `${a.release} ${a.file}`).sort(),
    );
    for (const a of expected) {
      const f = files.find((x) => x.release === a.release && x.file === a.file)!;
      expect(f.type).toBe('file');
      expect(f.hashes).toEqual([{ alg: 'SHA-256', content: a.sha256 }]);
      expect(f.refs).toEqual([expect.objectContaining({ type: 'distribution', url: a.url })]);
    }
    const core = releases.find((r) => r.name === 'cluster-api')!;
    expect(core.purl).toBe('pkg:github/kubernetes-sigs/cluster-api@v1.12.0');
    expect(props(core, 'capi-render:provider')).toEqual(['CoreProvider/capi-system/cluster-api']);
    expect(props(core, 'capi-render:contract')).toEqual(['v1beta2']);
    expect(props(core, 'capi-render:source')).toEqual(['github:kubernetes-sigs/cluster-api']);
    expect(releases.find((r) => r.name === 'cert-manager')!.purl).toBe('pkg:github/cert-manager/cert-manager@v1.19.4');
    expect(
      releases.find((r) => r.name === 'infrastructure-docker')!.purl,
      'a local repository: generic, by checksum',
    ).toBe(`pkg:generic/infrastructure-docker@v1.12.0?checksum=sha256%3A${hex('c')}`);
    expect(core.components!.find((f) => f.name === 'metadata.yaml')!.purl).toBe(
      `pkg:generic/cluster-api/metadata.yaml@v1.12.0?checksum=sha256%3A${hex('b')}&download_url=https%3A%2F%2Fgithub.com%2Fkubernetes-sigs%2Fcluster-api%2Freleases%2Fdownload%2Fv1.12.0%2Fmetadata.yaml`,
    );
  });

  it('lists every image of the output once as a pkg:oci purl, with its digest as the version and hash; tag-only images without either', () => {
    const doc = JSON.parse(environmentSbom(fixture())) as CdxDocument;
    const images = doc.components.filter((c) => c.type === 'container');
    expect(images.map((i) => props(i, 'capi-render:reference')[0]).sort()).toEqual(
      [
        'busybox:1.36',
        `quay.io/jetstack/cert-manager-controller:v1.19.4@${DIGEST_CM}`,
        `registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0@${DIGEST_CORE}`,
        `registry.lab:5000/capd-manager@${DIGEST_SHIPPED}`,
      ].sort(),
    );
    const core = images.find((i) => i.name === 'registry.k8s.io/cluster-api/cluster-api-controller')!;
    expect(core.version).toBe('v1.12.0');
    expect(core.purl).toBe(
      `pkg:oci/cluster-api-controller@sha256:${hex('1')}?repository_url=registry.k8s.io%2Fcluster-api%2Fcluster-api-controller&tag=v1.12.0`,
    );
    expect(core.hashes).toEqual([{ alg: 'SHA-256', content: hex('1') }]);
    expect(props(core, 'capi-render:pinned')).toEqual(['true']);
    expect(props(core, 'capi-render:used-by')).toEqual([
      'Deployment/capi-system/capi-controller-manager container "c0"',
    ]);
    const shipped = images.find((i) => i.name === 'registry.lab:5000/capd-manager')!;
    expect(shipped.purl).toBe(
      `pkg:oci/capd-manager@sha256:${hex('3')}?repository_url=registry.lab%3A5000%2Fcapd-manager`,
    );
    expect(shipped.version).toBe(DIGEST_SHIPPED);
    expect(props(shipped, 'capi-render:pinned'), 'shipped with a digest, not pinned by the build').toEqual(['false']);
    const tagOnly = images.find((i) => i.name === 'busybox')!;
    expect(tagOnly).toMatchObject({ version: '1.36' });
    expect(tagOnly.purl, 'the repository and tag, no version').toBe(
      'pkg:oci/busybox?repository_url=docker.io%2Flibrary%2Fbusybox&tag=1.36',
    );
    expect(tagOnly.hashes).toBeUndefined();
  });

  it('links the environment to its releases and each release to the images its folders run', () => {
    const doc = JSON.parse(environmentSbom(fixture())) as CdxDocument;
    const deps = new Map(doc.dependencies.map((d) => [d.ref, d.dependsOn ?? []]));
    expect(deps.get('environment:prod')).toEqual([
      'cert-manager',
      'provider:CoreProvider/capi-system/cluster-api',
      'provider:InfrastructureProvider/capd-system/docker',
    ]);
    expect(deps.get('cert-manager')).toEqual([
      'image:busybox:1.36',
      `image:quay.io/jetstack/cert-manager-controller:v1.19.4@${DIGEST_CM}`,
    ]);
    expect(deps.get('provider:CoreProvider/capi-system/cluster-api')).toEqual([
      `image:registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0@${DIGEST_CORE}`,
    ]);
  });

  it('records how each image was verified when the render result has imageVerifications, and nothing otherwise', async () => {
    const verified = fixture({
      imageVerifications: {
        'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0': {
          rule: 'registry.k8s.io/cluster-api/*',
          method: 'keyless',
          identity: 'krel-trust@k8s-releng-prod.iam.gserviceaccount.com',
          issuer: 'https://accounts.google.com',
        },
        'quay.io/jetstack/cert-manager-controller:v1.19.4': { rule: 'quay.io/jetstack/*', method: 'key' },
        'ignored.example/x:1': 'not an object',
      },
    });
    const text = environmentSbom(verified);
    expect(await validate(text)).toBeNull();
    const images = (JSON.parse(text) as CdxDocument).components.filter((c) => c.type === 'container');
    const core = images.find((i) => i.name.endsWith('cluster-api-controller'))!;
    expect(props(core, 'capi-render:verified-by')).toEqual(['registry.k8s.io/cluster-api/*']);
    expect(props(core, 'capi-render:verification-method')).toEqual(['keyless']);
    expect(props(core, 'capi-render:verified-identity')).toEqual([
      'krel-trust@k8s-releng-prod.iam.gserviceaccount.com',
    ]);
    expect(props(core, 'capi-render:verified-issuer')).toEqual(['https://accounts.google.com']);
    const cm = images.find((i) => i.name.endsWith('cert-manager-controller'))!;
    expect(props(cm, 'capi-render:verified-by')).toEqual(['quay.io/jetstack/*']);
    expect(props(cm, 'capi-render:verified-identity')).toEqual([]);
    expect(
      props(
        images.find((i) => i.name === 'busybox')!,
        'capi-render:verified-by',
      ),
    ).toEqual([]);
    const plain = (JSON.parse(environmentSbom(fixture())) as CdxDocument).components.flatMap((c) => c.properties ?? []);
    expect(plain.some((p) => p.name.startsWith('capi-render:verif'))).toBe(false);
  });

  it('is deterministic: the same input gives the same bytes, in any timezone and order; any change gives a new serial number', () => {
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const first = environmentSbom(fixture());
      process.env.TZ = 'Pacific/Kiritimati';
      const second = environmentSbom(fixture());
      expect(second).toBe(first);
      const reordered = fixture();
      reordered.providers = [...reordered.providers].reverse();
      reordered.pinnedImages = [...reordered.pinnedImages].reverse();
      expect(environmentSbom(reordered)).toBe(first);
      const changed = fixture();
      changed.providers[0]!.artifacts[0]!.sha256 = hex('f');
      const serial = (t: string) => (JSON.parse(t) as CdxDocument).serialNumber;
      expect(serial(environmentSbom(changed))).not.toBe(serial(first));
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('makes RFC 9562 version 8 UUIDs from content', () => {
    expect(contentUuid('a')).toBe(contentUuid('a'));
    expect(contentUuid('a')).not.toBe(contentUuid('b'));
    expect(contentUuid('')).toMatch(/^urn:uuid:e3b0c442-98fc-8c14-9afb-f4c8996fb924$/);
  });

  it("is planned as <env>/sbom.cdx.json among the environment's files, in path order", () => {
    const files = new Map([
      ['prod/cluster-api/kustomization.yaml', 'a'],
      ['prod/kustomization.yaml', 'b'],
    ]);
    const planned = withSbomFile(files, fixture());
    expect([...planned.keys()]).toEqual([
      'prod/cluster-api/kustomization.yaml',
      'prod/kustomization.yaml',
      'prod/sbom.cdx.json',
    ]);
    expect(planned.get('prod/sbom.cdx.json')).toBe(environmentSbom(fixture()));
  });
});
