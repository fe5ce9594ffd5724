/**
 * Every component of both SBOMs carries a package URL a scanner can match (src/sbom/purl.ts), and
 * every purl parses back with the package-url project's own library to what it says.
 *
 * Releases: one table row or more per kind of release source the code defines
 * (RELEASE_SOURCE_KINDS) — a kind without rows fails here (and the Record type fails the type check)
 * until its purl is decided. Each row's source is made by the source's own factory, so its id is the
 * one a build locks; local and ConfigMap rows read their real fixture release through the source.
 * Images: with and without a tag, with and without a digest.
 */
import { createHash } from 'node:crypto';
import { Spec, Validation } from '@cyclonedx/cyclonedx-library';
import jsYaml from 'js-yaml';
import { PackageURL } from 'packageurl-js';
import { describe, expect, it } from 'vitest';
import type { JsonObject, KubeObject, ReleaseSource } from 'capi-render';
import { environmentSbom } from '../../src/sbom/environment-sbom.js';
import { RELEASE_PURLS } from '../../src/sbom/purl.js';
import type { SbomArtifact, SbomSource } from '../../src/sbom/sbom-subject.js';
import { createConfigMapSource } from '../../src/source/configmap-source.js';
import { createGitHubClient, createGitHubSource } from '../../src/source/github/github-source.js';
import {
  createGitLabClient,
  createGitLabSource,
  gitLabFileUrl,
  parseGitLabPackageUrl,
} from '../../src/source/gitlab/gitlab-source.js';
import { createLocalRepositorySource } from '../../src/source/local-repository.js';
import { createOciSource } from '../../src/source/oci/oci-source.js';
import { createOciUrlSource } from '../../src/source/oci/oci-url-source.js';
import { RELEASE_SOURCE_KINDS, releaseSourceKind, type ReleaseSourceKind } from '../../src/source/release-source.js';
import type { CdxComponent, CdxDocument } from '../helpers/sbom-fixture.js';
import { FIXTURES, fixtureText } from '../helpers/fixtures.js';
import { sbomFixture, spdxProblems } from '../helpers/sbom-fixture.js';

const VERSION = 'v1.12.0';
const CORE = fixtureText(`repository/cluster-api/${VERSION}/core-components.yaml`);
const METADATA = fixtureText(`repository/cluster-api/${VERSION}/metadata.yaml`);
const sha256 = (text: string | Uint8Array) => createHash('sha256').update(text).digest('hex');
/** A manifest digest for the OCI rows (made up: no registry here; the purl takes it from the source's id or artifact URLs). */
const MANIFEST = `sha256:${sha256(`manifest of ${CORE}`)}`;

/** The purl's fields as the library parses them. */
interface Fields {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers?: Record<string, string>;
}

interface Release {
  sourceId: string;
  artifacts: SbomArtifact[];
}

interface SourceCase {
  title: string;
  release: () => Promise<Release>;
  expected: Fields;
}

/** The components file and metadata.yaml of v1.12.0 at the URLs a remote source of `id` reports. */
function remoteRelease(source: ReleaseSource, url: (file: string) => string): Release {
  return {
    sourceId: source.id,
    artifacts: [
      { file: 'core-components.yaml', url: url('core-components.yaml'), sha256: sha256(CORE) },
      { file: 'metadata.yaml', url: url('metadata.yaml'), sha256: sha256(METADATA) },
    ],
  };
}

/** Reads the release through the source itself, as a build does. */
async function readRelease(source: ReleaseSource, componentsFile: string): Promise<Release> {
  const artifacts: SbomArtifact[] = [];
  for (const file of [componentsFile, 'metadata.yaml']) {
    const artifact = await source.readFile(VERSION, file);
    artifacts.push({ file, url: artifact.url, sha256: sha256(artifact.bytes) });
  }
  return { sourceId: source.id, artifacts };
}

const github = (owner: string, repo: string, webHost?: string) =>
  createGitHubSource(createGitHubClient(), { owner, repo, ...(webHost ? { webHost } : {}) });
