/**
 * Package URLs (github.com/package-url/purl-spec) for everything an SBOM lists, so scanners can match
 * each component: built, encoded and parsed back by the package-url project's own JavaScript library
 * (packageurl-js), never by hand. Which type each thing gets, and why, is said where it is chosen:
 * {@link RELEASE_PURLS} for releases by source kind, {@link imagePurl}, {@link artifactPurl}.
 */
import { createRequire } from 'node:module';
import type { PackageURL } from 'packageurl-js';
import { InternalError } from '../errors.js';
import { releaseSourceKind, type ReleaseSourceKind } from '../source/release-source.js';
import type { SbomArtifact, SbomImage, SbomRelease } from './sbom-subject.js';
import type * as PackageUrlLibrary from 'packageurl-js';

type Library = typeof PackageUrlLibrary;
let library: Library | undefined;

/** The library, loaded on first use (as the CycloneDX one is): a build that writes no SBOM does not pay for it. */
function packageUrls(): Library {
  return (library ??= createRequire(import.meta.url)('packageurl-js') as Library);
}

/** The parts of a purl, before the library normalises them (lowercasing names where the type says so). */
export interface PurlParts {
  type: string;
  namespace?: string;
  name: string;
  version?: string;
  qualifiers?: Record<string, string | undefined>;
}

/**
 * The purl of `parts`, as the library encodes it, after parsing it back with the library: a purl
 * that does not parse to the same type, namespace, name, version and qualifiers is a bug here, not
 * something to publish.
 */
export function purlOf(parts: PurlParts): string {
  const { PackageURL } = packageUrls();
  const qualifiers = Object.fromEntries(
    Object.entries(parts.qualifiers ?? {}).filter((e): e is [string, string] => e[1] !== undefined && e[1] !== ''),
  );
  const built = new PackageURL(
    parts.type,
    parts.namespace,
    parts.name,
    parts.version,
    Object.keys(qualifiers).length > 0 ? qualifiers : undefined,
    undefined,
  );
  const text = built.toString();
  const parsed = PackageURL.fromString(text);
  if (fieldsOf(parsed) !== fieldsOf(built) || parsed.toString() !== text) {
    throw new InternalError(
      `package URL ${text} does not parse back to what it was built from (${fieldsOf(built)}); please report this capi-render bug`,
    );
  }
  return text;
}

function fieldsOf(purl: PackageURL): string {
  const qualifiers = Object.entries(purl.qualifiers ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    purl.type,
    purl.namespace ?? null,
    purl.name,
    purl.version ?? null,
    qualifiers,
    purl.subpath ?? null,
  ]);
}

/** `pkg:npm/<name>@<version>`: capi-render itself, the SBOM's tool, as npm publishes it. */
export function npmPurl(name: string, version: string): string {
  return purlOf({ type: 'npm', name, version });
}

/**
 * An image: `pkg:oci/<name>@<digest>?repository_url=<host/path>&tag=<tag>`. The oci type is
 * registry-agnostic: name is the last path segment (lowercased by the library), version the manifest
 * digest, and where it was pulled from goes in `repository_url` (host and path, as the spec's
 * examples write it) with the tag it was referenced by. An image run by tag alone has no digest:
 * its purl has no version (the spec makes it optional), which names the image but not one build of
 * it — `imagePolicy.pinDigests` gives it one.
 */
export function imagePurl(image: Pick<SbomImage, 'repository' | 'location' | 'digest' | 'tag'>): string {
  const location = image.location ?? image.repository;
  return purlOf({
    type: 'oci',
    name: lastSegment(location),
    version: image.digest,
    qualifiers: { repository_url: location, tag: image.tag },
  });
}

/**
 * One release file (a components file, metadata.yaml, cert-manager.yaml):
 * `pkg:generic/<release>/<file>@<version>?checksum=sha256:<hex>&download_url=<url>`. No package type
 * names a single file of a release, and giving it the release's own purl would make a scanner report
 * every finding of the release once more per file; generic is the spec's type for what fits nowhere
 * else, and its two qualifiers are exactly this file's identity: the checksum, and the URL it was
 * downloaded from when there is one (a local path or a ConfigMap is not a download URL).
 */
export function artifactPurl(release: Pick<SbomRelease, 'name' | 'version'>, artifact: SbomArtifact): string {
  const download = /^https?:\/\//.test(artifact.url) ? artifact.url : undefined;
  return purlOf({
    type: 'generic',
    namespace: release.name,
    name: artifact.file,
    version: release.version,
    qualifiers: { checksum: `sha256:${artifact.sha256}`, download_url: download },
  });
}

