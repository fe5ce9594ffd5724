/**
 * An environment's SBOM as SPDX 2.3 JSON (`capi-render sbom --format spdx`), built by hand — there is
 * no SPDX 2.3 library of the SPDX project for Node — and tested against the official SPDX 2.3 JSON
 * schema. The same content as the CycloneDX document (cyclonedx.ts), in SPDX's terms.
 *
 * Design notes: docs/internals.md "sbom/spdx.ts".
 */
import { createHash } from 'node:crypto';
import { packageVersion } from '../package-files.js';
import { contentUuid } from './cyclonedx.js';
import { artifactPurl, imagePurl, releasePurl } from './purl.js';
import type { SbomArtifact, SbomImage, SbomRelease, SbomSubject } from './sbom-subject.js';

export interface SpdxOptions {
  /** capi-render's version (the tool). Default: this package's. */
  version?: string;
  /** `SOURCE_DATE_EPOCH` (seconds since the epoch, as text); undefined or invalid: the epoch. */
  sourceDateEpoch?: string | undefined;
}

type Json = Record<string, unknown>;

const NOASSERTION = 'NOASSERTION';
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** The document's text (2-space JSON, trailing newline). */
export function spdxText(subject: SbomSubject, options: SpdxOptions = {}): string {
  const version = options.version ?? packageVersion();
  const environmentId = spdxId('Environment', subject.environment, subject.environment);
  const packages: Json[] = [];
  const relationships: [string, string, string][] = [['SPDXRef-DOCUMENT', 'DESCRIBES', environmentId]];

  packages.push({
    SPDXID: environmentId,
    name: subject.environment,
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    primaryPackagePurpose: 'OTHER',
    comment: `Cluster API management-cluster installation "${subject.environment}", rendered by capi-render${subject.gitopsFlavour ? ` for ${subject.gitopsFlavour}` : ''}`,
  });
  const imageIds = new Map(
    subject.images.map((image) => [
      image.ref,
      spdxId('Image', image.repository.slice(image.repository.lastIndexOf('/') + 1), image.ref),
    ]),
  );
  for (const image of subject.images) packages.push(imagePackage(image, imageIds.get(image.ref)!));
  for (const release of subject.releases) {
    const id = spdxId('Release', release.name, release.ref);
    packages.push(releasePackage(release, id));
    relationships.push([environmentId, 'CONTAINS', id]);
    for (const artifact of release.artifacts) {
      const artifactId = spdxId('Artifact', `${release.name}-${artifact.file}`, `${release.ref}/${artifact.file}`);
      packages.push(artifactPackage(artifact, release, artifactId));
      relationships.push([id, 'CONTAINS', artifactId]);
    }
    for (const image of subject.images) {
      if (image.components.some((c) => release.components.includes(c)))
        relationships.push([id, 'DEPENDS_ON', imageIds.get(image.ref)!]);
    }
  }

  const document = (namespace: string): Json => ({
    spdxVersion: 'SPDX-2.3',
    dataLicense: 'CC0-1.0',
    SPDXID: 'SPDXRef-DOCUMENT',
    name: `capi-render-${subject.environment}`,
    documentNamespace: namespace,
    creationInfo: { created: createdAt(options.sourceDateEpoch), creators: [`Tool: capi-render-${version}`] },
    packages: packages.sort((a, b) => byString(String(a.SPDXID), String(b.SPDXID))),
    relationships: relationships
      .sort((a, b) => byString(a.join(' '), b.join(' ')))
      .map(([spdxElementId, relationshipType, relatedSpdxElement]) => ({
        spdxElementId,
        relationshipType,
        relatedSpdxElement,
      })),
  });
  const text = (doc: Json) => `${JSON.stringify(doc, null, 2)}\n`;
  const uuid = contentUuid(text(document(''))).slice('urn:uuid:'.length);
  return text(document(`https://spdx.org/spdxdocs/capi-render-${encodeURIComponent(subject.environment)}-${uuid}`));
}

