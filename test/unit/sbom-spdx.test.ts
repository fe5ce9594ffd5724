/**
 * The SPDX 2.3 SBOM of an environment (`sbom --format spdx`), from the same fixture as the
 * CycloneDX tests: valid against the official SPDX 2.3 JSON schema (vendored with provenance in
 * test/fixtures/spdx), the same releases, artifacts and images, linked by relationships, and
 * deterministic (creation time from SOURCE_DATE_EPOCH or the epoch, a content-derived namespace).
 */
import { describe, expect, it } from 'vitest';
import { environmentSbom } from '../../src/sbom/environment-sbom.js';
import { DIGEST_CORE, hex, sbomFixture, spdxProblems } from '../helpers/sbom-fixture.js';

interface SpdxPackage {
  SPDXID: string;
  name: string;
  versionInfo?: string;
  downloadLocation: string;
  sourceInfo?: string;
  packageFileName?: string;
  primaryPackagePurpose: string;
  checksums?: { algorithm: string; checksumValue: string }[];
  externalRefs?: { referenceCategory: string; referenceType: string; referenceLocator: string }[];
  comment?: string;
}
interface SpdxDocument {
  spdxVersion: string;
  dataLicense: string;
  SPDXID: string;
  name: string;
  documentNamespace: string;
  creationInfo: { created: string; creators: string[] };
  packages: SpdxPackage[];
  relationships: { spdxElementId: string; relationshipType: string; relatedSpdxElement: string }[];
}

const spdx = (extra: Record<string, unknown> = {}, sourceDateEpoch?: string) =>
  environmentSbom(sbomFixture(extra), 'spdx', { sourceDateEpoch });