const gitlab = (url: string) => {
  const pkg = parseGitLabPackageUrl(url);
  return {
    source: createGitLabSource(createGitLabClient(), pkg),
    url: (file: string) => gitLabFileUrl(pkg, VERSION, file),
  };
};
const configMap = jsYaml.load(fixtureText('configmaps/core-cluster-api-v1.12.0.yaml'), {
  schema: jsYaml.CORE_SCHEMA,
}) as JsonObject;

const CASES: Record<ReleaseSourceKind, SourceCase[]> = {
  github: [
    {
      title: 'a github.com release: owner and repository lowercased, the tag',
      release: async () =>
        remoteRelease(
          github('Kubernetes-SIGs', 'cluster-api'),
          (f) => `https://github.com/kubernetes-sigs/cluster-api/releases/download/${VERSION}/${f}`,
        ),
      expected: { type: 'github', namespace: 'kubernetes-sigs', name: 'cluster-api', version: VERSION },
    },
    {
      title: 'a GitHub Enterprise release: the host as repository_url',
      release: async () =>
        remoteRelease(
          github('platform', 'capi-fork', 'ghe.example.com'),
          (f) => `https://ghe.example.com/platform/capi-fork/releases/download/${VERSION}/${f}`,
        ),
      expected: {
        type: 'github',
        namespace: 'platform',
        name: 'capi-fork',
        version: VERSION,
        qualifiers: { repository_url: 'https://ghe.example.com' },
      },
    },
  ],
  gitlab: [
    {
      title: 'a generic package of a project named by its path: group path and project, the host',
      release: async () => {
        const { source, url } = gitlab(
          `https://gitlab.example.com/api/v4/projects/platform%2Fcapi%2Fproviders/packages/generic/cluster-api/${VERSION}/core-components.yaml`,
        );
        return remoteRelease(source, url);
      },
      expected: {
        type: 'gitlab',
        namespace: 'platform/capi',
        name: 'providers',
        version: VERSION,
        qualifiers: { repository_url: 'https://gitlab.example.com' },
      },
    },
    {
      title: 'a project named by its numeric id: no path to name, so generic with the components checksum',
      release: async () => {
        const { source, url } = gitlab(
          `https://gitlab.example.com/api/v4/projects/4242/packages/generic/cluster-api/${VERSION}/core-components.yaml`,
        );
        return remoteRelease(source, url);
      },
      expected: {
        type: 'generic',
        name: 'cluster-api',
        version: VERSION,
        qualifiers: { checksum: `sha256:${sha256(CORE)}` },
      },
    },
  ],
  oci: [
    {
      title: 'fetchConfig.oci read by tag: the manifest digest from the artifact URLs, the tag',
      release: async () => {
        const { source } = createOciSource({
          reference: 'ghcr.io/acme/capi-providers',
          providerType: 'core',
          providerName: 'cluster-api',
        });
        return remoteRelease(source, (f) => `oci://ghcr.io/acme/capi-providers@${MANIFEST}#${f}`);
      },
      expected: {
        type: 'oci',
        name: 'capi-providers',
        version: MANIFEST,
        qualifiers: { repository_url: 'ghcr.io/acme/capi-providers', tag: VERSION },
      },
    },
    {
      title: 'an oci:// URL pinned by digest: the digest from the id, no tag',
      release: async () => {
        const { source } = createOciUrlSource({
          url: `oci://registry.example.com:5000/mirror/cluster-api-releases@${MANIFEST}`,
          providerType: 'core',
          providerName: 'cluster-api',
          componentsFile: 'core-components.yaml',
        });
        return remoteRelease(
          source,
          (f) => `oci://registry.example.com:5000/mirror/cluster-api-releases@${MANIFEST}#${f}`,
        );
      },
      expected: {
        type: 'oci',
        name: 'cluster-api-releases',
        version: MANIFEST,
        qualifiers: { repository_url: 'registry.example.com:5000/mirror/cluster-api-releases' },
      },
    },
  ],
  configmap: [
    {
      title: "the operator's ConfigMap: generic, with the checksum of the components it holds",
      release: () =>
        readRelease(
          createConfigMapSource({
            selector: { matchLabels: { 'provider.cluster.x-k8s.io/name': 'cluster-api' } },
            namespace: 'capi-system',
            configMaps: [{ object: configMap, file: 'providers/sources.yaml', locate: () => ({ line: 1, col: 1 }) }],
            declaredAt: {
              file: 'providers/core.yaml',
              line: 1,
              col: 1,
              object: 'CoreProvider/capi-system/cluster-api',
            },
          }),
          'components.yaml',
        ),
      expected: {
        type: 'generic',
        name: 'cluster-api',
        version: VERSION,
        qualifiers: { checksum: `sha256:${sha256(CORE)}` },
      },
    },
  ],
  local: [
    {
      title: 'a clusterctl local repository: generic, with the checksum of its components file',
      release: () =>
        readRelease(
          createLocalRepositorySource({
            root: `${FIXTURES}repository`,
            displayRoot: 'test/fixtures/repository',
            label: 'cluster-api',
          }),
          'core-components.yaml',
        ),
      expected: {
        type: 'generic',
        name: 'cluster-api',
        version: VERSION,
        qualifiers: { checksum: `sha256:${sha256(CORE)}` },
      },
    },
  ],
};

