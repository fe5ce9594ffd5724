/**
 * An environment's SBOM as CycloneDX 1.6 JSON, built with the CycloneDX project's own library
 * (models and JSON serializer). The shape (docs/images.md "SBOM").
 *
 * Design notes: docs/internals.md "sbom/cyclonedx.ts".
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import type * as Models from '@cyclonedx/cyclonedx-library/Models';
import { packageVersion } from '../package-files.js';
import { artifactPurl, imagePurl, npmPurl, releasePurl } from './purl.js';
import type { SbomImage, SbomRelease, SbomSubject } from './sbom-subject.js';
import type * as CycloneDXLibrary from '@cyclonedx/cyclonedx-library';

const PROPERTY = 'capi-render:';

type CycloneDX = typeof CycloneDXLibrary;
let library: CycloneDX | undefined;

/**
 * The library, loaded on first use from node_modules (a build that writes no SBOM does not pay for
 * it) and never bundled into the CLI: its XML half requires optional packages that are not installed.
 */
function cyclonedx(): CycloneDX {
  return (library ??= createRequire(import.meta.url)('@cyclonedx/cyclonedx-library') as CycloneDX);
}

/** The document's text (2-space JSON, trailing newline). */
export function cyclonedxText(subject: SbomSubject, tool: { version: string } = { version: packageVersion() }): string {
  const { Serialize, Spec } = cyclonedx();
  const bom = cyclonedxBom(subject, tool);
  const serialize = () =>
    `${new Serialize.JsonSerializer(new Serialize.JSON.Normalize.Factory(Spec.Spec1dot6)).serialize(bom, { sortLists: true, space: 2 })}\n`;
  bom.serialNumber = contentUuid(serialize());
  return serialize();
}

/** The model, without a serial number. */
export function cyclonedxBom(subject: SbomSubject, tool: { version: string }): Models.Bom {
  const { Enums, Models } = cyclonedx();
  const bom = new Models.Bom();
  bom.metadata.lifecycles.add(Enums.LifecyclePhase.Build);
  bom.metadata.tools.components.add(
    new Models.Component(Enums.ComponentType.Application, 'capi-render', {
      version: tool.version,
      purl: npmPurl('capi-render', tool.version),
      description: 'renders Cluster API provider installs for GitOps',
    }),
  );
  const environment = new Models.Component(Enums.ComponentType.Application, subject.environment, {
    bomRef: `environment:${subject.environment}`,
    description: `Cluster API management-cluster installation "${subject.environment}", rendered by capi-render`,
  });
  environment.properties.add(new Models.Property(`${PROPERTY}environment`, subject.environment));
  if (subject.gitopsFlavour)
    environment.properties.add(new Models.Property(`${PROPERTY}gitops-flavour`, subject.gitopsFlavour));
  bom.metadata.component = environment;

  const images = new Map<string, Models.Component>();
  for (const image of subject.images) {
    const component = imageComponent(image);
    images.set(image.ref, component);
    bom.components.add(component);
  }
  for (const release of subject.releases) {
    const component = releaseComponent(release);
    for (const image of subject.images) {
      if (image.components.some((c) => release.components.includes(c)))
        component.dependencies.add(images.get(image.ref)!.bomRef);
    }
    environment.dependencies.add(component.bomRef);
    bom.components.add(component);
  }
  return bom;
}

function releaseComponent(release: SbomRelease): Models.Component {
  const { Enums, Models } = cyclonedx();
  const component = new Models.Component(Enums.ComponentType.Application, release.name, {
    bomRef: release.ref,
    version: release.version,
    purl: releasePurl(release),
    description: release.provider
      ? `${release.provider.kind} ${release.provider.namespace}/${release.provider.name}`
      : 'cert-manager, installed as clusterctl init does',
  });
  const property = (name: string, value: string) =>
    component.properties.add(new Models.Property(`${PROPERTY}${name}`, value));
  if (release.provider)
    property('provider', `${release.provider.kind}/${release.provider.namespace}/${release.provider.name}`);
  if (release.contract) property('contract', release.contract);
  property('source', release.sourceId);
  for (const artifact of release.artifacts) {
    const file = new Models.Component(Enums.ComponentType.File, artifact.file, {
      bomRef: `${release.ref}/${artifact.file}`,
      version: release.version,
      purl: artifactPurl(release, artifact),
    });
    file.hashes.set(Enums.HashAlgorithm['SHA-256'], artifact.sha256);
    file.externalReferences.add(
      new Models.ExternalReference(artifact.url, Enums.ExternalReferenceType.Distribution, {
        comment: 'where capi-render read this release file',
      }),
    );
    component.components.add(file);
  }
  return component;
}

function imageComponent(image: SbomImage): Models.Component {
  const { Enums, Models } = cyclonedx();
  const version = image.tag ?? image.digest;
  const [alg, hex] = image.digest ? image.digest.split(':') : [];
  const component = new Models.Component(Enums.ComponentType.Container, image.repository, {
    bomRef: image.ref,
    ...(version ? { version } : {}),
    purl: imagePurl(image),
  });
  if (alg === 'sha256' && hex) component.hashes.set(Enums.HashAlgorithm['SHA-256'], hex.toLowerCase());
  if (alg === 'sha512' && hex) component.hashes.set(Enums.HashAlgorithm['SHA-512'], hex.toLowerCase());
  const property = (name: string, value: string) =>
    component.properties.add(new Models.Property(`${PROPERTY}${name}`, value));
  property('reference', image.reference);
  property('pinned', String(image.pinned));
  for (const use of image.usedBy) property('used-by', use);
  const v = image.verification;
  if (v) {
    property('verified-by', v.rule);
    property('verification-method', v.method);
    if (v.identity !== undefined) property('verified-identity', v.identity);
    if (v.issuer !== undefined) property('verified-issuer', v.issuer);
  }
  return component;
}

/**
 * `urn:uuid:` of a UUID made from the sha256 of `text` (RFC 9562 version 8, the name-based form with
 * a hash of one's choice): 122 bits of the hash, the version and variant bits set.
 */
export function contentUuid(text: string): string {
  const hex = createHash('sha256').update(text).digest('hex').slice(0, 32).split('');
  hex[12] = '8';
  hex[16] = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  const h = hex.join('');
  return `urn:uuid:${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}