describe('SPDX SBOM of an environment', () => {
  it('validates against the official SPDX 2.3 JSON schema, and the check is not vacuous', () => {
    expect(spdxProblems(spdx())).toEqual([]);
    const broken = JSON.parse(spdx()) as SpdxDocument;
    broken.packages[0]!.primaryPackagePurpose = 'SERVICE';
    expect(spdxProblems(JSON.stringify(broken)).length).toBeGreaterThan(0);
    const dangling = JSON.parse(spdx()) as SpdxDocument;
    dangling.relationships[0]!.relatedSpdxElement = 'SPDXRef-nothing';
    expect(spdxProblems(JSON.stringify(dangling))).toEqual(['relationship names unknown SPDXRef-nothing']);
  });

  it('has the document header: SPDX-2.3, CC0-1.0, capi-render as the creating tool, a deterministic creation time and namespace', () => {
    const doc = JSON.parse(spdx()) as SpdxDocument;
    expect(doc).toMatchObject({
      spdxVersion: 'SPDX-2.3',
      dataLicense: 'CC0-1.0',
      SPDXID: 'SPDXRef-DOCUMENT',
      name: 'capi-render-prod',
    });
    expect(doc.creationInfo.creators).toEqual([expect.stringMatching(/^Tool: capi-render-\d+\.\d+\.\d+/)]);
    expect(doc.creationInfo.created).toBe('1970-01-01T00:00:00Z');
    expect(doc.documentNamespace).toMatch(
      /^https:\/\/spdx\.org\/spdxdocs\/capi-render-prod-[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect((JSON.parse(spdx({}, '1767225600')) as SpdxDocument).creationInfo.created).toBe('2026-01-01T00:00:00Z');
    expect(
      (JSON.parse(spdx({}, 'yesterday')) as SpdxDocument).creationInfo.created,
      'an invalid SOURCE_DATE_EPOCH is ignored',
    ).toBe('1970-01-01T00:00:00Z');
  });

  it('lists the releases, exactly their artifacts (URL or source, SHA256) and the images, linked by relationships', () => {
    const doc = JSON.parse(spdx()) as SpdxDocument;
    const byId = new Map(doc.packages.map((p) => [p.SPDXID, p]));
    const related = (from: string, type: string) =>
      doc.relationships
        .filter((r) => r.spdxElementId === from && r.relationshipType === type)
        .map((r) => byId.get(r.relatedSpdxElement)!);
    const [environment] = related('SPDXRef-DOCUMENT', 'DESCRIBES');
    expect(environment!.name).toBe('prod');
    const releases = related(environment!.SPDXID, 'CONTAINS');
    expect(releases.map((r) => `${r.name}@${r.versionInfo}`).sort()).toEqual([
      'cert-manager@v1.19.4',
      'cluster-api@v1.12.0',
      'infrastructure-docker@v1.12.0',
    ]);

    const source = sbomFixture();
    const expected = [
      ...source.providers.flatMap((p) => p.artifacts.map((a) => ({ release: p.label, ...a }))),
      { release: 'cert-manager', ...source.certManager!.artifact },
    ];
    const artifacts = releases.flatMap((r) => related(r.SPDXID, 'CONTAINS').map((a) => ({ release: r.name, a })));
    expect(artifacts.map(({ release, a }) => `${release} ${a.packageFileName}`).sort()).toEqual(
      expected.map((e) => `${e.release} ${e.file}`).sort(),
    );
    for (const e of expected) {
      const { a } = artifacts.find((x) => x.release === e.release && x.a.packageFileName === e.file)!;
      expect(a.primaryPackagePurpose).toBe('FILE');
      expect(a.checksums).toEqual([{ algorithm: 'SHA256', checksumValue: e.sha256 }]);
      if (e.url.startsWith('https://')) expect(a.downloadLocation).toBe(e.url);
      else expect(a).toMatchObject({ downloadLocation: 'NOASSERTION', sourceInfo: `read from ${e.url}` });
    }
    const core = releases.find((r) => r.name === 'cluster-api')!;
    expect(core.externalRefs).toEqual([
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: 'pkg:github/kubernetes-sigs/cluster-api@v1.12.0',
      },
    ]);

    const images = doc.packages.filter((p) => p.primaryPackagePurpose === 'CONTAINER');
    expect(images).toHaveLength(4);
    const [coreImage] = related(core.SPDXID, 'DEPENDS_ON');
    expect(coreImage).toMatchObject({
      name: 'registry.k8s.io/cluster-api/cluster-api-controller',
      versionInfo: 'v1.12.0',
      checksums: [{ algorithm: 'SHA256', checksumValue: hex('1') }],
    });
    expect(coreImage!.externalRefs).toEqual([
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: `pkg:oci/cluster-api-controller@sha256:${hex('1')}?repository_url=registry.k8s.io%2Fcluster-api%2Fcluster-api-controller&tag=v1.12.0`,
      },
    ]);
    expect(coreImage!.comment).toContain(
      `reference: registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0@${DIGEST_CORE}`,
    );
    expect(images.find((i) => i.name === 'busybox')!.checksums).toBeUndefined();
    const docker = releases.find((r) => r.name === 'infrastructure-docker')!;
    expect(docker.externalRefs).toEqual([
      {
        referenceCategory: 'PACKAGE-MANAGER',
        referenceType: 'purl',
        referenceLocator: `pkg:generic/infrastructure-docker@v1.12.0?checksum=sha256%3A${hex('c')}`,
      },
    ]);
    const [localFile] = related(docker.SPDXID, 'CONTAINS').filter((a) => a.packageFileName === 'metadata.yaml');
    expect(localFile!.externalRefs![0]!.referenceLocator, 'a local path is no download_url').toBe(
      `pkg:generic/infrastructure-docker/metadata.yaml@v1.12.0?checksum=sha256%3A${hex('d')}`,
    );
  });

  it('notes how an image was verified', () => {
    const text = spdx({
      imageVerifications: {
        'registry.k8s.io/cluster-api/cluster-api-controller:v1.12.0': {
          rule: 'registry.k8s.io/cluster-api/*',
          method: 'keyless',
          identity: 'krel-trust@k8s-releng-prod.iam.gserviceaccount.com',
          issuer: 'https://accounts.google.com',
        },
      },
    });
    expect(spdxProblems(text)).toEqual([]);
    const core = (JSON.parse(text) as SpdxDocument).packages.find((p) => p.name.endsWith('cluster-api-controller'))!;
    expect(core.comment).toContain(
      'verified by: registry.k8s.io/cluster-api/*\nverification method: keyless\nverified identity: krel-trust@k8s-releng-prod.iam.gserviceaccount.com\nverified issuer: https://accounts.google.com',
    );
  });

  it('is deterministic in any timezone and order, and a change gives a new namespace', () => {
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'UTC';
      const first = spdx();
      process.env.TZ = 'Asia/Kolkata';
      expect(spdx()).toBe(first);
      const reordered = sbomFixture();
      reordered.providers = [...reordered.providers].reverse();
      expect(environmentSbom(reordered, 'spdx')).toBe(first);
      const changed = sbomFixture();
      changed.certManager!.artifact.sha256 = hex('9');
      const ns = (t: string) => (JSON.parse(t) as SpdxDocument).documentNamespace;
      expect(ns(environmentSbom(changed, 'spdx'))).not.toBe(ns(first));
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });
});