/** A release's purl, by the kind of source it came from; a library caller's own source kind is generic, as local and configmap are. */
export function releasePurl(release: Pick<SbomRelease, 'name' | 'version' | 'sourceId' | 'artifacts'>): string {
  const kind = releaseSourceKind(release.sourceId);
  const parts = kind ? RELEASE_PURLS[kind](release, release.sourceId.slice(kind.length + 1)) : genericRelease(release);
  return purlOf(parts);
}

type ReleaseOf = Pick<SbomRelease, 'name' | 'version' | 'sourceId' | 'artifacts'>;

/** One entry per source kind: adding a kind to RELEASE_SOURCE_KINDS fails the type check until it is here. */
export const RELEASE_PURLS: Readonly<Record<ReleaseSourceKind, (release: ReleaseOf, rest: string) => PurlParts>> = {
  // `github:<owner>/<repo>` or `github:<host>/<owner>/<repo>`. The github type names a repository
  // (namespace the owner, name the repository, both lowercased) at a tag; its default repository is
  // github.com, so a GitHub Enterprise host goes in repository_url, the spec's qualifier for a
  // repository other than the type's default.
  github(release, rest) {
    const segments = rest.split('/');
    const [host, owner, repo] = segments.length === 3 ? segments : ['github.com', ...segments];
    if (segments.length < 2 || segments.length > 3 || !owner || !repo) return genericRelease(release);
    return {
      type: 'github',
      namespace: owner,
      name: repo,
      version: release.version,
      qualifiers: { repository_url: host === 'github.com' ? undefined : `https://${host}` },
    };
  },
  // `gitlab:<host>/<project slug>/<package>`. gitlab is among the spec's candidate types (listed,
  // not yet defined) and packageurl-js implements it as github: namespace the project's group path,
  // name the project, version the tag; the host in repository_url unless it is gitlab.com. A project
  // named by its numeric id has no path to name, so it is generic like a local release.
  gitlab(release, rest) {
    const [host = '', slug = ''] = rest.split('/');
    const project = safeDecode(slug);
    const cut = project.lastIndexOf('/');
    if (cut <= 0 || cut === project.length - 1) return genericRelease(release);
    return {
      type: 'gitlab',
      namespace: project.slice(0, cut),
      name: project.slice(cut + 1),
      version: release.version,
      qualifiers: { repository_url: host === 'gitlab.com' ? undefined : `https://${host}` },
    };
  },
  // `oci:<registry>/<repository>[@<digest>]#<provider>`. The release is an OCI artifact, so it is
  // named as an image is: the manifest digest it was read from as the version (from the id when the
  // source is pinned to one, else from the artifacts' `oci://…@<digest>#file` URLs), repository_url
  // the registry and repository, and the tag it was read by (the version) unless read by digest.
  oci(release, rest) {
    const location = rest.slice(0, rest.lastIndexOf('#') >= 0 ? rest.lastIndexOf('#') : rest.length);
    const at = location.indexOf('@');
    const repository = at >= 0 ? location.slice(0, at) : location;
    const digest =
      at >= 0
        ? location.slice(at + 1)
        : release.artifacts
            .map((a) => /^oci:\/\/[^@#]+@([a-z0-9]+:[0-9a-f]+)#/.exec(a.url)?.[1])
            .find((d) => d !== undefined);
    return {
      type: 'oci',
      name: lastSegment(repository),
      version: digest,
      qualifiers: { repository_url: repository, tag: at >= 0 ? undefined : release.version },
    };
  },
  // No package type names a ConfigMap or a folder of files: generic, the spec's type for packages
  // that fit nowhere else, identified by the checksum of what was installed.
  configmap: genericRelease,
  local: genericRelease,
};

/**
 * `pkg:generic/<name>@<version>?checksum=sha256:<hex>`: the checksum is the release's components
 * file (its first artifact), the file that was verified and installed; generic's other qualifier,
 * download_url, has no value here — nothing was downloaded.
 */
function genericRelease(release: ReleaseOf): PurlParts {
  const components = release.artifacts[0];
  return {
    type: 'generic',
    name: release.name,
    version: release.version,
    qualifiers: { checksum: components ? `sha256:${components.sha256}` : undefined },
  };
}

function lastSegment(location: string): string {
  return location.slice(location.lastIndexOf('/') + 1);
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
