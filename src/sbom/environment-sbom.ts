/**
 * An environment's SBOM, for `capi-render sbom` and for the file a build writes beside the
 * environment's output (`sbom: {write: true}`): both come from the render result alone, so they are
 * the same bytes, and `check` can compare the committed file like any other rendered file.
 */
import { cyclonedxText } from './cyclonedx.js';
import { sbomSubject, type SbomSource } from './sbom-subject.js';
import { spdxText } from './spdx.js';

export type SbomFormat = 'cyclonedx' | 'spdx';

export const SBOM_FORMATS: readonly SbomFormat[] = ['cyclonedx', 'spdx'];

/**
 * The file a build writes, `<env>/sbom.cdx.json`: beside the environment's root kustomization.yaml,
 * which lists its resources explicitly, so kustomize, Argo CD and Flux never read it as a manifest.
 */
export const SBOM_FILE = 'sbom.cdx.json';

/**
 * The SBOM's text. `sourceDateEpoch` (`SOURCE_DATE_EPOCH`) is SPDX's required creation time
 * (default: the epoch); the CycloneDX document has no timestamp.
 */
export function environmentSbom(
  source: SbomSource,
  format: SbomFormat = 'cyclonedx',
  options: { sourceDateEpoch?: string | undefined } = {},
): string {
  const subject = sbomSubject(source);
  switch (format) {
    case 'cyclonedx':
      return cyclonedxText(subject);
    case 'spdx':
      return spdxText(subject, { sourceDateEpoch: options.sourceDateEpoch });
    default:
      throw new Error(`SBOM format ${String(format)} is not supported`);
  }
}