function releasePackage(release: SbomRelease, id: string): Json {
  const facts = [
    ...(release.provider
      ? [`provider: ${release.provider.kind}/${release.provider.namespace}/${release.provider.name}`]
      : ['cert-manager, installed as clusterctl init does']),
    ...(release.contract ? [`contract: ${release.contract}`] : []),
    `source: ${release.sourceId}`,
  ];
  return {
    SPDXID: id,
    name: release.name,
    versionInfo: release.version,
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    primaryPackagePurpose: 'APPLICATION',
    externalRefs: [purlRef(releasePurl(release))],
    comment: facts.join('\n'),
  };
}

function artifactPackage(artifact: SbomArtifact, release: SbomRelease, id: string): Json {
  // A download location is a URL (or NONE/NOASSERTION): a local path or a ConfigMap is named in sourceInfo instead.
  const isUrl = /^(?:https?|oci):\/\//.test(artifact.url);
  return {
    SPDXID: id,
    name: artifact.file,
    versionInfo: release.version,
    packageFileName: artifact.file,
    downloadLocation: isUrl ? artifact.url : NOASSERTION,
    ...(isUrl ? {} : { sourceInfo: `read from ${artifact.url}` }),
    filesAnalyzed: false,
    primaryPackagePurpose: 'FILE',
    checksums: [{ algorithm: 'SHA256', checksumValue: artifact.sha256 }],
    externalRefs: [purlRef(artifactPurl(release, artifact))],
  };
}

function imagePackage(image: SbomImage, id: string): Json {
  const [alg, hex] = image.digest ? image.digest.split(':') : [];
  const version = image.tag ?? image.digest;
  const checksum = alg === 'sha256' ? 'SHA256' : alg === 'sha512' ? 'SHA512' : undefined;
  const v = image.verification;
  const facts = [
    `reference: ${image.reference}`,
    `pinned: ${image.pinned}`,
    ...image.usedBy.map((u) => `used by: ${u}`),
    ...(v
      ? [
          `verified by: ${v.rule}`,
          `verification method: ${v.method}`,
          ...(v.identity !== undefined ? [`verified identity: ${v.identity}`] : []),
          ...(v.issuer !== undefined ? [`verified issuer: ${v.issuer}`] : []),
        ]
      : []),
  ];
  return {
    SPDXID: id,
    name: image.repository,
    ...(version ? { versionInfo: version } : {}),
    downloadLocation: NOASSERTION,
    filesAnalyzed: false,
    primaryPackagePurpose: 'CONTAINER',
    ...(checksum && hex ? { checksums: [{ algorithm: checksum, checksumValue: hex.toLowerCase() }] } : {}),
    externalRefs: [purlRef(imagePurl(image))],
    comment: facts.join('\n'),
  };
}

/**
 * A package's purl as SPDX 2.3 writes it: category `PACKAGE-MANAGER` (the only spelling the 2.3
 * JSON schema enumerates — it has no `PACKAGE_MANAGER`), type `purl`.
 */
function purlRef(purl: string): Json {
  return { referenceCategory: 'PACKAGE-MANAGER', referenceType: 'purl', referenceLocator: purl };
}

/** `SPDXRef-<kind>-<name>-<8 hex of the key>`: readable, unique, and only the characters SPDX allows. */
function spdxId(kind: string, name: string, key: string): string {
  const safe = name.replace(/[^A-Za-z0-9.-]+/g, '-').replace(/^-+|-+$/g, '') || 'x';
  return `SPDXRef-${kind}-${safe}-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;
}

/** ISO 8601 UTC without milliseconds, as SPDX writes dates. */
function createdAt(sourceDateEpoch: string | undefined): string {
  const seconds =
    sourceDateEpoch !== undefined && /^\d{1,12}$/.test(sourceDateEpoch.trim()) ? Number(sourceDateEpoch.trim()) : 0;
  return new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
