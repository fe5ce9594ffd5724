/**
 * What an environment's SBOM describes, taken from its render result and nothing else (so a build,
 * `check` and `capi-render sbom` describe the same environment with the same bytes): each provider
 * release with the artifacts it was rendered from, cert-manager's release likewise, and every image
 * the rendered output runs with its digest and, when the build verified it, how.
 */
import { listEnvironmentImages } from '../images/image-list.js';
import { parseImageReference } from '../process/image-reference.js';
import type { RenderedEnvironment } from '../plan/output-plan.js';
import type { ProviderKind } from '../declarations/provider-kinds.js';

/** One release file, as the lock records it. */
export interface SbomArtifact {
  file: string;
  /** Where it was read: an https URL, `oci://…`, `configmap:…`, or a local repository path (repository-relative inside the repository). */
  url: string;
  /** Bare hex. */
  sha256: string;
}

export interface SbomRelease {
  /** Unique in the document: `provider:<Kind>/<namespace>/<name>`, or `cert-manager`. */
  ref: string;
  /** clusterctl's manifest label (`cluster-api`, `infrastructure-docker`), or `cert-manager`. */
  name: string;
  version: string;
  /** The operator CR (`CoreProvider/capi-system/cluster-api`); absent for cert-manager. */
  provider?: { kind: ProviderKind; namespace: string; name: string };
  /** The provider's contract (`v1beta2`); absent for cert-manager. */
  contract?: string;
  /** The release source as the lock names it (`github:kubernetes-sigs/cluster-api`, `local:…`). */
  sourceId: string;
  /** The components file first (its checksum identifies a release no package registry names), then metadata.yaml. */
  artifacts: SbomArtifact[];
  /** The rendered component folders that are this release's output (for the images they run). */
  components: string[];
}

/** How a rule verified an image (the build's `imageVerifications`, when it has them). */
export interface SbomVerification {
  rule: string;
  method: string;
  identity?: string;
  issuer?: string;
}

export interface SbomImage {
  /** Unique in the document: `image:<reference as rendered>`. */
  ref: string;
  /** The reference as rendered (`repo:tag@sha256:…` when pinned). */
  reference: string;
  /** The repository as rendered, without tag and digest. */
  repository: string;
  /** `host/path` with Docker Hub's defaults filled in (`docker.io/library/nginx`); undefined when the reference is not one. */
  location?: string;
  tag?: string;
  /** `sha256:…`, or undefined when the output runs the image by tag alone. */
  digest?: string;
  /** Pinned by this build (imagePolicy.pinDigests), rather than shipped with a digest. */
  pinned: boolean;
  /** Rendered component folders whose objects run it. */
  components: string[];
  /** `Kind/namespace/name container "c"` of every use. */
  usedBy: string[];
  verification?: SbomVerification;
}

export interface SbomSubject {
  environment: string;
  gitopsFlavour?: string;
  releases: SbomRelease[];
  images: SbomImage[];
}

/** The parts of an EnvironmentResult an SBOM reads (a structural subset, so tests can build one). */
export interface SbomSource {
  environment: RenderedEnvironment;
  gitopsFlavour?: string;
  providers: readonly {
    cr: { kind: ProviderKind; namespace: string; name: string };
    label: string;
    version: string;
    contract: string;
    sourceId: string;
    artifacts: readonly SbomArtifact[];
  }[];
  certManager?: { component: { name: string }; artifact: SbomArtifact; sourceId: string; version: string } | undefined;
  pinnedImages: readonly (readonly [string, string])[];
}

export function sbomSubject(source: SbomSource): SbomSubject {
  const releases: SbomRelease[] = source.providers.map((p) => ({
    ref: `provider:${p.cr.kind}/${p.cr.namespace}/${p.cr.name}`,
    name: p.label,
    version: p.version,
    provider: { kind: p.cr.kind, namespace: p.cr.namespace, name: p.cr.name },
    contract: p.contract,
    sourceId: p.sourceId,
    artifacts: p.artifacts.map(artifactOf),
    components: [p.label],
  }));
  if (source.certManager) {
    const cm = source.certManager;
    releases.unshift({
      ref: 'cert-manager',
      name: 'cert-manager',
      version: cm.version,
      sourceId: cm.sourceId,
      artifacts: [artifactOf(cm.artifact)],
      components: [cm.component.name],
    });
  }
  const verifications = imageVerificationsOf(source);
  const pinned = new Set(source.pinnedImages.map(([image]) => image));
  const images = listEnvironmentImages(source.environment, pinned).map((listed): SbomImage => {
    const location = locateImage(listed.reference);
    const repository = stripTag(listed.image);
    const verification = verifications?.[listed.image] ?? verifications?.[listed.reference];
    return {
      ref: `image:${listed.reference}`,
      reference: listed.reference,
      repository,
      ...(location ? { location: location.name } : {}),
      ...(location?.tag ? { tag: location.tag } : tagOf(listed.image) ? { tag: tagOf(listed.image)! } : {}),
      ...(listed.digest ? { digest: listed.digest } : {}),
      pinned: listed.pinned,
      components: listed.components,
      usedBy: listed.usedBy,
      ...(verification ? { verification } : {}),
    };
  });
  return {
    environment: source.environment.name,
    ...(source.gitopsFlavour ? { gitopsFlavour: source.gitopsFlavour } : {}),
    releases,
    images,
  };
}

function artifactOf(a: SbomArtifact): SbomArtifact {
  return { file: a.file, url: a.url, sha256: a.sha256.replace(/^sha256:/, '').toLowerCase() };
}

/**
 * `imageVerifications` of a render result, when the build that made it verifies image signatures:
 * read by a property check, as an optional map image → {rule, method, identity?, issuer?}; anything
 * else there is ignored rather than guessed at.
 */
function imageVerificationsOf(source: object): Record<string, SbomVerification> | undefined {
  const value: unknown = (source as { imageVerifications?: unknown }).imageVerifications;
  if (typeof value !== 'object' || value === null) return undefined;
  const out: Record<string, SbomVerification> = {};
  for (const [image, v] of Object.entries(value as Record<string, unknown>)) {
    if (typeof v !== 'object' || v === null) continue;
    const { rule, method, identity, issuer } = v as Record<string, unknown>;
    if (typeof rule !== 'string' || typeof method !== 'string') continue;
    out[image] = {
      rule,
      method,
      ...(typeof identity === 'string' ? { identity } : {}),
      ...(typeof issuer === 'string' ? { issuer } : {}),
    };
  }
  return out;
}

/** The reference's full name (Docker Hub's `docker.io/library/` filled in) and tag, as distribution/reference normalises it. */
function locateImage(reference: string): { name: string; tag: string } | undefined {
  let parsed = parseImageReference(reference);
  if (parsed.kind === 'not-canonical') parsed = parseImageReference(parsed.normalized);
  return parsed.kind === 'ok'
    ? { name: `${parsed.image.repository}/${parsed.image.name}`, tag: parsed.image.tag }
    : undefined;
}

/** `repo:tag` → `repo` (a `:` after the last `/` is a tag; one before it is a port). */
function stripTag(image: string): string {
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? image.slice(0, colon) : image;
}

function tagOf(image: string): string | undefined {
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/') ? image.slice(colon + 1) : undefined;
}