/** The parsed purl, after checking it is what the library itself writes for those fields (a round trip). */
function parse(purl: string | undefined): Fields {
  expect(purl, 'every component has a purl').toEqual(expect.any(String));
  const parsed = PackageURL.fromString(purl!);
  expect(parsed.toString(), 'the purl round-trips through packageurl-js').toBe(purl);
  return {
    type: parsed.type,
    ...(parsed.namespace !== undefined ? { namespace: parsed.namespace } : {}),
    name: parsed.name,
    ...(parsed.version !== undefined ? { version: parsed.version } : {}),
    ...(parsed.qualifiers ? { qualifiers: { ...parsed.qualifiers } } : {}),
  };
}

/** The fixture environment with its core provider released from `release`. */
function withCore(release: Release): SbomSource {
  const source = sbomFixture();
  source.providers = source.providers.map((p) =>
    p.label === 'cluster-api' ? { ...p, version: VERSION, ...release } : p,
  );
  return source;
}

const flatten = (components: CdxComponent[]): CdxComponent[] =>
  components.flatMap((c) => [c, ...flatten(c.components ?? [])]);

interface SpdxPackage {
  SPDXID: string;
  name: string;
  primaryPackagePurpose: string;
  checksums?: { checksumValue: string }[];
  externalRefs?: { referenceCategory: string; referenceType: string; referenceLocator: string }[];
}

describe('package URLs of every release source kind', () => {
  it('has a row for every kind the code defines, and an encoder for each', () => {
    expect(Object.keys(CASES).sort()).toEqual([...RELEASE_SOURCE_KINDS].sort());
    expect(Object.keys(RELEASE_PURLS).sort()).toEqual([...RELEASE_SOURCE_KINDS].sort());
    for (const kind of RELEASE_SOURCE_KINDS) expect(CASES[kind].length, kind).toBeGreaterThan(0);
  });

  const rows = RELEASE_SOURCE_KINDS.flatMap((kind) => CASES[kind].map((c) => ({ kind, ...c })));
  it.each(rows)('$kind: $title', async ({ kind, release, expected }) => {
    const core = await release();
    expect(releaseSourceKind(core.sourceId), 'the factory makes an id of its kind').toBe(kind);
    const source = withCore(core);

    const cdxText = environmentSbom(source);
    expect(await new Validation.JsonStrictValidator(Spec.Version.v1dot6).validate(cdxText)).toBeNull();
    const components = flatten((JSON.parse(cdxText) as CdxDocument).components);
    const release_ = components.find((c) => c['bom-ref'] === 'provider:CoreProvider/capi-system/cluster-api')!;
    expect(parse(release_.purl)).toEqual(expected);
    for (const c of components) {
      const fields = parse(c.purl);
      if (c.type === 'container') expect(fields.type, c.name).toBe('oci');
      if (c.type === 'file') {
        // A release file: generic, named by release and file, its checksum the file's hash.
        expect(fields).toMatchObject({
          type: 'generic',
          name: c.name,
          version: c.version,
          qualifiers: { checksum: `sha256:${c.hashes![0]!.content}` },
        });
        const url = c.externalReferences![0]!.url;
        expect(fields.qualifiers!.download_url).toBe(/^https:\/\//.test(url) ? url : undefined);
      }
    }

    // SPDX: the same purls, each the one PACKAGE-MANAGER purl reference of its package; only the environment (the subject, no package) has none.
    const spdxText = environmentSbom(source, 'spdx');
    expect(spdxProblems(spdxText)).toEqual([]);
    const packages = (JSON.parse(spdxText) as { packages: SpdxPackage[] }).packages;
    const spdxPurls = packages.flatMap((p) => {
      if (p.primaryPackagePurpose === 'OTHER') {
        expect(p.externalRefs, 'the environment').toBeUndefined();
        return [];
      }
      expect(p.externalRefs, p.name).toEqual([
        { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: expect.any(String) },
      ]);
      parse(p.externalRefs![0]!.referenceLocator);
      return [p.externalRefs![0]!.referenceLocator];
    });
    expect(spdxPurls.sort()).toEqual(components.map((c) => c.purl!).sort());
  });
});

describe('package URLs of images', () => {
  const digest = `sha256:${sha256(CORE)}`;
  const cases: { title: string; reference: string; expected: Fields }[] = [
    {
      title: 'tag and digest: the digest as version, the tag as qualifier',
      reference: `registry.k8s.io/cluster-api/cluster-api-controller:${VERSION}@${digest}`,
      expected: {
        type: 'oci',
        name: 'cluster-api-controller',
        version: digest,
        qualifiers: { repository_url: 'registry.k8s.io/cluster-api/cluster-api-controller', tag: VERSION },
      },
    },
    {
      title: 'digest without a tag, on a registry with a port',
      reference: `registry.lab:5000/capd-manager@${digest}`,
      expected: {
        type: 'oci',
        name: 'capd-manager',
        version: digest,
        qualifiers: { repository_url: 'registry.lab:5000/capd-manager' },
      },
    },
    {
      title: 'digest without a tag on Docker Hub: its defaults in repository_url',
      reference: `nginx@${digest}`,
      expected: {
        type: 'oci',
        name: 'nginx',
        version: digest,
        qualifiers: { repository_url: 'docker.io/library/nginx' },
      },
    },
    {
      title: 'tag without a digest: no version (the spec makes it optional), the tag as qualifier',
      reference: 'busybox:1.36',
      expected: {
        type: 'oci',
        name: 'busybox',
        qualifiers: { repository_url: 'docker.io/library/busybox', tag: '1.36' },
      },
    },
  ];

  it.each(cases)('$title', ({ reference, expected }) => {
    const source = sbomFixture();
    const deployment = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'm', namespace: 'capi-system' },
      spec: { template: { spec: { containers: [{ name: 'c', image: reference }] } } },
    } as unknown as KubeObject;
    source.environment = { name: 'prod', components: [{ name: 'cluster-api', objects: [deployment] }] };
    const cdx = (JSON.parse(environmentSbom(source)) as CdxDocument).components.filter((c) => c.type === 'container');
    expect(cdx).toHaveLength(1);
    expect(parse(cdx[0]!.purl)).toEqual(expected);
    const spdx = (JSON.parse(environmentSbom(source, 'spdx')) as { packages: SpdxPackage[] }).packages.filter(
      (p) => p.primaryPackagePurpose === 'CONTAINER',
    );
    expect(spdx.map((p) => p.externalRefs![0]!.referenceLocator)).toEqual([cdx[0]!.purl]);
  });
});
